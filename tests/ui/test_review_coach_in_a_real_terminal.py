"""In a real 80x24 terminal, `v` on the first reveal of a practice game opens the coach
with the round's decisions, and Esc goes back to the reveal."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import tmux

pytestmark = pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")


def test_v_on_the_reveal_opens_the_coach_and_esc_closes_it(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "p2pdice", "practice", "--home", str(tmp_path / "home"),
               "--cpu", "1", "--starting-dice", "3", "--cpu-think", "0", "--first-starter",
               "seat0"]  # fmt: skip
    t = tmux.Tmux()
    t.start(command, stderr=tmp_path / "stderr.txt")
    try:
        t.wait_for(lambda s: "? help" in s, 40, "the table")
        reveal = ""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            screen = t.screen()
            if "v coach" in screen:
                reveal = screen
                break
            tmux.play_step(t)
            time.sleep(0.3)
        assert reveal, f"no reveal; last screen:\n{t.screen()}"
        t.keys("v")
        coach = t.wait_for(lambda s: "The coach" in s, 20, "the coach")
        t.keys("Escape")
        t.wait_for(lambda s: "v coach" in s and "The coach" not in s, 10, "the reveal again")
    finally:
        t.kill()
    lines = coach.splitlines()
    assert len(lines) <= 24 and all(len(line) <= 80 for line in lines)
    assert "round 1: you held [" in coach
    # play_step answers every turn (the suggested bid, or Liar once one stands): at least
    # one decision, each with its chance and hard's move.
    assert ": you " in coach and "%" in coach and "hard: " in coach
    assert "Esc back" in coach
    # The saved transcript, still partial, is reviewed for the one person at the table.
    saved = sorted((tmp_path / "home").rglob("transcript.jsonl"))[0]
    out = subprocess.run(
        [sys.executable, "-m", "p2pdice", "review", str(saved), "--json"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    report = json.loads(out.stdout)
    assert report["rounds"] and report["rounds"][0]["decisions"]
    seat = report["seat"]
    human = [line for line in coach.splitlines() if "Review for" in line]
    assert human and f"(seat {seat})" in human[0]
