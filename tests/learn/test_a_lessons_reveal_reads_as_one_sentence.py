"""A lesson's reveal story and counting question read as plain sentences: "you" in lower case
after the colon (not "…: You lose a die."), "There is 1" for a single die, and the question says
every player's ones count where ones are wild, not only the learner's."""

from __future__ import annotations

from p2pdice.core.bids import Bid
from p2pdice.core.lessons import Lesson, Move, course, lesson_rules, play, start
from p2pdice.core.rules import Rules

RULES = lesson_rules(Rules())


def test_you_are_lower_case_mid_sentence_and_everyones_ones_count() -> None:
    raising = next(lesson for lesson in course(RULES) if lesson.key == "raising")
    finish = play(raising, RULES, start(raising, RULES), Move("liar"))
    assert ": you lose a die." in finish.outcome and "You lose" not in finish.outcome
    assert "(everyone's ones count too: they are wild)" in finish.question


def test_a_count_of_one_is_singular() -> None:
    hands = ((2, 2, 3, 4, 5), (2, 3, 3, 4, 5), (6, 2, 3, 4, 5))  # one 6, no ones
    lesson = Lesson("one", "one six", "Bid 2 x 6s.", hands)
    finish = play(lesson, RULES, start(lesson, RULES), Move("bid", Bid(2, 6)))
    assert "There is 1 for 2 x 6s: you lose a die." in finish.outcome, finish.outcome
