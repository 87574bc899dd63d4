"""The graded match: locked (with why) until every lesson of the course on these rules is
done; graded by the place the learner finished in, with their calls and called bids judged
by each round's count; its results kept in learning.json and shown on the lesson list."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.graded import GRADED_CPU
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import decide_safely, roll
from p2pdice.cli.learn import graded_list_lines, load_progress, progress_path, save_progress
from p2pdice.core.game import (
    Call,
    Deal,
    GameState,
    Phase,
    Reveal,
    StartNextRound,
    apply,
    new_game,
)
from p2pdice.core.grading import (
    GRADED_SEATS,
    GRADES,
    GradedResult,
    grade_match,
    grade_of,
    graded_rules,
    locked_reason,
    setting_of,
    unlocked,
)
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Ones, Palifico, Rules, TableKind
from p2pdice.ui.learn import GRADED_FROM_LEARN, list_key, opening, render
from p2pdice.ui.screens import plain

PERUDO = Rules(ones=Ones.ACES, exact_call=True, palifico=Palifico.FIXED)


def keys_of(rules: Rules) -> tuple[str, ...]:
    return tuple(lesson.key for lesson in course(rules))


@pytest.mark.parametrize("rules", [Rules(), PERUDO], ids=lambda r: r.summary())
def test_the_match_opens_only_when_every_lesson_of_the_course_is_done(rules: Rules) -> None:
    keys = keys_of(rules)
    for n in range(len(keys)):
        done = keys[:n]
        assert not unlocked(done, keys)
        assert locked_reason(done, keys) == (
            f"locked: finish every lesson first ({n} of {len(keys)} done)"
        )
    assert unlocked(keys, keys) and locked_reason(keys, keys) == ""
    # The same lessons done on plain rules leave the longer course's match locked.
    if len(keys) > len(keys_of(Rules())):
        assert not unlocked(keys_of(Rules()), keys)


def test_the_match_is_a_practice_table_of_the_stated_players_on_the_course_rules() -> None:
    rules = graded_rules(PERUDO.with_options(first_starter="seat1"))
    assert rules.kind == TableKind.PRACTICE and not rules.undo and rules.time_bank == 0
    assert rules.seats == GRADED_SEATS == 1 + len(GRADED_CPU)
    assert (rules.ones, rules.exact_call, rules.palifico) == (
        PERUDO.ones,
        PERUDO.exact_call,
        PERUDO.palifico,
    )


def test_each_place_has_its_grade_and_a_place_off_the_table_is_refused() -> None:
    seen = [grade_of(place, GRADED_SEATS) for place in range(1, GRADED_SEATS + 1)]
    assert seen == list(GRADES) and len(set(seen)) == GRADED_SEATS
    for wrong in (0, GRADED_SEATS + 1):
        with pytest.raises(ValueError):
            grade_of(wrong, GRADED_SEATS)


def bot_game(rules: Rules, seed: int) -> GameState:
    """A whole game of bots on the engine, keeping its round results."""
    rng = random.Random(seed)
    bots = [load_bot(name) for name in ("medium", *GRADED_CPU)]
    state = new_game(rules)
    while state.phase != Phase.GAME_OVER:
        hands = roll(rng, state.dice)
        state = apply(state, Deal(rng.choice(state.survivors) if state.starter is None else None))
        while state.phase == Phase.BIDDING:
            mover = state.turn
            assert mover is not None
            action, _ = decide_safely(bots[mover], state, mover, hands[mover], rng)
            state = apply(state, action)
        state = apply(state, Reveal(tuple(h if h else () for h in hands)))
        if state.phase == Phase.ROUND_OVER:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    return state


@pytest.mark.parametrize("seed", range(4))
def test_a_grade_is_the_place_and_the_calls_are_judged_by_the_count(seed: int) -> None:
    rules = graded_rules(PERUDO.with_options(starting_dice=2))
    state = bot_game(rules, seed)
    places = [state.ranking.index(seat) + 1 for seat in range(rules.seats)]
    calls_seen = 0
    for seat in range(rules.seats):
        got = grade_match(places, seat, state.results, "2026-12-03")
        assert (got.place, got.seats, got.grade) == (places[seat], 4, GRADES[places[seat] - 1])
        mine = [r for r in state.results if r.caller == seat and r.bid is not None]
        right = sum(
            (r.count or 0) < r.bid.quantity
            if r.call == Call.CHALLENGE
            else (r.count or 0) == r.bid.quantity
            for r in mine
            if r.bid is not None
        )
        assert (got.calls, got.calls_right) == (len(mine), right)
        called = [
            r
            for r in state.results
            if r.bidder == seat and r.caller not in (None, seat) and r.call == Call.CHALLENGE
        ]
        held = sum(r.bid is not None and (r.count or 0) >= r.bid.quantity for r in called)
        assert (got.bids_called, got.bids_held) == (len(called), held)
        calls_seen += got.calls
    assert calls_seen == sum(1 for r in state.results if r.caller is not None)


def test_results_are_saved_beside_the_lessons_and_a_damaged_one_is_dropped(tmp_path) -> None:
    first = GradedResult("C", 3, 4, "2026-12-01", calls=2, calls_right=1)
    second = GradedResult("A", 1, 4, "2026-12-02", calls=3, calls_right=3, bids_called=1)
    save_progress(tmp_path, Progress(done=("cup",)).with_graded(first).with_graded(second))
    again = load_progress(tmp_path)
    assert again.graded == (first, second) and again.done == ("cup",)
    assert again.finish("raise").graded == (first, second)  # a lesson keeps the results
    text = progress_path(tmp_path).read_text().replace('"grade": "C"', '"grade": "Z"')
    progress_path(tmp_path).write_text(text)
    assert load_progress(tmp_path).graded == (second,)


def test_the_list_shows_the_match_locked_then_open_with_its_last_and_best_results() -> None:
    keys = keys_of(Rules())
    locked = opening(Rules(), course(Rules()), Progress(done=keys[:2]))
    assert not locked.listing  # a lesson is left: the course opens on it
    locked.listing = True
    screen = plain(render(locked))
    assert "t. Test your judgement: a graded match vs medium, medium, hard" in screen
    assert "locked: finish every lesson first (2 of 5 done)" in screen
    assert list_key(locked, "t") is None and "The graded match is locked" in locked.said
    assert list_key(locked, "3") is None and locked.index == 2 and not locked.listing

    here = setting_of(Rules())
    early = GradedResult("B", 2, 4, "2026-12-01", calls=2, calls_right=1, setting=here)
    late = GradedResult("D", 4, 4, "2026-12-02", setting=here)
    done = Progress(done=keys).with_graded(early).with_graded(late)
    ls = opening(Rules(), course(Rules()), done)
    assert ls.listing and ls.complete
    lines = plain(render(ls, 80, 24)).splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80
    screen = "\n".join(lines)
    assert "Course complete" in screen and "press t to play" in screen
    assert f"last: {late.line()}" in screen and f"best: {early.line()}" in screen
    assert list_key(ls, "t") == GRADED_FROM_LEARN
    listed = "\n".join(graded_list_lines(done, keys, Rules()))
    assert f"last: {late.line()}" in listed and f"best: {early.line()}" in listed
