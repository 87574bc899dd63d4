"""`p2pdice learn` in a real terminal at 80x24: the first lesson is completed with the keys
the coach names, each coach line is checked, and progress is saved apart from matches."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest

from tests.support.tmux import Tmux

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


def test_the_first_lesson_is_completed_using_only_what_the_screen_says(tmp_path: Path) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        screen = t.wait_for(lambda s: "Open with two 3s" in s, 30, "first coach line")
        assert "type 2 3 and press" in screen and "lesson 1 of" in screen
        t.keys("l")  # a call before any bid: explained, not just refused
        t.wait_for(lambda s: "nothing to call" in s, 10, "why Liar is refused")
        t.keys("2", "Space", "3", "Enter")
        screen = t.wait_for(lambda s: "How many 3s count here" in s, 10, "counting question")
        assert "Ada calls Liar on your 2 x 3s" in screen
        assert "There are" not in screen  # the count comes after the question, not above it
        t.keys("9", "Enter")  # a miscount: shown cup by cup
        screen = t.wait_for(lambda s: "count each cup" in s, 10, "the count explained")
        explained = re.search(r"count each cup: .*?, so (\d+)\.", " ".join(screen.split()))
        assert explained is not None
        count = explained.group(1)
        t.keys(*count, "Enter")
        screen = t.wait_for(lambda s: f"Right: {count}" in s, 10, "the outcome")
        assert f"There are {count} for 2 x 3s" in " ".join(screen.split())
        t.keys("Enter")
        t.wait_for(lambda s: "lesson 2 of" in s, 10, "the next lesson")
        t.keys("q")
        t.wait_for(lambda s: "lesson 2 of" not in s, 10, "the app to close")
    finally:
        t.kill()
    saved = json.loads((tmp_path / "learning.json").read_text())
    assert saved["done"] == ["cup"]
    assert not (tmp_path / "tables").exists() and not (tmp_path / "hosted").exists()
