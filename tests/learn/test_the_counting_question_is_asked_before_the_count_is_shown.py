"""The counting question comes before the count: the reveal shows the open cups and asks, and
only a right answer shows how many there were and who lost a die (first-time user report)."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.ui.learn import act, enter, opening, render
from p2pdice.ui.screens import plain
from tests.learn.test_every_lesson_is_reached_and_completed_by_a_scripted_player_on_the_lesson_screen import (
    accepted_move,
    words,
)

RULES = [
    Rules(ones=ones, exact_call=True, palifico=pal)
    for ones, pal in itertools.product(Ones, (Palifico.OFF, Palifico.FIXED))
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_no_lesson_shows_the_count_until_the_question_is_answered(rules: Rules) -> None:
    lessons = course(rules)
    for i in range(len(lessons)):
        ls = opening(rules, lessons, Progress())
        ls.open(i)
        move = accepted_move(ls)
        if move.kind == "bid":
            assert move.bid is not None
            ls.typed = f"{move.bid.quantity} {move.bid.face}"
            enter(ls, lambda p: None)
        else:
            act(ls, move)
        finish = ls.finish
        assert finish is not None
        asked = words(plain(render(ls, 100, 32)))
        assert finish.question in asked
        assert f"There are {finish.answer} for" not in asked, (ls.lesson.key, asked)
        assert "loses" not in asked and "win a die back" not in asked
        ls.typed = str(finish.answer)
        enter(ls, lambda p: None)
        answered = words(plain(render(ls, 100, 32)))
        assert f"Right: {finish.answer}. There are {finish.answer} for" in answered
        assert finish.outcome in answered and ls.index == i  # still on this lesson's reveal
