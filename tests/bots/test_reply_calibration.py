"""The shift on the logit of modelled call chances, fitted to how the calls bore them out."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.bots.reply_calibration import (
    SHIFT_LIMIT,
    SHIFT_STEP,
    SHIFT_WIDTH,
    STRANGER_SHIFT,
    Check,
    fitted_shift,
    modelled_call,
    shifted,
)


def _checks(true_shift: float, count: int, seed: int) -> tuple[Check, ...]:
    """`count` calls by a seat whose chance of calling is the model's moved by `true_shift`."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        doubt = rng.uniform(0.02, 0.98)
        out.append((((1.0, doubt, 0.0),), rng.random() < shifted(doubt, true_shift)))
    return tuple(out)


def test_a_stranger_stands_at_the_prior() -> None:
    assert fitted_shift(()) == STRANGER_SHIFT


def test_no_shift_leaves_a_chance_as_it_is() -> None:
    assert shifted(0.3, 0.0) == 0.3


@given(st.floats(0.01, 0.99), st.floats(-3.0, 3.0), st.floats(-3.0, 3.0))
def test_a_shift_moves_the_logit_by_its_size(chance: float, a: float, b: float) -> None:
    logit = math.log(chance / (1 - chance))
    moved = shifted(chance, a)
    assert math.log(moved / (1 - moved)) == pytest.approx(logit + a, abs=1e-6)
    if a < b:
        assert shifted(chance, a) <= shifted(chance, b)


def test_a_cornered_call_comes_on_top_of_doubt_and_is_not_shifted() -> None:
    # Half the time it doubts the bid; of the rest, a quarter it has no raise it believes.
    assert modelled_call(((1.0, 0.5, 0.25),), 0.0) == pytest.approx(0.5 + 0.5 * 0.25)
    assert modelled_call(((1.0, 1e-12, 0.25),), -3.0) == pytest.approx(0.25)


def test_models_are_mixed_by_their_weights() -> None:
    terms = ((3.0, 0.2, 0.0), (1.0, 0.6, 0.0))
    assert modelled_call(terms, 0.0) == pytest.approx((3 * 0.2 + 0.6) / 4)


@pytest.mark.parametrize("true_shift", [-2.0, -0.7, 0.0, 1.0])
def test_enough_calls_recover_how_far_the_model_is_off(true_shift: float) -> None:
    fitted = fitted_shift(_checks(true_shift, 600, seed=7))
    assert fitted == pytest.approx(true_shift, abs=0.3)


def test_a_few_checks_move_the_shift_only_a_little_from_the_prior() -> None:
    # Three raises the model gave even odds of a call, all called: evidence, not proof.
    checks = tuple((((1.0, 0.5, 0.0),), True) for _ in range(3))
    fitted = fitted_shift(checks)
    assert STRANGER_SHIFT < fitted < STRANGER_SHIFT + 2 * SHIFT_WIDTH


def test_a_seat_that_never_calls_is_shifted_far_below_the_prior() -> None:
    checks = tuple((((1.0, 0.4, 0.0),), False) for _ in range(20))
    assert fitted_shift(checks) < STRANGER_SHIFT - 1.0


def test_the_shift_stays_within_its_limit() -> None:
    checks = tuple((((1.0, 0.001, 0.0),), True) for _ in range(200))
    assert fitted_shift(checks) == pytest.approx(SHIFT_LIMIT)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(0.01, 0.99), st.floats(0.0, 0.5), st.booleans()),
        min_size=1,
        max_size=12,
    )
)
def test_the_two_pass_search_finds_the_best_shift_on_the_grid(
    drawn: list[tuple[float, float, bool]],
) -> None:
    checks = tuple((((1.0, doubt, cornered),), called) for doubt, cornered, called in drawn)

    def score(shift: float) -> float:
        total = -0.5 * ((shift - STRANGER_SHIFT) / SHIFT_WIDTH) ** 2
        for terms, called in checks:
            p = min(1 - 1e-9, max(1e-9, modelled_call(terms, shift)))
            total += math.log(p if called else 1 - p)
        return total

    steps = round(SHIFT_LIMIT / SHIFT_STEP)
    best = max(score(i * SHIFT_STEP) for i in range(-steps, steps + 1))
    assert score(fitted_shift(checks)) == pytest.approx(best, abs=1e-9)
