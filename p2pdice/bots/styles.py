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

The stronger gauntlet adds two deceptive styles here (and two readers in bots/readers.py):

- `weakest-face`: calls like medium, but bids its *weakest* face (fewest of its own dice
  against what an average hand holds of it) whenever such a bid is still at least 30% likely
  from its own dice; it opens there at the highest quantity that is. Unlike `misleading` its
  bluffs stay plausible, so a reader who believes them is led into raising a face that is
  short, then called.
- `style-switcher`: plays exactly like medium (honest) for three rounds, then like
  `weakest-face` for three, and so on. Breaks "a seat bids the way it bid in earlier rounds":
  a read learnt from its honest rounds is wrong in its deceptive ones, and the other way.
"""

from __future__ import annotations

import random

from ..core.bids import Bid
from ..core.game import Action, Challenge, ExactCall, PlaceBid
from ..core.rules import ExactReward
from ..core.view import SeatView
from .medium import CHALLENGE_BELOW, EXACT_AT_LEAST, medium
from .odds import bid_true_chance, exact_chance, face_probability
from .readers import crediting_reader, sampler

BLUFF_SHARE = 0.5  #: heavy-bluffer: share of its bids made on a random face
BLUFFER_CALLS_BELOW = 0.20  #: heavy-bluffer: it calls bids its dice make less likely than this
WEAK_BID_AT_LEAST = 0.30  #: weakest-face: a bid on its weakest face must still be this likely
SWITCH_ROUNDS = 3  #: style-switcher: rounds per block; honest and deceptive blocks alternate


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


def weakest_face(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    lowest = view.lowest_bids_per_face()
    standing = view.standing_bid
    if standing is not None:
        pays = (
            view.my_dice < view.rules.starting_dice
            or view.rules.exact_reward == ExactReward.OTHERS_LOSE
        )
        if view.can_exact and pays and exact_chance(view, standing) >= EXACT_AT_LEAST:
            return ExactCall(seat)
        if not lowest or bid_true_chance(view, standing) < CHALLENGE_BELOW:
            return Challenge(seat)
    options: dict[int, Bid] = {}
    for face, low in lowest.items():
        if standing is None:
            # Opening: the highest quantity still plausible enough, so the bluff carries weight.
            top = low.quantity
            while top < view.dice_in_play and (
                bid_true_chance(view, Bid(top + 1, face)) >= WEAK_BID_AT_LEAST
            ):
                top += 1
            low = Bid(top, face)
        if bid_true_chance(view, low) >= WEAK_BID_AT_LEAST:
            options[face] = low
    if not options:
        return medium(view, rng)
    # Ties between equally weak faces are drawn, so the face named does not follow the hand.
    face = min(options, key=lambda f: (round(_surplus(view, f), 9), rng.random()))
    return PlaceBid(seat, options[face])


def _surplus(view: SeatView, face: int) -> float:
    """Own dice counting toward `face` beyond what an average hand of this size holds."""
    p = face_probability(face, wild_ones=view.wild_ones)
    return view.own_matching(face) - view.my_dice * p


def style_switcher(view: SeatView, rng: random.Random) -> Action:
    honest = (view.round - 1) // SWITCH_ROUNDS % 2 == 0
    return medium(view, rng) if honest else weakest_face(view, rng)


STYLES = {
    "never-calls": never_calls,
    "always-calls": always_calls,
    "heavy-bluffer": heavy_bluffer,
    "misleading": misleading,
    "weakest-face": weakest_face,
    "style-switcher": style_switcher,
    "crediting-reader": crediting_reader,
    "sampler": sampler,
}
