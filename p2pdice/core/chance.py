"""The chances every player computes from the dice they see: one unseen die counting toward a
face, and binomial tails over the unseen dice (the CPU players, the odds hint and the course
all use these)."""

from __future__ import annotations

from functools import lru_cache
from math import comb


def face_probability(face: int, *, wild_ones: bool) -> float:
    """Chance that one unseen die counts toward a bid on `face`."""
    return 1 / 3 if wild_ones and face != 1 else 1 / 6


@lru_cache(maxsize=65536)
def at_least(needed: int, unseen: int, p: float) -> float:
    """P(X >= needed) for X ~ Binomial(unseen, p)."""
    if needed <= 0:
        return 1.0
    if needed > unseen:
        return 0.0
    return sum(comb(unseen, k) * p**k * (1 - p) ** (unseen - k) for k in range(needed, unseen + 1))
