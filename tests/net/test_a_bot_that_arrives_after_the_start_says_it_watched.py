"""A headless `join --bot` that reaches a table whose game has started holds no seat (the start
fixed them, SPEC.md 3.3): it says at once, in words, that the game had started and it watches,
and when stopped it says it stopped watching (not "you left the table", as if it had played).
A real host and a real `join` process on loopback."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.procs import kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


def test_a_late_bot_says_it_watches_and_then_that_it_stopped_watching(tmp_path: Path) -> None:
    # Two CPUs fill the table, so it starts at once; they think long enough to be watched.
    host, ready = start_host(
        "--headless", "--seats", "2", "--cpu", "2", "--cpu-think", "1", "--no-advertise",
        "--bind", "127.0.0.1", "--home", str(tmp_path / "h"),
    )  # fmt: skip
    log = tmp_path / "bot.out"
    host_log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    bot = None
    try:
        deadline = time.monotonic() + 20
        while b'"type":"start"' not in host_log.read_bytes():  # the seats are fixed
            assert time.monotonic() < deadline, "the table did not start"
            time.sleep(0.05)
        bot = spawn(
            "join", f"127.0.0.1:{ready['port']}", "--bot", "easy", "--give-up", "20",
            "--home", str(tmp_path / "b"), log=log,
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while "round 1:" not in log.read_text():  # it watched at least one round
            assert time.monotonic() < deadline and bot.poll() is None, log.read_text()
            time.sleep(0.1)
        bot.send_signal(signal.SIGINT)  # Ctrl-C
        assert bot.wait(20) == 130, log.read_text()
    finally:
        kill_all(bot)
        stop(host)
    said = log.read_text()
    late = "the game had started before you arrived, so there was no seat for you: you are watching"
    assert late in said, said
    assert said.index(late) < said.index("round 1:"), said  # said first, not at the end
    assert "you stopped watching (you held no seat)" in said, said
    assert "you left the table" not in said, said
