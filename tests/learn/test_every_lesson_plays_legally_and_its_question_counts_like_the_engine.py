"""Every lesson, under every rules mix it is offered on, starts on the learner's turn on the
real engine, has an accepted move, and asks a question whose answer is the engine's count."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.game import legal_bids_of
from p2pdice.core.lessons import COURSE, YOU, Move, check_answer, course, judge, play, start
from p2pdice.core.rules import Ones, Palifico, Rules

RULES = [
    Rules(ones=ones, exact_call=exact, palifico=pal)
    for ones, exact, pal in itertools.product(Ones, (False, True), Palifico)
]


def moves_of(lesson_state) -> list[Move]:
    state = lesson_state
    bids = legal_bids_of(state, YOU)
    return [Move("liar"), Move("exact"), *(Move("bid", b) for b in bids)]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_every_offered_lesson_can_be_completed_and_counts_as_the_engine_does(rules: Rules) -> None:
    for lesson in course(rules):
        state = start(lesson, rules)
        accepted = [m for m in moves_of(state) if judge(lesson, rules, state, m).accepted]
        assert accepted, f"{lesson.key}: no move is accepted"
        for move in accepted:
            finish = play(lesson, rules, state, move)
            assert finish.answer == finish.result.count
            assert check_answer(lesson, rules, finish, finish.answer).accepted
            assert not check_answer(lesson, rules, finish, finish.answer + 1).accepted


def test_aces_palifico_and_exact_lessons_appear_only_on_tables_that_use_them() -> None:
    plain = {lesson.key for lesson in course(Rules(ones=Ones.NATURAL))}
    perudo = {
        lesson.key
        for lesson in course(Rules(ones=Ones.ACES, exact_call=True, palifico=Palifico.FIXED))
    }
    assert {"aces-on", "aces-off", "exact", "palifico", "wild"}.isdisjoint(plain)
    assert perudo == {lesson.key for lesson in COURSE}


def test_a_refused_move_is_explained_in_words() -> None:
    rules = Rules(ones=Ones.ACES)
    lesson = next(lesson for lesson in COURSE if lesson.key == "aces-on")
    state = start(lesson, rules)
    verdict = judge(lesson, rules, state, Move("bid", Bid(2, 1)))
    assert not verdict.accepted
    assert "half of 6, rounded up: 3 x 1s" in verdict.text
    off = next(lesson for lesson in COURSE if lesson.key == "aces-off")
    verdict = judge(off, rules, start(off, rules), Move("bid", Bid(6, 5)))
    assert "twice 3 plus one: 7 x 5s" in verdict.text


def test_a_poor_but_legal_call_is_refused_with_the_estimate() -> None:
    rules = Rules()
    lesson = next(lesson for lesson in COURSE if lesson.key == "estimate")
    state = start(lesson, rules)
    verdict = judge(lesson, rules, state, Move("bid", Bid(9, 3)))
    assert not verdict.accepted
    assert "You see 3 that count for 3s" in verdict.text
    assert "of the 10 unseen dice expect 3.3" in verdict.text
