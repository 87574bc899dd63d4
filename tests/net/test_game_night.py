"""Issue 12's game night: a host and two lobby players on three machines (namespaces on a
bridge), all in real terminals (tmux). The host is killed with SIGKILL mid-round and resumed
from its lobby with `r`; a player is killed and reopens `p2pdice`, Enter taking the seat
back. The game finishes and every transcript is the same, and verifies with `p2pdice verify`."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.store import AppendLog
from tests.support import netns, tmux
from tests.support.procs import p2pdice

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]

TABLE = "game night"


def as_home(home: Path, *args: str) -> list[str]:
    return ["env", f"P2PDICE_HOME={home}", *p2pdice(*args)]


def kill9(t: tmux.Tmux) -> None:
    pid = tmux.child_pid(t.pane_pid())
    assert pid is not None, t.screen()
    os.kill(pid, signal.SIGKILL)


class Night:
    def __init__(self, tmp_path: Path, names: list[str]) -> None:
        self.tmp = tmp_path
        self.homes = [tmp_path / who for who in ("host", "ann", "bob")]
        self.terms = [tmux.Tmux(netns=ns) for ns in names]
        self.started = time.monotonic()
        self.timings: dict[str, float] = {}

    def mark(self, what: str) -> None:
        self.timings[what] = round(time.monotonic() - self.started, 1)

    def stderr(self, i: int) -> Path:
        return self.tmp / f"stderr-{i}.txt"

    def log(self) -> Path:
        logs = sorted(self.homes[0].glob("hosted/*/log.jsonl"))
        assert len(logs) == 1, logs
        return logs[0]

    def entries(self) -> list[bytes]:
        logs = sorted(self.homes[0].glob("hosted/*/log.jsonl"))
        return AppendLog.read(logs[0]) if logs else []

    def play(self, done, timeout: float, what: str, only: tuple[int, ...] = (0, 1, 2)) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                screens = "\n\n".join(self.terms[i].screen() for i in only)
                raise AssertionError(f"no {what} within {timeout} s; screens:\n{screens}")
            for i in only:
                tmux.play_step(self.terms[i])
            time.sleep(0.25)
        self.mark(what)

    def join_from_lobby(self, i: int, name: str) -> None:
        t = self.terms[i]
        t.wait_for(lambda s: TABLE in s and "lobby" in s, 20, f"{name}'s lobby listing")
        t.keys("Enter")
        t.wait_for(lambda s: "Your name at the table:" in s, 10, "name prompt")
        t.keys(*(["BSpace"] * 24), name, "Enter")

    def round_in_play(self) -> bool:
        lines = self.entries()
        return bool(lines) and b'"type":"bid"' in lines[-1]


def test_game_night(tmp_path: Path) -> None:
    with netns.lan() as names:
        night = Night(tmp_path, names)
        host, ann, bob = night.terms
        try:
            host.start(
                as_home(night.homes[0], "host", "--name", TABLE, "--seats", "3",
                        "--starting-dice", "2", "--player", "Hal"),
                stderr=night.stderr(0),
            )  # fmt: skip
            ann.start(as_home(night.homes[1]), stderr=night.stderr(1))
            bob.start(as_home(night.homes[2]), stderr=night.stderr(2))
            night.join_from_lobby(1, "Ann")
            night.join_from_lobby(2, "Bob")
            night.play(night.round_in_play, 30, "a bid in the first round")

            kill9(host)  # the host's laptop dies mid-round
            night.mark("host killed")
            host.respawn(as_home(night.homes[0]), stderr=night.stderr(0))
            host.wait_for(lambda s: "Press r to resume" in s, 20, "the lobby's resume offer")
            host.keys("r")
            night.play(lambda: "Your dice (Hal" in host.screen(), 30, "host resumed")
            before = len(night.entries())
            night.play(lambda: len(night.entries()) > before + 3, 30, "play after the resume")

            kill9(ann)  # a player's client crashes
            night.mark("Ann killed")
            ann.respawn(as_home(night.homes[1]), stderr=night.stderr(1))
            ann.wait_for(lambda s: TABLE in s and "playing (you)" in s, 20, "Ann's lobby listing")
            ann.keys("Enter")
            # Back in her seat: the reveal she missed first, then her own dice.
            night.play(lambda: "Your dice (Ann" in ann.screen(), 20, "Ann back at her seat")
            night.play(lambda: b'"game_over"' in b"".join(night.entries()[-1:]), 60, "game over")
            time.sleep(1.0)  # the last entry reaching everyone's files
        finally:
            for t in night.terms:
                t.kill()
        print("game night timings (s since start):", night.timings)
        transcripts = [
            night.log(),
            *sorted(night.homes[0].glob("seat/tables/*/transcript.jsonl")),
            *sorted(night.homes[1].glob("tables/*/transcript.jsonl")),
            *sorted(night.homes[2].glob("tables/*/transcript.jsonl")),
        ]
        assert len(transcripts) == 4, transcripts
        assert len({path.read_bytes() for path in transcripts}) == 1
        for path in transcripts:
            checked = subprocess.run(
                p2pdice("verify", str(path)), capture_output=True, text=True, timeout=30
            )
            assert checked.returncode == 0, checked.stdout + checked.stderr
        for i in range(3):
            assert "Traceback" not in night.stderr(i).read_text()
