"""A real host and real players over sockets, in a private namespace: one seated player never
moves. With the time bank on (a table option), the host declares it out of time after its free
seconds and its bank (`absent`, reason `stalled`), plays its blind moves and gives it a CPU
stand-in; the game ends in bounded time and `verify` passes and lists the act."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pdice.core.codec import decode
from p2pdice.core.rules import TIME_BANK_FREE_PER_TURN
from p2pdice.core.verify import verify_lines
from p2pdice.store import AppendLog
from tests.support.procs import bot_join, host_log, kill_all, p2pdice, spawn, start_host

pytestmark = pytest.mark.usefixtures("private_network")

BANK = 1  #: seconds: the smallest bank, so the test waits little more than the free seconds


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def joins(home: Path) -> int:
    logs = sorted(home.glob("hosted/*/log.jsonl"))
    if not logs:
        return 0
    return sum(b'"type":"join"' in line for line in AppendLog.read(logs[0]))


def test_a_seat_that_never_moves_runs_out_of_time_and_a_cpu_finishes_its_game(
    tmp_path: Path,
) -> None:
    home = tmp_path / "h"
    host, ready = start_host(
        "--headless", "--seats", "2", "--starting-dice", "2", "--first-starter", "seat0",
        "--time-bank", str(BANK), "--bind", "127.0.0.1", "--no-advertise", "--home", str(home),
    )  # fmt: skip
    address = ready["join"][0]
    staller = honest = None
    try:
        started = time.monotonic()
        staller = subprocess.Popen(
            [sys.executable, "-m", "tests.support.stalling_player", address, str(tmp_path / "s")],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert wait_for(lambda: joins(home) == 1, 15), "the staller never took seat 0"
        honest = spawn(*bot_join(address, name="Hana", seed=2, home=tmp_path / "p"))
        out, _ = honest.communicate(timeout=TIME_BANK_FREE_PER_TURN + BANK + 45)
        took = time.monotonic() - started
        assert honest.returncode == 0, out
        assert host.wait(15) == 0
        said, _ = staller.communicate(timeout=30)
    finally:
        kill_all(staller, honest, host)
    # The staller's own client follows the game to its end and finds nothing wrong: being
    # handed to a CPU for running out of time is a rule of the table, not a fault.
    assert "outcome over" in said, said
    assert "ALARM" not in said, said
    lines = AppendLog.read(host_log(home))
    events = [decode(line).get("event") or {} for line in lines]
    stalled = [e for e in events if e.get("type") == "absent"]
    assert [(e["seat"], e["reason"]) for e in stalled] == [(0, "stalled")]
    assert any(e.get("type") == "stand_in" and e["seat"] == 0 for e in events)
    assert events[-1]["type"] == "game_over" and events[-1]["reason"] == "finished"
    assert took < TIME_BANK_FREE_PER_TURN + BANK + 40, took
    report = verify_lines(lines)
    assert report.ok, report.failure
    assert report.stalls[0].startswith("Staller (seat 0) ran out of time in round 1")
    assert "a CPU played for it from round 2" in report.stalls[0]
    # The command a player runs on the transcript says it in words.
    shown = subprocess.run(
        p2pdice("verify", str(host_log(home))), capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0, shown.stdout + shown.stderr
    assert "time bank: Staller (seat 0) ran out of time in round 1" in shown.stdout
    assert "WARNING" in shown.stdout and "time bank" in shown.stdout
