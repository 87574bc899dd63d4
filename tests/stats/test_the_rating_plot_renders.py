"""`p2pdice stats --plot`, run as a process, draws the rating history as terminal text; into
a pipe (not a terminal) without colour codes."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.support.procs import p2pdice

from .tables import league, save_home


def test_the_plot_draws_every_rated_key(tmp_path: Path) -> None:
    home = save_home(tmp_path, league(4), ["a", "b", "c", "d"])
    proc = subprocess.run(
        p2pdice("stats", "--home", str(home), "--plot"),
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
    )
    assert proc.returncode == 0, proc.stderr
    plot = proc.stdout.split("ratings (mu - 3 sigma) after each game", 1)
    assert len(plot) == 2, proc.stdout
    drawn = plot[1]
    assert "games played" in drawn
    assert drawn.count("\n") >= 10 and any(ch in drawn for ch in "⢀⣀•▞▚⠁⠂⠄⡀")
    assert drawn.count("[") >= 4  # one legend line per key: "P0 [1a2b3c4d]"
    assert "\x1b" not in proc.stdout  # captured through a pipe: no terminal to colour
