"""The lobby's keys with the program's own services (cli.lobby.CliLobby, a data folder per
device) against a real table hosted on loopback and not advertised: taking back a seat this
device holds, watching a table that is playing, resuming a table this device hosted, and what
the screen says when a table cannot be resumed or found."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest

from p2pdice.cli.lobby import CliLobby
from p2pdice.core.rules import Rules
from p2pdice.net.hostapp import HostedTable, HostService, TableConfig
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState

SERVICE = "kitchen._p2pdice._tcp.local."


async def until(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


@pytest.fixture
async def kitchen(tmp_path: Path) -> AsyncIterator[tuple[HostService, HostedTable]]:
    """A two-seat table with one host-run CPU seat: the first player to join starts it."""
    service = HostService(home=tmp_path / "host", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        config = TableConfig(name="kitchen", rules=Rules(seats=2), cpu=["medium"])
        yield service, await service.open_table(config)
    finally:
        await service.stop()


def lobby_at(home: Path, found: tuple[HostService, HostedTable] | None = None) -> LobbyActions:
    """The lobby of a device whose data folder is `home`, listing `found` as browsing would."""
    c = Controller(UiState(screen="lobby", from_lobby=True))
    lobby = LobbyActions(c, CliLobby(home))
    if found is not None:
        announce(lobby, *found)
    return lobby


def announce(lobby: LobbyActions, service: HostService, table: HostedTable) -> None:
    book = lobby.ui.book
    book.announce(SERVICE, "kitchen", ["127.0.0.1"], service.port, table.advert(), 0.0)


def answer(c: Controller, text: str) -> None:
    """Type `text` over the prompt's suggestion, then Enter."""
    assert c.ui.prompt is not None
    c.ui.prompt.text = text
    c.enter()


async def opened(c: Controller) -> None:
    await until(lambda: c.ui.screen != "starting")
    assert c.runtime is not None, c.ui.message


async def leave(c: Controller) -> None:
    """q, y: back to the lobby, the table's link closed."""
    runtime = c.runtime
    assert runtime is not None
    c.leave()
    await runtime.close()
    assert c.ui.screen == "lobby"


async def test_enter_on_a_table_where_we_hold_a_seat_takes_it_back_without_a_prompt(
    tmp_path: Path, kitchen: tuple[HostService, HostedTable]
) -> None:
    lobby = lobby_at(tmp_path / "zed", kitchen)
    c = lobby.c
    lobby.join_selected(spectate=False)
    assert c.ui.prompt is not None and c.ui.prompt.question == "Your name at the table:"
    answer(c, "Zed")
    await opened(c)
    await until(lambda: c.snap().me is not None and c.snap().view is not None)  # it started
    seat = c.snap().me
    await leave(c)
    announce(lobby, *kitchen)  # the table is playing now
    lobby.join_selected(spectate=False)
    assert c.ui.prompt is None and c.ui.message == "back to your seat..."
    await opened(c)
    await until(lambda: c.snap().view is not None)
    assert c.snap().me == seat and c.snap().my_name == "Zed"
    await leave(c)


async def test_a_playing_table_without_our_seat_is_only_watched(
    tmp_path: Path, kitchen: tuple[HostService, HostedTable]
) -> None:
    player = lobby_at(tmp_path / "zed", kitchen)
    player.join_selected(spectate=False)
    answer(player.c, "Zed")
    await opened(player.c)
    await until(lambda: player.c.snap().view is not None)  # the table is full and playing
    try:
        watcher = lobby_at(tmp_path / "ann", kitchen)
        c = watcher.c
        watcher.join_selected(spectate=False)
        assert c.runtime is None and c.ui.message == "that table is playing: press s to watch it"
        watcher.join_selected(spectate=True)
        assert c.ui.prompt is None  # an open table is watched under no name
        await opened(c)
        await until(lambda: c.snap().view is not None)
        assert c.snap().watching and c.snap().me is None and c.snap().my_name == "spectator"
        await leave(c)
    finally:
        await leave(player.c)


