"""Heads-up, hard checks the follower's calls of its raises against the chances its model
gave them at the hand each reveal showed, and moves the model's calls by what it finds."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots import hard as hard_module
from p2pdice.bots.belief import credit_weights, model_priors, reply_model
from p2pdice.bots.reads import UNREAD, opponent_reads
from p2pdice.bots.registry import load_bot
from p2pdice.bots.reply_calibration import STRANGER_SHIFT, modelled_call
from p2pdice.bots.sim import play_game
from p2pdice.core.cache_tokens import rules_token
from p2pdice.core.game import Action
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView

CLASSIC = preset("classic", seats=2)


def _hards_views(opponent: str, seed: int, rules: Rules = CLASSIC) -> list[SeatView]:
    """Every view hard (seat 0) decided from in one real game against `opponent`."""
    hard = load_bot("hard")
    views: list[SeatView] = []

    def watched(view: SeatView, rng: random.Random) -> Action:
        views.append(view)
        return hard(view, rng)

    play_game(rules, [watched, load_bot(opponent)], random.Random(seed))
    return views


def _last_shift(opponent: str, seed: int) -> float:
    view = _hards_views(opponent, seed)[-1]
    return hard_module._call_shift(view, 1)


def test_a_stranger_is_taken_to_call_less_than_the_model_says() -> None:
    first = _hards_views("medium", 1)[0]
    assert first.results == ()
    assert hard_module._call_shift(first, 1) == STRANGER_SHIFT


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seat_that_never_calls_is_read_to_call_less_still(seed: int) -> None:
    assert _last_shift("never-calls", seed) < STRANGER_SHIFT


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_seat_that_calls_everything_is_read_to_call_more_than_a_stranger(seed: int) -> None:
    assert _last_shift("always-calls", seed) > STRANGER_SHIFT + 0.5


def test_at_a_bigger_table_nothing_is_shifted() -> None:
    rules = preset("classic", seats=3)
    hard = load_bot("hard")
    shifts: list[float] = []

    def watched(view: SeatView, rng: random.Random) -> Action:
        if len(view.survivors) > 2:
            seat = view.seat
            assert seat is not None
            shifts.append(hard_module._call_shift(view, hard_module._next_seat(view)))
        return hard(view, rng)

    play_game(rules, [watched, load_bot("medium"), load_bot("medium")], random.Random(3))
    assert shifts and set(shifts) == {0.0}


def test_without_the_check_nothing_is_shifted(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _hards_views("never-calls", 1)[-1]
    monkeypatch.setattr(hard_module, "CHECK_CALLS", False)
    assert hard_module._call_shift(view, 1) == 0.0


def test_each_check_is_the_look_aheads_own_chance_at_the_hand_shown() -> None:
    # The checks rebuild, round by round, what the look-ahead's reply model said of the
    # follower's call of each raise, at the hand the reveal showed: the same chance as
    # belief.reply_model's, per model of the follower, mixed by its weight at that hand.
    views = _hards_views("sampler", 2)
    results = views[-1].results
    compared = 0
    for i, result in enumerate(results):
        if sum(1 for n in result.dice_before if n) != 2 or not result.hands[1]:
            continue
        read = opponent_reads(CLASSIC, results[:i]).get(1, UNREAD)
        cornered = 0.5
        checks = hard_module._round_checks(rules_token(CLASSIC), result, read, cornered, 0, 1)
        ours = [
            k
            for k, placed in enumerate(result.bids)
            if placed.seat == 0
            and (
                (k + 1 < len(result.bids) and result.bids[k + 1].seat == 1)
                or (k + 1 == len(result.bids) and result.caller == 1)
            )
        ]
        assert len(checks) <= len(ours)
        hand = result.hands[1]
        dice = result.dice_before
        index = hard_module._vector_index(dice[1])[tuple(hand.count(f) for f in range(1, 7))]
        for (terms, called), k in zip(checks, ours, strict=False):
            placed = result.bids[k]
            assert called == (k + 1 == len(result.bids))
            round_bids = hard_module._bids_of_round(
                CLASSIC, result.palifico_round, dice, result.bids[:k], 0
            )
            components = credit_weights(
                CLASSIC,
                result.palifico_round,
                sum(dice),
                dice[1],
                round_bids.history(1, read.credit, read.bayes),
                read.calls_below,
                read.sharpness,
                read.trust,
                read.credit,
                read.bayes,
            )
            priors = model_priors(read.credit, read.bayes)
            total = weight = 0.0
            for model, weights in enumerate(components):
                if not priors[model]:
                    continue
                standing = result.bids[k - 1].bid if k else None
                credit = hard_module.perceived(
                    hard_module._shown_after(round_bids.shown, 0, dice[0], standing, placed.bid),
                    1,
                    True,
                )
                call, _, _ = reply_model(
                    CLASSIC,
                    result.palifico_round,
                    sum(dice),
                    dice[1],
                    placed.bid,
                    read.calls_below,
                    read.sharpness,
                    credit if model == 1 else hard_module.NO_CREDIT,
                    float(model == 1),
                    round_bids.seen_after(placed.bid, 1) if model == 2 else None,
                    cornered,
                )
                total += weights[index] * call[index]
                weight += weights[index]
            assert modelled_call(terms, 0.0) == pytest.approx(total / weight)
            compared += 1
    assert compared >= 5
