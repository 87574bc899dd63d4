"""Probabilities a seat can compute from what it sees: binomial tails over the unseen dice
(`at_least` and `face_probability` are core/chance.py's, here for the bots that import them
from this module)."""

from __future__ import annotations

from functools import lru_cache
from math import comb

from ..core.bids import Bid
from ..core.chance import at_least, face_probability
from ..core.view import SeatView


def unsupported(matching: int, dice: int, face: int, *, wild_ones: bool) -> bool:
    """A hand of `dice` dice with `matching` of them counting toward `face` holds no more of
    it than an average hand of its size: a bid on `face` from it is a bluff (hard's decoys,
    and the bluff shares its calibration is read from)."""
    return matching <= dice * face_probability(face, wild_ones=wild_ones)


@lru_cache(maxsize=65536)
def exactly(needed: int, unseen: int, p: float) -> float:
    """P(X == needed) for X ~ Binomial(unseen, p)."""
    if needed < 0 or needed > unseen:
        return 0.0
    return comb(unseen, needed) * p**needed * (1 - p) ** (unseen - needed)


def bid_true_chance(view: SeatView, bid: Bid) -> float:
    """Chance that `bid` holds, given this seat's own dice."""
    p = face_probability(bid.face, wild_ones=view.wild_ones)
    return at_least(bid.quantity - view.own_matching(bid.face), view.unseen_dice, p)


def exact_chance(view: SeatView, bid: Bid) -> float:
    """Chance that exactly `bid.quantity` dice match, given this seat's own dice."""
    p = face_probability(bid.face, wild_ones=view.wild_ones)
    return exactly(bid.quantity - view.own_matching(bid.face), view.unseen_dice, p)
