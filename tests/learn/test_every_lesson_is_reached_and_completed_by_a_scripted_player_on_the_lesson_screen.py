"""A scripted player goes through the whole course on the lesson screen's own handlers (what
its keys call): every lesson offered on a rules mix is reached, shown, played and answered,
each is saved as it is finished, and the end opens the lesson list with the graded match."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.core.game import legal_bids_of
from p2pdice.core.lessons import YOU, Move, Progress, course, judge
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.ui.learn import LearnState, act, enter, list_key, opening, render
from p2pdice.ui.screens import plain

RULES = [
    Rules(ones=ones, exact_call=exact, palifico=pal)
    for ones, exact, pal in itertools.product(Ones, (False, True), (Palifico.OFF, Palifico.FIXED))
]


def words(screen: str) -> str:
    """The screen's text with its wrapping undone."""
    return " ".join(screen.split())


def accepted_move(ls: LearnState) -> Move:
    state = ls.state
    assert state is not None
    bids = legal_bids_of(state, YOU)
    for move in (Move("liar"), Move("exact"), *(Move("bid", b) for b in bids)):
        if judge(ls.lesson, ls.rules, state, move).accepted:
            return move
    raise AssertionError(f"{ls.lesson.key}: no accepted move")


def play_lesson(ls: LearnState, saves: list[Progress]) -> None:
    move = accepted_move(ls)
    if move.kind == "bid":
        assert move.bid is not None
        ls.typed = f"{move.bid.quantity} {move.bid.face}"  # as typed: digits, space, digits
        enter(ls, saves.append)
    else:
        act(ls, move)
    assert ls.finish is not None, ls.said
    assert ls.finish.question in words(plain(render(ls)))
    ls.typed = str(ls.finish.result.count)
    enter(ls, saves.append)
    assert ls.answered and ls.finish.outcome in words(plain(render(ls))), ls.said
    enter(ls, saves.append)  # on to the next lesson not done, or the list


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_a_scripted_player_reaches_and_completes_every_lesson(rules: Rules) -> None:
    lessons = course(rules)
    ls = opening(rules, lessons, Progress())
    saves: list[Progress] = []
    for i, lesson in enumerate(lessons):
        assert ls.index == i and not ls.listing
        screen = plain(render(ls))
        assert f"lesson {i + 1} of {len(lessons)}" in screen and "Coach:" in screen
        play_lesson(ls, saves)
        assert saves[-1].done == tuple(lesson.key for lesson in lessons[: i + 1])
    assert ls.listing and ls.complete and ls.match_open
    assert "press t to play" in plain(render(ls))


@pytest.mark.parametrize("rules", [Rules(), RULES[-1]], ids=lambda r: r.summary())
def test_every_lesson_is_reachable_from_the_list_in_any_order(rules: Rules) -> None:
    lessons = course(rules)
    ls = opening(rules, lessons, Progress())
    saves: list[Progress] = []
    for i in reversed(range(len(lessons))):
        ls.listing = True
        list_key(ls, str(i + 1))
        assert ls.index == i and f"lesson {i + 1} of" in plain(render(ls))
        play_lesson(ls, saves)
    assert set(saves[-1].done) == {lesson.key for lesson in lessons}
