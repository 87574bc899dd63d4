"""When the turn timer is about to run out, the client's own careful move is legal."""

from __future__ import annotations

import random

from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, PlaceBid
from p2pdice.core.rules import Rules
from p2pdice.core.view import seat_view
from p2pdice.ui.clock import cautious

from .helpers import HANDS, bidding


def test_cautious_moves_are_legal() -> None:
    rng = random.Random(1)
    opening = seat_view(bidding(bids=()), 0, HANDS[0])
    action = cautious(opening, rng)
    assert isinstance(action, PlaceBid) and opening.is_legal_bid(action.bid)
    for quantity in range(2, 16):
        state = bidding(bids=((0, Bid(quantity, 6)),))
        view = seat_view(state, 1, HANDS[1])
        action = cautious(view, rng)
        assert action.seat == 1
        assert isinstance(action, Challenge) or view.is_legal_bid(action.bid)
    top = seat_view(
        bidding(Rules(seats=3, first_starter="seat0"), bids=((0, Bid(15, 6)),)), 1, HANDS[1]
    )
    assert cautious(top, rng) == Challenge(1)
