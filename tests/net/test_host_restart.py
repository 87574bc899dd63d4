"""A host killed with SIGKILL (no goodbye, no game-over entry) and restarted on its saved log
resumes the table; the players' clients reconnect on their own and the game finishes."""

from __future__ import annotations

import signal
import socket
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.store import AppendLog
from tests.support.procs import host_log, spawn, start_host, stop, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_lines(path: Path, count: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        have = len(AppendLog.read(path)) if path.exists() else 0
        if have >= count:
            return have
        time.sleep(0.01)
    raise AssertionError(f"{path} never reached {count} lines")


@pytest.mark.parametrize("kill_at", [14, 45])
def test_a_host_killed_mid_game_resumes_from_its_log(tmp_path: Path, kill_at: int) -> None:
    port = free_port()
    common = [
        "--headless",
        "--seats",
        "3",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-advertise",
    ]
    host, ready = start_host(*common, "--cpu", "2", "--home", str(tmp_path / "h"))
    log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    player = spawn(
        "join",
        f"127.0.0.1:{port}",
        "--bot",
        "medium",
        "--seed",
        "4",
        "--give-up",
        "30",
        "--home",
        str(tmp_path / "p"),
        log=tmp_path / "player.out",
    )
    try:
        killed_at = wait_for_lines(log, kill_at)
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=10)
        saved = AppendLog.read(log)
        assert len(saved) >= killed_at and b'"game_over"' not in saved[-1]
        again = spawn(
            *["host", "--resume", ready["table_id"], *common, "--home", str(tmp_path / "h")]
        )
        try:
            assert player.wait(timeout=120) == 0, (tmp_path / "player.out").read_text()
        finally:
            stop(again)
    finally:
        stop(host)
        if player.poll() is None:
            player.kill()
    host_lines = AppendLog.read(host_log(tmp_path / "h"))
    mine = transcript_files(tmp_path / "p")[0]
    assert mine.read_bytes() == log.read_bytes()
    assert host_lines[: len(saved)] == saved  # the restarted host extended the same log
    lines, problem = split_lines(mine.read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok and report.ended == "finished", report.failure
