"""In a real terminal at 80x24: with every lesson done (the progress file written as the
course writes it), `p2pdice learn` opens on the lesson list with the graded match open; `t`
plays it on the practice table, and when it is left the list shows its grade."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest

from p2pdice.cli.learn import load_progress, save_progress
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules
from tests.support.tmux import Tmux, play_step

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_the_graded_match_is_played_from_the_list_and_its_grade_is_listed(tmp_path: Path) -> None:
    save_progress(tmp_path, Progress(done=tuple(lesson.key for lesson in course(Rules()))))
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--home", str(tmp_path),
             "--starting-dice", "1", "--cpu-think", "0"],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        screen = t.wait_for(lambda s: "Course complete" in s, 30, "the lesson list")
        assert "t. Test your judgement" in screen and "press t to play" in screen
        assert "no graded match played yet" in screen
        t.keys("t")
        # The CPU players move at once: round 1 may be over before the learner's first turn.
        t.wait_for(lambda s: "Course complete" not in s and "Enter" in s, 60, "the match")
        deadline = time.monotonic() + 120
        named = False
        while "Final ranking" not in (screen := t.screen()):
            assert time.monotonic() < deadline, screen
            named |= "Graded match" in screen
            play_step(t)
            time.sleep(0.3)
        assert named, "the table screen names the graded match"
        t.keys("q")
        screen = t.wait_for(lambda s: "last: " in s, 60, "the list with the grade")
        assert "Graded match: " in screen and " of 4 on " in screen
        t.keys("q")
        t.wait_for(lambda s: "Course complete" not in s, 10, "the app to close")
    finally:
        t.kill()
    [result] = load_progress(tmp_path).graded
    assert f"last: {result.line()}"[:70] in screen
    saved = json.loads((tmp_path / "learning.json").read_text())
    assert saved["graded"][0]["place"] == result.place
    assert not (tmp_path / "tables").exists() and not (tmp_path / "hosted").exists()


def test_a_locked_match_says_why_and_tab_goes_back_to_the_lesson(tmp_path: Path) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        screen = t.wait_for(lambda s: "lesson 1 of" in s, 30, "the first lesson")
        assert "Tab list" in screen
        t.keys("Tab")
        screen = t.wait_for(lambda s: "t. Test your judgement" in s, 10, "the lesson list")
        assert "locked: finish every lesson first (0 of 5 done)" in screen
        t.keys("t")
        t.wait_for(lambda s: "The graded match is locked" in s, 10, "why it is locked")
        t.keys("Tab")
        t.wait_for(lambda s: "lesson 1 of" in s, 10, "the lesson again")
        t.keys("q")
        t.wait_for(lambda s: "lesson 1 of" not in s, 10, "the app to close")
    finally:
        t.kill()
    assert not (tmp_path / "learning").exists()
