"""The screens of the course printed in docs/learning.md and docs/playing.md are what the
course draws at 80x24 today: a lesson, the lesson list with the match locked, and the list
after a graded match."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.grading import GradedResult, setting_of
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.ui.learn import LearnState, enter, opening, render
from p2pdice.ui.screens import plain

DOCS = Path(__file__).resolve().parents[2] / "docs"
KEYS = tuple(lesson.key for lesson in course(Rules()))


def drawn(ls: LearnState) -> list[str]:
    return [line.rstrip() for line in plain(render(ls, 80, 24)).splitlines() if line.strip()]


def lesson_five_after_a_wrong_bid() -> LearnState:
    rules = Rules(ones=Ones.ACES, exact_call=True, palifico=Palifico.FIXED)
    ls = opening(rules, course(rules), Progress())
    ls.open(4)
    ls.typed = "2 1"
    enter(ls, lambda p: None)
    return ls


def list_with_the_match_locked() -> LearnState:
    ls = opening(Rules(), course(Rules()), Progress(done=KEYS[:3]))
    ls.listing = True
    return ls


def list_after_a_graded_match() -> LearnState:
    here = setting_of(Rules())
    best = GradedResult(
        "A", 1, 4, "2026-12-01", calls=4, calls_right=3, bids_called=2, bids_held=1, setting=here
    )
    last = GradedResult(
        "C", 3, 4, "2026-12-03", calls=3, calls_right=1, bids_called=1, setting=here
    )
    ls = opening(Rules(), course(Rules()), Progress(done=KEYS).with_graded(best).with_graded(last))
    ls.said = f"Graded match: {last.line()}."
    return ls


@pytest.mark.parametrize(
    ("guide", "screen"),
    [
        ("learning.md", lesson_five_after_a_wrong_bid),
        ("learning.md", list_with_the_match_locked),
        ("learning.md", list_after_a_graded_match),
        ("playing.md", list_after_a_graded_match),
    ],
    ids=lambda x: x if isinstance(x, str) else x.__name__,
)
def test_the_guide_shows_the_screen_the_course_draws(guide: str, screen) -> None:
    text = (DOCS / guide).read_text()
    missing = [line for line in drawn(screen()) if line not in text]
    assert missing == [], f"re-capture the screen in docs/{guide}"
