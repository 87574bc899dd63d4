"""A real player killed with -9 whose seat a CPU stand-in took over comes back (the same
join command, in a real terminal): the screen says "You are back; your seat returns at the
next round", not "Your dice: not dealt yet" and "away", and the seat plays again after it."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from p2pdice.store import AppendLog
from tests.support import tmux
from tests.support.procs import kill_all, p2pdice, spawn

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def _ready_port(host_out: Path, timeout: float = 20.0) -> int:
    import json

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in host_out.read_text().splitlines() if host_out.exists() else ():
            if line.startswith("{"):
                return int(json.loads(line)["port"])
        time.sleep(0.1)
    raise AssertionError("host did not report ready")


def _until_logged(log: Path, kind: bytes, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log.exists() and any(kind in line for line in AppendLog.read(log)):
            return
        time.sleep(0.2)
    raise AssertionError(f"no {kind!r} in the host's log within {timeout} s")


def test_back_while_a_cpu_stands_in(tmp_path: Path) -> None:
    host = spawn(
        "host", "--headless", "--json", "--seats", "3", "--cpu", "2", "--cpu-think", "4",
        "--grace-period", "5", "--bind", "127.0.0.1", "--no-advertise",
        "--home", str(tmp_path / "h"), log=tmp_path / "host.out",
    )  # fmt: skip
    t = tmux.Tmux()
    try:
        port = _ready_port(tmp_path / "host.out")
        [log] = (tmp_path / "h" / "hosted").glob("*/log.jsonl")
        join = p2pdice("join", f"127.0.0.1:{port}", "--name", "Bob", "--home", str(tmp_path / "p"))
        t.start(join, stderr=tmp_path / "player.err")

        # Killed at a reveal, its hand already opened: away for the next deal, not forfeit.
        def at_a_reveal(screen: str) -> bool:
            if "the reveal" in screen:
                return True
            tmux.play_step(t)  # bid or call when it is our turn
            return False

        t.wait_for(at_a_reveal, 60, "a reveal")
        pid = tmux.child_pid(t.pane_pid())
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        _until_logged(log, b'"stand_in"', 60)
        t.respawn(join, stderr=tmp_path / "player.err")

        def back(screen: str) -> bool:
            if "press Enter for the table" in screen:
                t.keys("Enter")  # the reveal of the round we missed comes first
            return "You are back; your seat" in screen or b'"return"' in b"".join(
                AppendLog.read(log)
            )

        screen = t.wait_for(back, 30, "the back notice")
        assert "You are back; your seat returns at the next round" in screen, screen
        assert "not dealt yet" not in screen
        assert "back next round" in screen
        _until_logged(log, b'"return"', 90)

        def playing(screen: str) -> bool:
            if "press Enter" in screen:
                t.keys("Enter")
            return "Your dice (Bob" in screen and "back next round" not in screen

        t.wait_for(playing, 30, "the seat playing again")
    finally:
        t.kill()
        kill_all(host)
