"""Ctrl-C (or SIGTERM) stops a headless `join` at once while its table waits in the lobby.
The link noticed the stop only when a frame came in, and a table waiting for its host to
start sends none: a `join --spectate` piped to a file, or a `join --bot`, ignored Ctrl-C
until the game started, and only `kill -9` ended it. A real host and real `join` processes
on loopback."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.procs import kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


@pytest.mark.parametrize(
    ("how", "sig"),
    [(("--spectate",), signal.SIGINT), (("--bot", "easy"), signal.SIGTERM)],
)
def test_a_headless_join_stops_on_a_signal_in_a_waiting_lobby(
    tmp_path: Path, how: tuple[str, ...], sig: signal.Signals
) -> None:
    host, ready = start_host(
        "--headless", "--seats", "3", "--no-advertise", "--bind", "127.0.0.1",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    log = tmp_path / "join.out"
    joiner = None
    try:
        joiner = spawn(
            "join", f"127.0.0.1:{ready['port']}", *how, "--home", str(tmp_path / "j"), log=log
        )
        transcript = tmp_path / "j" / "tables" / ready["table_id"] / "transcript.jsonl"
        deadline = time.monotonic() + 20
        while not (transcript.exists() and transcript.read_bytes()):  # welcomed, waiting
            assert time.monotonic() < deadline and joiner.poll() is None, log.read_text()
            time.sleep(0.05)
        time.sleep(0.5)
        joiner.send_signal(sig)
        began = time.monotonic()
        assert joiner.wait(10) == 130, log.read_text()
        assert time.monotonic() - began < 5, log.read_text()
    finally:
        kill_all(joiner)
        stop(host)
    said = log.read_text()
    assert "Traceback" not in said, said
    assert "p2pdice verify --partial" in said, said
