"""The new-table form (n, p, t in the lobby) opens with a clear message line: the lobby's
last error ("could not reach the host at ...") stayed under the form and its confirm screen,
as if it were about the table being made."""

from __future__ import annotations

from pathlib import Path

from p2pdice.cli.lobby import CliLobby
from p2pdice.core.rules import TableKind
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState


def test_the_form_opens_with_a_clear_message_line(tmp_path: Path) -> None:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    lobby = LobbyActions(c, CliLobby(tmp_path))
    for kind in (TableKind.STANDARD, TableKind.PRACTICE, TableKind.PASS_AND_PLAY):
        c.say("could not reach the host at 127.0.0.1:1: connection refused", error=True)
        lobby.new_form(kind)
        assert c.ui.screen == "form" and c.ui.message == "", kind
        c.ui.screen = "lobby"
