"""Other playing styles, to check that `hard` is strong in general and not only against `medium`.

Each is a probability-threshold player like `medium`, with other settings or some noise.
They are third-party bots in the `module:callable` sense; from the repository root:

    python -m p2pdice tournament --bots hard,benchmarks.opponents:passive --games 1000 --jobs 2
"""

from __future__ import annotations

import math
import random

from p2pdice.bots.odds import bid_true_chance, exact_chance, face_probability
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Challenge, ExactCall, PlaceBid
from p2pdice.core.view import SeatView


def _threshold_player(
    view: SeatView,
    rng: random.Random,
    *,
    call_below: float,
    raise_at_least: float,
    exact_at_least: float = 0.40,
    random_raise: float = 0.0,
    random_opening: bool = False,
) -> Action:
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    lowest = view.lowest_bids_per_face()
    if standing is None:
        if random_opening:
            face = rng.choice(sorted(lowest))
            jitter = rng.choice((-1, 0, 1))
        else:
            face = max(lowest, key=lambda f: (view.own_matching(f), f))
            jitter = 0
        p = face_probability(face, wild_ones=view.wild_ones)
        quantity = math.floor(view.own_matching(face) + view.unseen_dice * p) + jitter
        return PlaceBid(seat, Bid(min(max(quantity, 1), view.dice_in_play), face))
    if view.can_exact and exact_chance(view, standing) >= exact_at_least:
        return ExactCall(seat)
    if bid_true_chance(view, standing) < call_below:
        return Challenge(seat)
    candidates = [
        b
        for low in lowest.values()
        for b in (low, Bid(low.quantity + 1, low.face))
        if b.quantity <= view.dice_in_play
    ]
    if not candidates:
        return Challenge(seat)
    if random_raise and rng.random() < random_raise:
        return PlaceBid(seat, rng.choice(candidates))
    best = max(candidates, key=lambda b: (bid_true_chance(view, b), -b.quantity, b.face))
    if bid_true_chance(view, best) >= raise_at_least:
        return PlaceBid(seat, best)
    return Challenge(seat)


def passive(view: SeatView, rng: random.Random) -> Action:
    """Calls only long shots (below 20%), raises down to 10%."""
    return _threshold_player(view, rng, call_below=0.20, raise_at_least=0.10)


def caller(view: SeatView, rng: random.Random) -> Action:
    """Calls anything below even odds, raises only from 25%."""
    return _threshold_player(view, rng, call_below=0.50, raise_at_least=0.25)


def bluffer(view: SeatView, rng: random.Random) -> Action:
    """Medium's thresholds, but opens on a random face and makes a random small raise 30% of the time."""
    return _threshold_player(
        view, rng, call_below=0.35, raise_at_least=0.15, random_raise=0.30, random_opening=True
    )
