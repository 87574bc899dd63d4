"""Fixed playing styles that probe `hard` for exploits (the gauntlet of docs/bots.md).

They are not difficulties offered to players: each is a simple, deterministic-given-its-seed
style that a person could adopt at a real table, chosen because it breaks an assumption a
model-based bot tends to make. They load by name wherever a bot name is accepted
(`p2pdice tournament --bots hard,never-calls`); `STYLE_NAMES` in bots/names.py lists them.

- `never-calls`: never challenges unless the standing bid is impossible from its own hand
  (more than its matching dice plus every unseen die) or no raise is left, and always makes
  the lowest legal bid on the face it holds most of. Breaks "an uncalled raise is worth
  little": against it every possible raise is safe.
- `always-calls`: challenges every standing bid; opens at the lowest legal bid on its best
  face. Breaks "the follower calls at a threshold".
- `heavy-bluffer`: half its bids are on a random face, one or two above the lowest legal
  quantity, whatever it holds; it calls only bids its own dice make less than 20% likely.
  Breaks "bids show hands".
- `misleading`: bids the face it holds *fewest* of (by the smallest step), and calls like
  medium (below 35%). Breaks "bids show hands" in the other direction: a belief that trusts
  its bids is pushed away from the truth.
"""

from __future__ import annotations

import random

from ..core.bids import Bid
from ..core.game import Action, Challenge, PlaceBid
from ..core.view import SeatView
from .medium import CHALLENGE_BELOW
from .odds import bid_true_chance

BLUFF_SHARE = 0.5  #: heavy-bluffer: share of its bids made on a random face
BLUFFER_CALLS_BELOW = 0.20  #: heavy-bluffer: it calls bids its dice make less likely than this


def _best_face(view: SeatView, faces: list[int]) -> int:
    # Most of its own matching dice; ties go to the higher face.
    return max(faces, key=lambda f: (view.own_matching(f), f))


def never_calls(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    standing = view.standing_bid
    if standing is not None:
        possible = view.own_matching(standing.face) + view.unseen_dice
        if not lowest or standing.quantity > possible:
            return Challenge(seat)
    return PlaceBid(seat, lowest[_best_face(view, list(lowest))])


def always_calls(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    if view.standing_bid is not None or not lowest:
        return Challenge(seat)
    return PlaceBid(seat, lowest[_best_face(view, list(lowest))])


def heavy_bluffer(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    standing = view.standing_bid
    if standing is not None and (
        not lowest or bid_true_chance(view, standing) < BLUFFER_CALLS_BELOW
    ):
        return Challenge(seat)
    if rng.random() < BLUFF_SHARE:
        face = rng.choice(sorted(lowest))
        bid = Bid(min(lowest[face].quantity + rng.choice((1, 2)), view.dice_in_play), face)
        return PlaceBid(seat, bid if view.is_legal_bid(bid) else lowest[face])
    return PlaceBid(seat, lowest[_best_face(view, list(lowest))])


def misleading(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    standing = view.standing_bid
    if standing is not None and (not lowest or bid_true_chance(view, standing) < CHALLENGE_BELOW):
        return Challenge(seat)
    # The face it holds fewest of (ties: the lower face), at the smallest legal step.
    face = min(lowest, key=lambda f: (view.own_matching(f), f))
    return PlaceBid(seat, lowest[face])


STYLES = {
    "never-calls": never_calls,
    "always-calls": always_calls,
    "heavy-bluffer": heavy_bluffer,
    "misleading": misleading,
}
