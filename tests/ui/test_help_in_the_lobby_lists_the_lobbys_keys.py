"""`?` in the lobby explains the lobby's own keys, not the table's (real app, headless), and
every key the lobby's help names is one the lobby answers to."""

from __future__ import annotations

from pathlib import Path

from p2pdice.ui.controller import Controller
from p2pdice.ui.keys import build_keys
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.panels import LOBBY_HELP_KEYS, LOBBY_KEYS
from tests.ui.headless import headless


async def test_question_mark_in_the_lobby_shows_the_lobbys_keys(tmp_path: Path) -> None:
    def setup(c: Controller, lobby: LobbyActions) -> None:
        c.ui.screen, c.ui.from_lobby = "lobby", True

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: d.c.mode() == "lobby")
        await d.press("?")
        await d.until(lambda: d.c.mode() == "help")
        screen = d.screen()
        assert "Help: the lobby" in screen, screen
        for key, _, text in LOBBY_HELP_KEYS:
            assert text[:40] in " ".join(screen.split()), (key, screen)
        assert "call Liar" not in screen and "undo your last bid" not in screen
        await d.press("?")
        await d.until(lambda: d.c.mode() == "lobby")


def test_the_key_bar_is_made_from_the_help_and_every_helped_key_is_bound() -> None:
    assert tuple((k, n) for k, n, _ in LOBBY_HELP_KEYS if n is not None) == LOBBY_KEYS
    bound = {key for binding in build_keys_for_inspection() for key in binding}
    for key, _, _ in LOBBY_HELP_KEYS:
        for part in key.split("/") if key != "/" else [key]:
            name = {"Enter": "c-m", "up": "up", "down": "down"}.get(part, part)
            assert name in bound, (key, sorted(bound))


def build_keys_for_inspection() -> list[tuple[str, ...]]:
    """The key sequences the app binds, as prompt_toolkit names them."""
    kb = build_keys(Controller.__new__(Controller))
    return [tuple(str(getattr(k, "value", k)) for k in b.keys) for b in kb.bindings]
