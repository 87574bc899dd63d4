"""In a real terminal (tmux, 80x24), the lobby's row of a table shows the rating this device
holds (from its verified games) of a player seated there, read from the host's listing of
who sits at the table: here a bot that joined with a key this device has played."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from p2pdice.core.signing import SigningKey
from tests.stats.tables import POOL, league, save_home
from tests.support import tmux
from tests.support.procs import p2pdice, spawn, start_host, stop

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def _home_with_key(home: Path, secret: bytes) -> Path:
    home.mkdir(parents=True)
    (home / "identity.key").write_text(secret.hex() + "\n")
    return home


def test_a_table_shows_the_rating_of_a_rated_player_seated_there(tmp_path: Path) -> None:
    me = save_home(tmp_path / "me", league(3), ["a", "b", "c"])
    body = json.loads(
        subprocess.run(
            p2pdice("stats", "--home", str(me), "--json"), capture_output=True, text=True
        ).stdout
    )
    key = SigningKey(POOL[1]).public.hex()
    (rating,) = [r for r in body["ratings"] if r["key"] == key]
    host, ready = start_host(
        "--headless", "--seats", "3", "--name", "kitchen", "--bind", "127.0.0.1",
        "--home", str(tmp_path / "host"),
    )  # fmt: skip
    player = spawn(
        "join", f"127.0.0.1:{ready['port']}", "--bot", "easy", "--name", "Bo", "--seed", "1",
        "--home", str(_home_with_key(tmp_path / "bo", POOL[1])),
        log=tmp_path / "bo.txt",
    )  # fmt: skip
    t = tmux.Tmux()
    try:
        t.start(["env", f"P2PDICE_HOME={me}", *p2pdice()], stderr=tmp_path / "stderr.txt")
        mark = "?" if rating["provisional"] else ""
        want = f"seated: Bo {rating['rating']:.1f}{mark}"
        screen = t.wait_for(lambda s: want in s, 30, "the seated player's rating")
        lines = screen.splitlines()
        row = next(i for i, line in enumerate(lines) if "kitchen" in line)
        assert want in lines[row + 1] and "1/3" in lines[row]
        assert all(len(line) <= 80 for line in lines)
        t.keys("q")
    finally:
        t.kill()
        stop(player)
        stop(host)