async def test_s_on_a_password_table_watches_it_without_asking_for_the_password(
    tmp_path: Path,
) -> None:
    """A spectator needs no password (SPEC.md 10.2, docs/lan.md): `s` on a `[pw]` row opens
    the table at once; it used to ask "Password for this table:" (and take "spectator" as the
    player's name for the next join)."""
    service = HostService(home=tmp_path / "host", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        config = TableConfig(name="kitchen", rules=Rules(seats=2), cpu=["medium"], password="pw")
        table = await service.open_table(config)
        watcher = lobby_at(tmp_path / "ann", (service, table))
        assert watcher.ui.book.current() is not None and watcher.ui.book.current().advert.locked
        c = watcher.c
        c.ui.player_name = "Ann"
        watcher.join_selected(spectate=True)
        assert c.ui.prompt is None, c.ui.prompt.question
        await opened(c)
        await until(lambda: c.snap().watching and c.snap().my_name == "spectator")
        assert c.snap().me is None and c.ui.player_name == "Ann"
        await leave(c)
    finally:
        await service.stop()


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_an_opened_table_shows_its_hint_on_the_message_line(tmp_path: Path) -> None:
    lobby = lobby_at(tmp_path / "me")
    c = lobby.c
    factory = lobby.services.host_table(
        name="kitchen", player="Zed", rules=Rules(seats=3), cpu=["easy"], password=None
    )
    lobby.open_table(factory, "opening your table")
    assert c.ui.screen == "starting" and c.ui.message == "opening your table..."
    await opened(c)
    assert c.runtime is not None and c.runtime.hint.startswith("open: others type p2pdice join")
    assert c.ui.message == c.runtime.hint
    await leave(c)


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_a_table_full_from_the_start_does_not_invite_players(tmp_path: Path) -> None:
    lobby = lobby_at(tmp_path / "me")
    c = lobby.c
    factory = lobby.services.host_table(
        name="kitchen", player="Zed", rules=Rules(seats=2), cpu=["easy"], password=None
    )
    lobby.open_table(factory, "opening your table")
    await opened(c)
    assert c.runtime is not None
    # Said as the table opens; once the game has started (at once here), the same in its words.
    assert c.ui.message.startswith(
        ("open, every seat taken: others can watch with p2pdice join", "started: others can watch")
    ), c.ui.message
    assert "others type" not in c.ui.message
    await until(lambda: c.snap().phase not in ("lobby", "connecting"))
    assert c.ui.message.startswith("started: others can watch with p2pdice join"), c.ui.message
    await leave(c)


async def test_the_lobby_note_offers_to_resume_a_hosted_table_while_it_listens(
    tmp_path: Path,
) -> None:
    lobby = lobby_at(tmp_path)
    lobby.listening_on("Listening for tables on this network...")
    assert lobby.ui.lobby_note == "Listening for tables on this network..."
    # This device hosts a table and stops without ending its game (Ctrl-C, a crash).
    service = HostService(home=tmp_path, bind="127.0.0.1", advertise=False)
    await service.start()
    await service.open_table(TableConfig(name="kitchen", rules=Rules(seats=2)))
    await service.stop(end_games=False)
    # The probes rescan this device's hosted tables (on a thread) and update the note now and
    # then: a game may have ended meanwhile.
    await lobby.services.rescan_hosted()
    lobby.update_note()
    assert lobby.ui.lobby_note.endswith(" Press r to resume your table 'kitchen'.")
    lobby.cannot_listen("cannot listen for tables here: press a to join by address")
    lobby.update_note()
    assert lobby.ui.lobby_note == "cannot listen for tables here: press a to join by address"


async def test_a_table_that_cannot_be_resumed_or_found_says_why(tmp_path: Path) -> None:
    lobby = lobby_at(tmp_path)
    c = lobby.c
    lobby.resume_hosted()
    assert c.ui.message == "no unfinished table was hosted on this device"
    lobby.resume("ab" * 32, "kitchen")
    await until(lambda: not c.ui.message.startswith("resuming"))  # the log is read on a thread
    assert c.ui.message.startswith("no saved log for table") and c.ui.screen == "lobby"
    lobby.ask_address()
    answer(c, "127.0.0.1:1")  # nothing listens on port 1
    await until(lambda: not c.ui.message.startswith(("no saved log", "looking for")))
    assert c.ui.message == "could not reach the host at 127.0.0.1:1: connection refused"
    assert c.ui.screen == "lobby" and c.runtime is None
