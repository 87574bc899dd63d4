"""The lobby on the test's private loopback: a table appears, is joined, and when its host
is killed (no mDNS goodbye) it is greyed out and then removed."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest

from p2pdice.ui import lobbymodel
from tests.support.procs import start_host, stop

from .headless import headless

pytestmark = pytest.mark.usefixtures("private_network")


async def test_lobby_lists_joins_and_drops_a_crashed_host(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.4)
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1", "--name", "kitchen",
        "--bind", "127.0.0.1", "--home", str(tmp_path / "host"),
    )  # fmt: skip

    def setup(c, lobby) -> None:
        c.ui.screen = "lobby"
        c.ui.from_lobby = True

    try:
        async with headless(tmp_path / "me", setup) as d:
            d.c.lobby.start()
            await d.until(lambda: "kitchen" in d.screen() and "lobby" in d.screen(), 15)
            screen = d.screen()
            assert "1/3" in screen or "2/3" in screen
            assert "1 host CPU" in screen and f"127.0.0.1:{ready['port']}" in screen
            await d.press("\r")
            await d.until(lambda: d.c.mode() == "prompt")
            assert "Your name at the table:" in d.screen()
            await d.press("\x7f" * 30 + "Zed\r")
            await d.until(lambda: "Waiting for players: 2 of 3 seats taken." in d.screen(), 10)
            assert "Zed" in d.screen() and "code: at the start" in d.screen()
            await d.press("q")
            await d.until(lambda: d.c.mode() == "quit")
            await d.press("y")
            await d.until(lambda: d.c.mode() == "lobby", 10)
            host.send_signal(signal.SIGKILL)  # a crash: no goodbye on the network
            await d.until(lambda: "not answering" in d.screen(), 10)
            await d.until(lambda: "kitchen" not in d.screen(), 10)
            await d.press("q")
            await asyncio.wait_for(d.task, 10)
    finally:
        stop(host)
