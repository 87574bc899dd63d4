"""A lobby probe (cli.lobby.CliLobby._probe) that fails outside its request's own error
handling (here: the book refusing the answer) is written to the lobby's log. Before, no one
read the task's exception: asyncio later printed "Task exception was never retrieved", with a
traceback, over the lobby's screen.

Loopback only (no mDNS): a closed port, probed from a book filled by hand.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import socket
from pathlib import Path
from typing import Any

import pytest

from p2pdice.cli import lobby as cli_lobby
from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import Advert
from p2pdice.ui import lobbymodel
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_probe_that_fails_is_logged_and_asyncio_reports_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.1)
    monkeypatch.setattr(cli_lobby, "PROBE_TICK", 0.05)
    loop = asyncio.get_running_loop()
    unretrieved: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unretrieved.append(context))
    c = Controller(UiState(screen="lobby", from_lobby=True), invalidate=lambda: None)
    book = c.ui.book
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))  # bound, not listening: a probe is refused at once
    port = closed.getsockname()[1]
    advert = Advert.from_txt({"id": "3f" * 32, "name": "Kitchen"})
    book.announce("kitchen", "Kitchen", ["127.0.0.1"], port, advert, loop.time())
    calls: list[str] = []

    def broken(service: str, **_: Any) -> None:
        calls.append(service)
        raise RuntimeError("the book refused the answer")

    book.probed = broken  # type: ignore[method-assign]
    services = CliLobby(tmp_path)
    LobbyActions(c, services)
    with caplog.at_level(logging.WARNING):
        services.start_probing(c)
        try:
            for _ in range(100):  # at most 5 s
                if len(calls) >= 3:
                    break
                await asyncio.sleep(0.05)
        finally:
            await services.stop()
            closed.close()
        for _ in range(3):
            gc.collect()
            await asyncio.sleep(0)
    assert len(calls) >= 3, "the probes never reached the book"
    assert not unretrieved, [context.get("message") for context in unretrieved]
    logged = [
        r for r in caplog.records if r.exc_info and "refused the answer" in str(r.exc_info[1])
    ]
    assert logged and all(r.name.startswith("p2pdice") for r in logged), caplog.records
