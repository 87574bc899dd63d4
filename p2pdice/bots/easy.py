"""`easy`: plausible but exploitable. Bids near its own hand and calls at random moments."""

from __future__ import annotations

import random

from ..core.bids import Bid
from ..core.game import Action, Challenge, ExactCall, PlaceBid
from ..core.view import SeatView


def easy(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    standing = view.standing_bid
    if standing is not None:
        # Calls on a whim, and a little more often when the bid looks big next to its own dice.
        looks_big = standing.quantity > view.own_matching(standing.face) + view.unseen_dice // 2
        if not lowest or rng.random() < (0.45 if looks_big else 0.12):
            if view.can_exact and rng.random() < 0.15:
                return ExactCall(seat)
            return Challenge(seat)
    # Raise on the face it holds most of, by the smallest step or one more.
    face = max(lowest, key=lambda f: (view.own_matching(f), rng.random()))
    bid = lowest[face]
    bump = rng.choice((0, 0, 1))
    if standing is None:
        bump = rng.choice((0, 1, 2)) + max(0, view.own_matching(face) - 1)
    quantity = min(bid.quantity + bump, view.dice_in_play)
    candidate = Bid(quantity, face)
    return PlaceBid(seat, candidate if view.is_legal_bid(candidate) else bid)
