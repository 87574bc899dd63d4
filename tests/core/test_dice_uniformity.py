"""Derived dice are uniform and depend on everything they should (SPEC.md 5.5)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter

from p2pdice.core.fairness import beacon, derive_dice

MILLION = 1_000_000


def chi_square_p_value_5dof(statistic: float) -> float:
    """Upper tail of the chi-square distribution with 5 degrees of freedom.

    Q(5/2, x/2) from the half-integer recurrence of the regularised gamma function:
    Q(1/2, y) = erfc(sqrt y), Q(s + 1, y) = Q(s, y) + y^s e^-y / Gamma(s + 1).
    """
    y = statistic / 2
    return math.erfc(math.sqrt(y)) + math.exp(-y) * (
        y**0.5 / math.gamma(1.5) + y**1.5 / math.gamma(2.5)
    )


def test_p_value_function_matches_known_quantiles() -> None:
    # Chi-square(5): the 95th percentile is 11.0705, the 99.9th is 20.515.
    assert abs(chi_square_p_value_5dof(11.0705) - 0.05) < 1e-4
    assert abs(chi_square_p_value_5dof(20.515) - 0.001) < 1e-5


def test_a_million_derived_dice_are_uniform() -> None:
    counts: Counter[int] = Counter()
    table = hashlib.sha256(b"uniformity table").digest()
    r = hashlib.sha256(b"uniformity R").digest()
    produced = 0
    seat = 0
    while produced < MILLION:
        seed = hashlib.sha256(seat.to_bytes(8, "big")).digest()
        hand = derive_dice(
            seed, table_id=table, round_=1, attempt=1, seat=seat % 6, beacon_r=r, count=30
        )
        counts.update(hand)
        produced += len(hand)
        seat += 1
    expected = produced / 6
    statistic = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    p_value = chi_square_p_value_5dof(statistic)
    print(f"chi-square over {produced} dice: {statistic:.3f}, p = {p_value:.4f}")
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    assert p_value > 0.001


def test_every_input_of_the_derivation_changes_the_hand() -> None:
    base = {
        "table_id": b"\x01" * 32,
        "round_": 3,
        "attempt": 1,
        "seat": 2,
        "beacon_r": b"\x02" * 32,
        "count": 40,
    }
    seed = b"\x03" * 32
    reference = derive_dice(seed, **base)
    variants = {
        "seed": derive_dice(b"\x04" * 32, **base),
        "R": derive_dice(seed, **{**base, "beacon_r": b"\x05" * 32}),
        "table": derive_dice(seed, **{**base, "table_id": b"\x06" * 32}),
        "round": derive_dice(seed, **{**base, "round_": 4}),
        "attempt": derive_dice(seed, **{**base, "attempt": 2}),
        "seat": derive_dice(seed, **{**base, "seat": 3}),
    }
    for name, hand in variants.items():
        assert hand != reference, f"the hand ignores the {name}"


def test_changing_any_one_contribution_changes_r_and_so_every_hand() -> None:
    table, commit_set = b"\x07" * 32, b"\x08" * 32
    contributions = [bytes([i]) * 32 for i in range(1, 5)]
    r = beacon(table, 1, 1, commit_set, contributions)
    seeds = [bytes([40 + i]) * 32 for i in range(4)]
    hands = [
        derive_dice(s, table_id=table, round_=1, attempt=1, seat=i, beacon_r=r, count=20)
        for i, s in enumerate(seeds)
    ]
    for changed in range(4):
        altered = list(contributions)
        altered[changed] = b"\xff" * 32
        r2 = beacon(table, 1, 1, commit_set, altered)
        assert r2 != r
        for seat, seed in enumerate(seeds):
            hand = derive_dice(
                seed, table_id=table, round_=1, attempt=1, seat=seat, beacon_r=r2, count=20
            )
            assert hand != hands[seat]
