"""`medium`: a fixed probability-threshold player (parameters in docs/bots.md, never tuned down).

It treats the unseen dice as independent with p = 1/3 for a non-one face when ones are wild
outside palifico, else 1/6, after counting its own matching dice:
- exact call (when allowed) if an exact count is at least 40% likely and it holds fewer
  than the starting dice (at the cap a hit regains nothing, so the call could only lose),
  or at any count when a hit costs every other seat a die (`exact_reward` others-lose);
- challenge if the standing bid is less than 35% likely;
- otherwise the most likely of the smallest legal raises (for each face the lowest legal
  quantity and one more) if that is at least 15% likely, else challenge;
- it opens on the face it holds most of (wilds included) at its expected total.
"""

from __future__ import annotations

import math
import random

from ..core.bids import Bid
from ..core.game import Action, Challenge, ExactCall, PlaceBid
from ..core.rules import ExactReward
from ..core.view import SeatView
from .odds import bid_true_chance, exact_chance, face_probability

CHALLENGE_BELOW = 0.35
RAISE_AT_LEAST = 0.15
EXACT_AT_LEAST = 0.40


def medium(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    lowest = view.lowest_bids_per_face()
    if standing is None:
        return PlaceBid(seat, _opening(view, lowest))
    pays = (
        view.my_dice < view.rules.starting_dice
        or view.rules.exact_reward == ExactReward.OTHERS_LOSE
    )
    if view.can_exact and pays and exact_chance(view, standing) >= EXACT_AT_LEAST:
        return ExactCall(seat)
    if bid_true_chance(view, standing) < CHALLENGE_BELOW:
        return Challenge(seat)
    candidates = [b for low in lowest.values() for b in (low, Bid(low.quantity + 1, low.face))]
    candidates = [b for b in candidates if b.quantity <= view.dice_in_play]
    if not candidates:
        return Challenge(seat)
    # Most likely first; ties go to the smaller quantity, then the higher face.
    best = max(candidates, key=lambda b: (bid_true_chance(view, b), -b.quantity, b.face))
    if bid_true_chance(view, best) >= RAISE_AT_LEAST:
        return PlaceBid(seat, best)
    return Challenge(seat)


def _opening(view: SeatView, lowest: dict[int, Bid]) -> Bid:
    # The face it holds most of (ties: the higher face), at floor(own + unseen * p), at least 1.
    face = max(lowest, key=lambda f: (view.own_matching(f), f))
    p = face_probability(face, wild_ones=view.wild_ones)
    expected = math.floor(view.own_matching(face) + view.unseen_dice * p)
    return Bid(min(max(expected, 1), view.dice_in_play), face)
