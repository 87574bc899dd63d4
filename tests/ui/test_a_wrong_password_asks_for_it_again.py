"""Joining a password table from the lobby with the wrong password brings the player back to
the password prompt with the reason in words (not a table screen showing `BAD_PASSWORD:`), and
the right password then takes the seat. The program's own lobby services against a real
table hosted on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from p2pdice.cli.lobby import CliLobby
from p2pdice.core.rules import Rules
from p2pdice.net.hostapp import HostService, TableConfig
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState

PASSWORD = "open sesame"


async def until(predicate: Callable[[], bool], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


def answer(c: Controller, text: str) -> None:
    assert c.ui.prompt is not None
    c.ui.prompt.text = text
    c.enter()


async def test_a_wrong_password_returns_to_the_prompt_saying_why_in_words(tmp_path: Path) -> None:
    service = HostService(home=tmp_path / "host", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        table = await service.open_table(
            TableConfig(name="Kitchen", rules=Rules(seats=2), cpu=["medium"], password=PASSWORD)
        )
        c = Controller(UiState(screen="lobby", from_lobby=True))
        lobby = LobbyActions(c, CliLobby(tmp_path / "zed"))
        lobby.ui.book.announce(
            "Kitchen._p2pdice._tcp.local.", "Kitchen", ["127.0.0.1"], service.port, table.advert(), 0.0
        )  # fmt: skip
        lobby.join_selected(spectate=False)
        answer(c, "Zed")
        assert c.ui.prompt is not None and c.ui.prompt.question == "Password for this table:"
        answer(c, "open sesame!")
        await until(lambda: c.ui.screen != "starting")

        def asked_again() -> bool:
            c.tick()
            return c.ui.prompt is not None

        await until(asked_again)
        prompt = c.ui.prompt
        assert prompt.question == "Password for this table:" and prompt.secret
        words = "That password is not right for table Kitchen. Try again or press Esc."
        assert prompt.hint == words and c.ui.message == words
        assert c.ui.screen == "lobby" and c.runtime is None
        assert "BAD_PASSWORD" not in c.ui.message
        answer(c, PASSWORD)
        await until(lambda: c.ui.screen != "starting")
        assert c.runtime is not None, c.ui.message
        await until(lambda: c.snap().me is not None)  # seated
        assert c.snap().my_name == "Zed"
        runtime = c.runtime
        c.leave()
        await runtime.close()
    finally:
        await service.stop()
