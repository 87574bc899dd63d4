"""When the turn timer is about to run out, the client's own careful move is legal, and it is
the medium CPU's move as it is: an exact call stays an exact call."""

from __future__ import annotations

import random

from p2pdice.bots.medium import medium
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, ExactCall, PlaceBid
from p2pdice.core.rules import ExactReward, Rules
from p2pdice.core.view import seat_view
from p2pdice.ui.clock import cautious, move_words

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


def test_a_careful_move_keeps_mediums_exact_call() -> None:
    """One die each and `others-lose`: against 1 x 2s, holding a 3, medium calls exact (two
    unseen dice, ones wild: exactly one 2 is 4/9 likely), where a Liar call would win only
    4/9 of the time (the bid stands 5/9)."""
    rules = Rules(
        seats=3,
        first_starter="seat0",
        starting_dice=1,
        exact_call=True,
        exact_reward=ExactReward.OTHERS_LOSE,
    )
    view = seat_view(bidding(rules, bids=((0, Bid(1, 2)),)), 1, HANDS[1][:1])
    assert medium(view, random.Random(1)) == ExactCall(1)
    assert cautious(view, random.Random(1)) == ExactCall(1)


def test_a_careful_move_is_said_as_the_move_it_is() -> None:
    assert move_words(ExactCall(1)) == "Exact!"
    assert move_words(Challenge(1)) == "Liar!"
    assert move_words(PlaceBid(1, Bid(3, 4))) == "3 x 4s"
