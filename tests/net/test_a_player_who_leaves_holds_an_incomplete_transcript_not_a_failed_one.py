"""Honest drops are not accusations: a real player process that leaves mid-game (Ctrl-C) is
told where its record stops and how to check it, and `p2pdice verify` of that transcript
says "incomplete: verified up to round N, entry M" with its own exit status and the
`--partial` hint, never FAILED MISSING_GAME_OVER (which it used to say of every such file)."""

from __future__ import annotations

import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.cli.verify_exits import EXIT_INCOMPLETE, EXIT_VERIFIED
from tests.support.procs import bot_join, kill_all, p2pdice, spawn, start_host, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")


def test_leaving_mid_game_is_information_and_verify_calls_the_log_incomplete(
    tmp_path: Path,
) -> None:
    host, ready = start_host(
        "--headless", "--seats", "2", "--starting-dice", "5", "--no-advertise",
        "--bind", "127.0.0.1", "--home", str(tmp_path / "host"),
    )  # fmt: skip
    address = f"127.0.0.1:{ready['port']}"
    log = tmp_path / "leaver.out"
    leaver = spawn(*bot_join(address, name="Ann", seed=1, home=tmp_path / "ann"), log=log)
    other = spawn(*bot_join(address, name="Bea", seed=2, home=tmp_path / "bea"))
    try:
        deadline = time.monotonic() + 30
        while "round 1:" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.02)
        leaver.send_signal(signal.SIGINT)  # what Ctrl-C does
        leaver.wait(20)
    finally:
        kill_all(leaver, other, host)
    said = log.read_text()
    assert leaver.returncode == 130, said
    assert "ALARM" not in said, said
    left = re.search(r"you left the table; your transcript is verified up to round (\d+)", said)
    assert left is not None, said
    assert "p2pdice verify --partial" in said
    (transcript,) = transcript_files(tmp_path / "ann")
    done = subprocess.run(
        p2pdice("verify", str(transcript)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == EXIT_INCOMPLETE, done.stdout
    assert f"incomplete: verified up to round {left[1]}, entry " in done.stdout
    assert "--partial" in done.stdout
    assert "FAILED" not in done.stdout and "MISSING_GAME_OVER" not in done.stdout
    partial = subprocess.run(
        p2pdice("verify", "--partial", str(transcript)), capture_output=True, text=True, timeout=60
    )
    assert partial.returncode == EXIT_VERIFIED, partial.stdout
