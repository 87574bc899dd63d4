"""The lobby's book under a flood: one address announcing many tables is one row saying how
many (Enter opens it), the book keeps at most LOBBY_LIMIT tables, `/` finds the real table by
name, address or short id, and every row and the resume picker show the short id that tells
two tables of one name apart."""

from __future__ import annotations

from pathlib import Path

from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import Advert
from p2pdice.store import HostedTableSummary
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import render_screen
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.lobbymodel import GROUP_OVER, LOBBY_LIMIT, LobbyBook
from p2pdice.ui.state import UiState

REAL_ID = "3fa2c1d0" + "7" * 56
FLOODER = "10.0.0.66"


def advert(table_id: str, name: str = "Kitchen") -> Advert:
    return Advert.from_txt(
        {"id": table_id, "name": name, "path": f"/t/{table_id}", "seats": "1/4", "phase": "lobby"}
    )


def fake_id(i: int) -> str:
    return f"{i:08x}" + "e" * 56


def flooded(fakes: int) -> LobbyBook:
    book = LobbyBook()
    book.announce("real", "Kitchen", ["10.0.0.5"], 8765, advert(REAL_ID), 0.0)
    for i in range(fakes):
        service = f"fake{i}"
        book.announce(service, "Kitchen", [FLOODER], 9000 + i, advert(fake_id(i)), 0.0)
    return book


def screen_text(c: Controller) -> str:
    return "\n".join("".join(text for _, text in line) for line in render_screen(c, 80, 24))


def test_a_flood_from_one_address_is_one_row_that_says_how_many() -> None:
    book = flooded(40)
    rows = book.rows()
    assert [(r.group, r.count) for r in rows] == [("", 1), (FLOODER, 40)]
    assert rows[0].short_id == "3fa2c1d0" and rows[0].where == "10.0.0.5:8765"
    assert (rows[1].name, rows[1].phase) == ("40 tables", "from one host")
    assert book.rows() is rows  # nothing changed: the next draw sorts nothing again


def test_a_few_tables_of_one_host_are_listed_one_by_one() -> None:
    book = flooded(GROUP_OVER - 1)
    assert [r.group for r in book.rows()] == ["", "", ""]


def test_enter_on_a_host_group_opens_it_and_enter_again_closes_it() -> None:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    lobby = LobbyActions(c, CliLobby(Path("/nonexistent")))
    c.ui.book = flooded(10)
    c.ui.book.selected = 1
    lobby.join_selected(spectate=False)
    assert len(c.ui.book.rows()) == 11 and c.ui.prompt is None  # opened, nothing joined
    c.ui.book.toggle(FLOODER)
    assert len(c.ui.book.rows()) == 2


def test_the_book_lists_as_many_tables_as_the_browser_tracks() -> None:
    from p2pdice.net.discovery import MAX_TABLES

    assert LOBBY_LIMIT == MAX_TABLES  # defined in each layer (ui cannot import net)


def test_the_book_keeps_a_bounded_number_of_tables_and_counts_the_rest() -> None:
    book = flooded(LOBBY_LIMIT + 300)
    assert len(book.entries) == LOBBY_LIMIT
    group = next(r for r in book.rows() if r.group == FLOODER)
    assert group.count == LOBBY_LIMIT + 300 and "not listed" in group.where


def test_search_finds_the_real_table_by_name_address_or_short_id() -> None:
    book = flooded(60)
    book.announce("garage", "Garage", ["10.0.0.7"], 8765, advert("ab" * 32, "Garage"), 0.0)
    for query in ("garage", "GAR", "10.0.0.7", "abababab", "#abab", "garage#abab"):
        book.search(query)
        assert [r.name for r in book.rows()] == ["Garage"], query
    book.search("3fa2c1d0")
    assert [(r.where, r.short_id) for r in book.rows()] == [("10.0.0.5:8765", "3fa2c1d0")]
    book.search("")
    assert len(book.rows()) == 3


def test_slash_searches_the_lobby_and_escape_lists_everything_again() -> None:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    LobbyActions(c, CliLobby(Path("/nonexistent")))
    c.ui.book = flooded(60)
    assert c.lobby is not None
    c.lobby.search()
    assert c.ui.prompt is not None
    c.ui.prompt.text = "3fa2"
    c.enter()
    shown = screen_text(c)
    assert "tables matching '3fa2'" in shown and "#3fa2c1d0 at 10.0.0.5:8765" in shown
    assert "from one host" not in shown
    c.escape()
    assert c.ui.book.query == "" and "60 tables" in screen_text(c)


def test_the_selected_row_stays_on_screen_in_a_long_list() -> None:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    LobbyActions(c, CliLobby(Path("/nonexistent")))
    book = LobbyBook()
    for i in range(30):
        ip = f"10.0.1.{i}"
        book.announce(f"t{i}", f"Table {i:02}", [ip], 8765, advert(fake_id(i), f"Table {i:02}"), 0)
    c.ui.book = book
    book.move(25)
    assert "Table 25" in screen_text(c)


def test_the_resume_picker_tells_two_tables_of_one_name_apart(tmp_path: Path) -> None:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    services = CliLobby(tmp_path)
    lobby = LobbyActions(c, services)
    services._hosted = [
        HostedTableSummary(table_id=REAL_ID, name="Kitchen", saved_at=0.0),
        HostedTableSummary(table_id="ab" * 32, name="Kitchen", saved_at=86400.0),
        HostedTableSummary(
            table_id="cd" * 32, name="Kitchen", saved_at=0.0, host="Ann", seats=3, round=4
        ),
        HostedTableSummary(
            table_id="ef" * 32, name="Kitchen", saved_at=0.0, host="Bea\x1b[2J", most_seats=6
        ),
    ]
    lobby.resume_hosted()
    assert c.ui.prompt is not None
    question = c.ui.prompt.question
    assert "1 Kitchen#3fa2c1d0 (" in question and "2 Kitchen#abababab (" in question
    # Who hosted it: the name this device's player sat under there (cleaned for the screen).
    assert "3 Kitchen#cdcdcdcd, hosted by Ann, 3 seats, round 4 (" in question
    assert "4 Kitchen#efefefef, hosted by Bea, up to 6 seats, not started (" in question


async def test_the_real_app_searches_on_slash_and_lists_all_again_on_escape(
    tmp_path: Path,
) -> None:
    from tests.ui.headless import headless

    def setup(c: Controller, lobby: LobbyActions) -> None:
        c.ui.screen, c.ui.from_lobby = "lobby", True
        c.ui.book = flooded(60)

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: "60 tables" in d.screen())
        await d.press("/")
        await d.until(lambda: "Search tables" in d.screen())
        await d.press("3fa2\r")
        await d.until(lambda: "tables matching '3fa2'" in d.screen())
        assert "#3fa2c1d0 at 10.0.0.5:8765" in d.screen() and "60 tables" not in d.screen()
        await d.press("\x1b")
        await d.until(lambda: "60 tables" in d.screen())
