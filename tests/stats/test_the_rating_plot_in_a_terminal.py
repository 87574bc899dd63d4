"""`p2pdice stats --plot` in a real terminal (tmux, 80 columns): the history is drawn within
the width, with its axis and one legend entry per rated key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import tmux
from tests.support.procs import p2pdice

from .tables import league, save_home


@pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")
def test_the_plot_fits_an_80_column_terminal(tmp_path: Path) -> None:
    home = save_home(tmp_path, league(4), ["a", "b", "c", "d"])
    t = tmux.Tmux()
    try:
        t.start([*p2pdice("stats", "--home", str(home), "--plot")], stderr=tmp_path / "err.txt",
                height=60)  # fmt: skip
        screen = t.wait_for(lambda s: "games played" in s, 60, "the plot")
    finally:
        t.kill()
    lines = screen.splitlines()
    top = next(i for i, line in enumerate(lines) if "after each game" in line)
    drawn = lines[top:]
    assert all(len(line) <= 80 for line in lines)
    assert sum(1 for line in drawn if any(ch in line for ch in "⢀⣀•▞▚⠁⠂⠄⡀⠈⠐⠠⢀")) >= 3
    assert sum(line.count("[") for line in drawn) >= 4  # "P0 [1a2b3c4d]", one per key
