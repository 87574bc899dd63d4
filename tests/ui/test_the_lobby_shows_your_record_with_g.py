"""In a real terminal (tmux, 80x24), `g` in the lobby shows this device's record: the games it
holds that verify, each player's figures and rating, and the rating plot, in 80 columns;
q goes back to the lobby, which is listening again."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.stats.tables import league, save_home
from tests.support import tmux
from tests.support.procs import p2pdice

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def test_g_in_the_lobby_shows_the_record_and_q_comes_back(tmp_path: Path) -> None:
    me = save_home(tmp_path / "me", league(3), ["a", "b", "c"])
    body = json.loads(
        subprocess.run(
            p2pdice("stats", "--home", str(me), "--json"), capture_output=True, text=True
        ).stdout
    )
    assert body["games"] == 3
    t = tmux.Tmux()
    try:
        t.start(["env", f"P2PDICE_HOME={me}", *p2pdice()], stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "g shows your games and ratings" in s, 30, "the lobby")
        t.keys("g")
        screen = t.wait_for(lambda s: "Your record" in s, 30, "the record screen")
        assert "3 verified game(s)" in screen, screen
        names = [r["name"] for r in body["ratings"] if r["name"]]
        assert names and any(name in screen for name in names), screen
        assert all(len(line) <= 80 for line in screen.splitlines())
        t.keys("PageDown")
        t.wait_for(lambda s: "ratings (mu - 3 sigma)" in s or "games played" in s, 10, "the plot")
        t.keys("q")
        t.wait_for(lambda s: "p2pdice lobby" in s, 30, "the lobby again")
        t.keys("q")
    finally:
        t.kill()
