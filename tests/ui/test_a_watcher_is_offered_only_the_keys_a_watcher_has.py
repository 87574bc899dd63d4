"""A spectator holds no seat, so `?` lists no bid, call, undo or odds keys (they did nothing
for a watcher), and the reveal's key bar offers no coach: `v` said "no round of yours has
finished yet" to someone who could never have one. Now `?` lists r, ? and q ("stop
watching"), and `v` says a watcher has no moves to coach and how to review a saved game. A
real host of two CPUs and `join --spectate` in tmux at 80x24."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support import tmux
from tests.support.procs import start_host, stop

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def test_a_watcher_gets_no_bid_keys_in_help_and_no_coach(tmp_path: Path) -> None:
    # Two CPUs fill the table, so it starts at once; they think a while between moves.
    host, ready = start_host(
        "--headless", "--seats", "2", "--cpu", "2", "--cpu-think", "1", "--no-advertise",
        "--bind", "127.0.0.1",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    t = tmux.Tmux()
    watch = [sys.executable, "-m", "p2pdice", "join", f"127.0.0.1:{ready['port']}",
             "--spectate", "--home", str(tmp_path / "w")]  # fmt: skip
    try:
        t.start(watch, stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "You are watching" in s or "the reveal" in s, 30, "the table")
        t.keys("?")
        helped = t.wait_for(lambda s: " Keys" in s, 10, "the help screen")
        keys = helped.split(" Keys\n", 1)[1]
        assert "quantity of your bid" not in keys and "call Liar" not in keys, helped
        assert "odds hint" not in keys and "stop watching" in keys, helped
        t.keys("Escape")
        t.wait_for(lambda s: " Keys" not in s, 10, "the help closed")
        # A reveal whose cups are all open (its key bar offers Enter), not one being opened.
        reveal = t.wait_for(
            lambda s: "the reveal" in s and "Enter" in s.rstrip().splitlines()[-1], 60, "a reveal"
        )
        assert "v coach" not in reveal.splitlines()[-1], reveal
        t.keys("v")
        said = t.wait_for(lambda s: "no moves to coach" in s, 10, "what v says")
        assert "no round of yours" not in said, said
    finally:
        t.kill()
        stop(host)
