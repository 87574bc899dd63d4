"""In a real terminal (tmux, 80x24): the lobby's practice form has a level field per CPU seat,
scrolled into view as the cursor goes down; the levels chosen there are the levels the CPUs
play at, and they sit after you, in the form's order."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import tmux
from tests.support.procs import p2pdice

pytestmark = [
    pytest.mark.usefixtures("private_network"),  # the lobby browses the network
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def test_the_practice_form_seats_each_cpu_at_the_level_chosen_for_it(tmp_path: Path) -> None:
    t = tmux.Tmux()
    try:
        t.start(["env", f"P2PDICE_HOME={tmp_path}", *p2pdice()], stderr=tmp_path / "err.txt")
        t.wait_for(lambda s: "p2pdice lobby" in s, 30, "the lobby")
        t.keys("p")
        t.wait_for(lambda s: "Practice against CPU players" in s, 10, "the practice form")
        for _ in range(25):  # to the last field, whatever comes before it: CPU 3's level
            t.keys("Down")
        screen = t.wait_for(lambda s: "> CPU 3" in s or "▶ CPU 3" in s, 10, "CPU 3's field")
        assert "more above" in screen  # the rules scrolled up to make room
        t.keys("Left")  # medium -> easy
        t.keys("Up")
        t.wait_for(lambda s: "> CPU 2" in s or "▶ CPU 2" in s, 10, "CPU 2's field")
        t.keys("Right")  # medium -> hard
        screen = t.wait_for(lambda s: "< hard >" in s, 10, "CPU 2 at hard")
        assert "CPU seats: 3 (medium, hard, easy)" in screen
        t.keys("Enter")
        t.wait_for(lambda s: "Check the rules" in s, 10, "the confirmation")
        t.keys("Enter")
        screen = t.wait_for(lambda s: "CPU easy 3" in s, 30, "the practice table")
        lines = screen.splitlines()
        header = next(i for i, line in enumerate(lines) if "Seat" in line and "Dice" in line)
        seats = [line.split("│")[0].split() for line in lines[header + 1 : header + 5]]
        names = [(row[1:] if row[0] in "▶>" else row)[:3] for row in seats]  # the turn pointer
        assert [row[:3] for row in names[1:]] == [
            ["CPU", "medium", "1"], ["CPU", "hard", "2"], ["CPU", "easy", "3"],
        ]  # fmt: skip
        assert names[0][0] != "CPU"  # your seat comes first, then the CPUs in the form's order
    finally:
        t.kill()
