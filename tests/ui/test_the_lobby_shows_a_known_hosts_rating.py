"""In a real terminal (tmux, 80x24), the lobby's row of a table whose host this device has
rated (from the verified games it holds) shows the host's rating and its provisional mark;
a table whose host it has never played shows none."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from p2pdice.core.signing import SigningKey
from tests.stats.tables import POOL, league, save_home
from tests.support import tmux
from tests.support.procs import p2pdice, start_host, stop

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def _host(home: Path, name: str, secret: bytes | None) -> tuple[subprocess.Popen[str], dict]:
    if secret is not None:  # the host is one of the players this device has met
        home.mkdir(parents=True)
        (home / "identity.key").write_text(secret.hex() + "\n")
    return start_host(
        "--headless", "--seats", "3", "--name", name, "--bind", "127.0.0.1", "--home", str(home),
    )  # fmt: skip


def test_a_table_hosted_by_a_rated_player_shows_its_rating(tmp_path: Path) -> None:
    me = save_home(tmp_path / "me", league(3), ["a", "b", "c"])
    body = json.loads(
        subprocess.run(
            p2pdice("stats", "--home", str(me), "--json"), capture_output=True, text=True
        ).stdout
    )
    key = SigningKey(POOL[0]).public.hex()
    (rating,) = [r for r in body["ratings"] if r["key"] == key]
    assert rating["provisional"]  # three games: fewer than it takes
    known, _ = _host(tmp_path / "known", "kitchen", POOL[0])
    stranger, _ = _host(tmp_path / "stranger", "garden", None)
    t = tmux.Tmux()
    try:
        t.start(["env", f"P2PDICE_HOME={me}", *p2pdice()], stderr=tmp_path / "stderr.txt")
        want = f"host rated {rating['rating']:.1f} (provisional)"
        screen = t.wait_for(lambda s: want in s and "garden" in s, 30, "the host's rating")
        lines = screen.splitlines()
        row = next(i for i, line in enumerate(lines) if "kitchen" in line)
        assert want in lines[row + 1]
        garden = next(i for i, line in enumerate(lines) if "garden" in line)
        assert "rated" not in lines[garden + 1]
        assert all(len(line) <= 80 for line in lines)
        t.keys("q")
    finally:
        t.kill()
        stop(known)
        stop(stranger)
