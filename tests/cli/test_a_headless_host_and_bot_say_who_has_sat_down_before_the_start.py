"""Before the start, a headless host and a headless `join --bot` say who has sat down, each
time that changes: the host printed nothing when a player joined (so whoever ran it could
not tell when to type `start`), and the bot nothing after `joining ...` (it could have been
stuck). A real host and a real `join` process on loopback."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import pytest

from tests.support.procs import kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

SAT = "waiting for the start: 2 of up to 4 seats taken (Zed, 1 kept for host CPU)"


def test_both_say_who_sat_down(tmp_path: Path) -> None:
    host, ready = start_host(
        "--headless", "--seats", "4", "--cpu", "1", "--no-advertise", "--bind", "127.0.0.1",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    log = tmp_path / "bot.out"
    bot = None
    said = ""
    try:
        bot = spawn(
            "join", f"127.0.0.1:{ready['port']}", "--bot", "easy", "--name", "Zed",
            "--home", str(tmp_path / "b"), log=log,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while SAT not in log.read_text():
            assert time.monotonic() < deadline and bot.poll() is None, log.read_text()
            time.sleep(0.1)
        bot.send_signal(signal.SIGINT)
        bot.wait(10)
        time.sleep(0.5)  # the host sees Zed leave
    finally:
        kill_all(bot)
        said = stop(host)
    assert SAT in said, said
    assert "1 of up to 4 seats taken (nobody, 1 kept for host CPU)" in said, said  # Zed left
