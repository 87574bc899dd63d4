"""The lessons and the drill in a terminal too small for them (tmux at 40x12) show "Terminal
too small" with the size they need, and no key acts until the window is large enough again
(only q, which leaves): before, the screen was cut (the typed line, the answer's end) and
keys still acted unseen. At 80x24 a lesson keeps its typed line under the longest refusal."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from p2pdice.core.game import legal_bids_of
from p2pdice.core.lessons import YOU, Move, Progress, course, judge
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.ui.learn import LearnState, opening, render
from p2pdice.ui.screens import plain
from tests.support.tmux import Tmux

needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def resize(t: Tmux, columns: int, rows: int) -> None:
    t.run("resize-window", "-x", str(columns), "-y", str(rows))


def too_small(t: Tmux, needs: str) -> str:
    screen = t.wait_for(lambda s: "Terminal too small" in s, 10, "the too-small screen")
    assert "40x12" in "".join(screen.split()) and needs in "".join(screen.split()), screen
    assert "q leave" in screen.rstrip().splitlines()[-1], screen
    return screen


@needs_tmux
def test_the_lessons_wait_for_a_terminal_large_enough_and_q_still_leaves(tmp_path: Path) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        t.wait_for(lambda s: "lesson 1 of" in s and "Typed: _" in s, 30, "the first lesson")
        resize(t, 40, 12)
        too_small(t, "80x24")
        t.keys("4", "Space", "5", "Enter", "Tab", "d")  # a bid, the list, the drill: none acts
        resize(t, 80, 24)
        screen = t.wait_for(lambda s: "lesson 1 of" in s, 10, "the lesson again")
        assert "Typed: _" in screen and "Judgement drill" not in screen, screen
        resize(t, 40, 12)
        too_small(t, "80x24")
        t.keys("q")
        t.wait_for(lambda s: "Terminal too small" not in s, 10, "the course to close")
    finally:
        t.kill()
    assert not (tmp_path / "drill.json").exists()  # `d` did not open the drill
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


@needs_tmux
def test_the_drill_waits_for_a_terminal_large_enough(tmp_path: Path) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--drill", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        t.wait_for(lambda s: "Judgement drill" in s and "Typed:" in s, 30, "the drill")
        t.keys("l")
        t.wait_for(lambda s: "Under the cups" in s, 10, "the answer")
        resize(t, 40, 12)
        too_small(t, "80x21")
        t.keys("n")  # the next position, unseen: it must not come
        resize(t, 80, 21)
        screen = t.wait_for(lambda s: "Judgement drill" in s, 10, "the drill again")
        assert "position 1" in screen and "Under the cups" in screen, screen
        assert "Scored as" in screen, screen  # the answer's last line, not cut
        t.keys("q")
        t.wait_for(lambda s: "Judgement drill" not in s, 10, "the drill to close")
    finally:
        t.kill()
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


RULES = [
    Rules(ones=ones, exact_call=True, palifico=palifico)
    for ones in Ones
    for palifico in (Palifico.OFF, Palifico.FIXED)
]


def refused(ls: LearnState) -> list[str]:
    """What the coach says to each move the lesson refuses."""
    state = ls.state
    assert state is not None
    moves = [Move("liar"), Move("exact"), *(Move("bid", b) for b in legal_bids_of(state, YOU))]
    verdicts = (judge(ls.lesson, ls.rules, state, move) for move in moves)
    return sorted({v.text for v in verdicts if not v.accepted})


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_every_lesson_keeps_the_coach_the_refusal_and_the_typed_line_at_80x24(
    rules: Rules,
) -> None:
    lessons = course(rules)
    ls = opening(rules, lessons, Progress())
    for i in range(len(lessons)):
        ls.open(i)
        for said in refused(ls):
            ls.said = said
            screen = plain(render(ls, 80, 24))
            lines = screen.splitlines()
            assert len(lines) <= 24, screen
            words = " ".join(screen.split())
            assert " ".join(said.split()) in words and "Coach:" in words, screen
            assert lines[-2].startswith(" Typed: _") and "q leave" in lines[-1], screen
