"""After a lesson, Enter goes on to the first lesson not done, also after redoing a done
lesson from the list (first-time user report: redoing lesson 1 opened lesson 2, done)."""

from __future__ import annotations

from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules
from p2pdice.ui.learn import enter, list_key, opening
from tests.learn.test_every_lesson_is_reached_and_completed_by_a_scripted_player_on_the_lesson_screen import (
    play_lesson,
)


def test_redoing_lesson_one_goes_on_to_the_first_lesson_not_done() -> None:
    lessons = course(Rules())
    keys = tuple(lesson.key for lesson in lessons)
    ls = opening(Rules(), lessons, Progress(done=keys[:3]))
    assert ls.index == 3
    ls.listing = True
    list_key(ls, "1")
    assert ls.index == 0
    play_lesson(ls, [])  # answers the question, then Enter goes on
    assert ls.index == 3 and not ls.listing and ls.said == "Next lesson."


def test_finishing_the_last_lesson_left_opens_the_list() -> None:
    lessons = course(Rules())
    keys = tuple(lesson.key for lesson in lessons)
    ls = opening(Rules(), lessons, Progress(done=keys[1:]))
    assert ls.index == 0
    saves: list[Progress] = []
    play_lesson(ls, saves)
    assert ls.listing and ls.complete and set(saves[-1].done) == set(keys)
    enter(ls, saves.append)  # Enter on the list does nothing
    assert ls.listing
