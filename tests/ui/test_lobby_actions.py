"""The lobby's keys against injected services: what they ask for, and what the screen says."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pdice.core.advert import Advert
from p2pdice.core.errors import UserError
from p2pdice.core.rules import Rules
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.ports import OpenTable, TableFactory, TableSession
from p2pdice.ui.state import UiState

TABLE_ID = "ab" * 32


@dataclass
class FakeTable:
    kind: str = "join"
    sessions: Sequence[TableSession] = ()
    outcome: str | None = None
    rematch: Any = None
    hint: str = ""

    def link_state(self, session: TableSession) -> str:
        return "connected"

    async def close(self, *, end_game: bool = True) -> None:
        pass


@dataclass
class FakeServices:
    """Records each table asked for; opens a FakeTable with `hint`."""

    seated: bool = False
    hint: str = ""
    hosted: list[Any] = field(default_factory=list)
    asked: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def _factory(self, what: str, **kw: Any) -> TableFactory:
        self.asked.append((what, kw))

        async def open_() -> OpenTable:
            return FakeTable(hint=self.hint)

        return open_

    def default_name(self) -> str:
        return "Zed"

    def hosted_tables(self) -> Sequence[Any]:
        return self.hosted

    def holds_seat(self, table_id: str, host_prefix: str) -> bool:
        return self.seated and table_id == TABLE_ID and host_prefix == "beef" * 4

    async def find(self, address: str) -> Any:
        raise UserError(f"no table at {address}")

    def join_table(self, **kw: Any) -> TableFactory:
        return self._factory("join", **kw)

    def host_table(self, **kw: Any) -> TableFactory:
        return self._factory("host", **kw)

    def resume_table(self, table_id: str, *, player: str) -> TableFactory:
        raise UserError(f"{table_id}: its table.json is unreadable")

    def practice_table(self, rules: Rules, cpu: list[str], humans: int) -> TableFactory:
        return self._factory("practice", rules=rules, cpu=cpu, humans=humans)

    def pass_and_play_table(self, rules: Rules, players: list[str], cpu: list[str]) -> TableFactory:
        return self._factory("pass_and_play", rules=rules, players=players, cpu=cpu)

    async def stop(self) -> None:
        pass


def lobby_with(services: FakeServices) -> tuple[Controller, LobbyActions]:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    lobby = LobbyActions(c, services)
    ad = Advert.from_txt(
        {"id": TABLE_ID, "hk": "beef" * 4, "phase": "playing", "path": f"/t/{TABLE_ID}"}
    )
    c.ui.book.announce("kitchen._p2pdice._tcp.local.", "kitchen", ["10.0.0.5"], 8765, ad, 0.0)
    return c, lobby


async def settle(c: Controller) -> None:
    for _ in range(20):
        if c.ui.screen != "starting":
            return
        await asyncio.sleep(0.01)


async def test_enter_on_a_table_where_we_hold_a_seat_takes_it_back_without_a_prompt() -> None:
    services = FakeServices(seated=True)
    c, lobby = lobby_with(services)
    lobby.join_selected(spectate=False)
    assert c.ui.prompt is None
    [(what, asked)] = services.asked
    assert what == "join" and asked["password"] is None and asked["spectate"] is False
    assert asked["table_id"] == bytes.fromhex(TABLE_ID)
    await settle(c)
    assert c.ui.screen == "table" and isinstance(c.runtime, FakeTable)


async def test_a_playing_table_without_our_seat_is_only_watched() -> None:
    services = FakeServices(seated=False)
    c, lobby = lobby_with(services)
    lobby.join_selected(spectate=False)
    assert not services.asked and "press s to watch it" in c.ui.message
    lobby.join_selected(spectate=True)
    [(what, asked)] = services.asked
    assert what == "join" and asked["spectate"] is True and asked["name"] == "spectator"


async def test_an_opened_table_shows_its_hint_on_the_message_line() -> None:
    services = FakeServices(hint="open: others type p2pdice join 10.0.0.5:8765")
    c, lobby = lobby_with(services)
    lobby.open_table(services.host_table(name="kitchen"), "opening your table")
    assert c.ui.screen == "starting" and c.ui.message == "opening your table..."
    await settle(c)
    assert c.ui.message == services.hint


@dataclass
class Hosted:
    table_id: str
    name: str


def test_the_lobby_note_offers_to_resume_a_hosted_table_while_it_listens() -> None:
    services = FakeServices()
    c, lobby = lobby_with(services)
    lobby.listening_on("Listening for tables on this network...")
    assert c.ui.lobby_note == "Listening for tables on this network..."
    services.hosted.append(Hosted(TABLE_ID, "kitchen"))
    lobby.update_note()  # the probes do so now and then: a game may have ended meanwhile
    assert c.ui.lobby_note.endswith(" Press r to resume your table 'kitchen'.")
    lobby.cannot_listen("cannot listen for tables here: press a to join by address")
    lobby.update_note()
    assert c.ui.lobby_note == "cannot listen for tables here: press a to join by address"


async def test_a_table_that_cannot_be_resumed_or_found_says_why() -> None:
    services = FakeServices()
    c, lobby = lobby_with(services)
    lobby.resume(TABLE_ID, "kitchen")
    assert c.ui.message.endswith("its table.json is unreadable") and c.ui.screen == "lobby"
    lobby.ask_address()
    assert c.ui.prompt is not None
    answered = c.ui.prompt.on_done("nowhere:1")
    assert answered is not None
    await answered
    assert c.ui.message == "no table at nowhere:1"
