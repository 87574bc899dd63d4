"""A lobby row shows the ratings this device holds of the players a host's listing seats at
its table (from the verified games under its home), counts the ones it has never rated,
fits its 80 columns, and takes a malformed `players` field for none at all."""

from __future__ import annotations

import pytest

from p2pdice.cli.stats import ratings_book
from p2pdice.core.advert import Advert
from p2pdice.core.names import MAX_NAME
from p2pdice.core.rules import MAX_SEATS
from p2pdice.core.signing import SigningKey
from p2pdice.ui.lobbymodel import (
    LISTED_NAME_LIMIT,
    ROW_COLUMNS,
    ListedPlayer,
    LobbyBook,
    listed_players,
)
from p2pdice.ui.panels import render_lobby
from p2pdice.ui.ratings import RatingBook, RatingFigure
from p2pdice.ui.screens import plain
from tests.stats.tables import POOL, league, save_home
from tests.support.vectors import PROTOCOL

KEYS = [SigningKey(secret).public.hex() for secret in POOL]
STRANGER = "cd" * 32  #: a key this device has never played
UNKNOWN_HOST = "ef" * 32  #: another
SERVICE = "kitchen._p2pdice._tcp.local."


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> RatingBook:
    """The ratings of the four pool players after three verified games among them."""
    home = save_home(tmp_path_factory.mktemp("me"), league(3), ["a", "b", "c"])
    found = ratings_book(home)
    assert set(KEYS) <= set(found.figures)
    return found


def _mark(figure: RatingFigure) -> str:
    return f"{figure.rating:.1f}" + ("?" if figure.provisional else "")


def _row_of(
    ratings: RatingBook,
    players: tuple[ListedPlayer, ...] | None,
    *,
    host: str = KEYS[0],
    address: str = "10.0.0.5",
    port: int = 8765,
):
    lobby = LobbyBook(ratings=ratings)
    advert = Advert(
        table_id="ab" * 32, name="kitchen", seats=(len(players or ()), 6), host_key_prefix=host[:16]
    )
    lobby.announce(SERVICE, "kitchen", [address], port, advert, 0.0)
    lobby.probed(SERVICE, listed=True, now=1.0, listing=advert, players=players)
    (row,) = lobby.rows()
    return row, lobby


def test_a_row_rates_each_known_player_seated_and_counts_the_stranger(book: RatingBook) -> None:
    players = (
        ListedPlayer("Host", KEYS[0]),
        ListedPlayer("ana", KEYS[1]),
        ListedPlayer("cid", STRANGER),
        ListedPlayer("bo", KEYS[2]),
    )
    row, lobby = _row_of(book, players)
    f = book.figures
    # The host, seated at its own table, is named once, as the host.
    want = f"host {_mark(f[KEYS[0]])}, seated: ana {_mark(f[KEYS[1]])}, bo {_mark(f[KEYS[2]])}"
    assert row.rating == want + ", +1 other"
    text = plain(render_lobby(lobby.rows(), 0, ""))
    assert row.rating in text and all(len(line) <= 80 for line in text.splitlines())


def test_a_row_with_no_rated_player_seated_shows_only_the_hosts_rating(book: RatingBook) -> None:
    players = (ListedPlayer("Host", KEYS[0]), ListedPlayer("cid", STRANGER))
    row, _ = _row_of(book, players)
    assert row.rating == f"host rated {book.figures[KEYS[0]].rating:.1f} (provisional)"
    stranger_host, _ = _row_of(book, (ListedPlayer("cid", STRANGER),), host=STRANGER)
    assert stranger_host.rating == ""


def test_a_rated_player_at_a_strangers_table_is_shown_without_a_host_rating(
    book: RatingBook,
) -> None:
    players = (
        ListedPlayer("host", UNKNOWN_HOST),
        ListedPlayer("stranger", STRANGER),
        ListedPlayer("CPU easy 1", KEYS[3], cpu=True),
    )
    row, _ = _row_of(book, players, host=UNKNOWN_HOST)
    assert row.rating == f"seated: CPU easy 1 {_mark(book.figures[KEYS[3]])}, +1 other"


def test_six_long_names_at_the_longest_address_fit_80_columns() -> None:
    keys = [f"{n:02x}" * 32 for n in range(1, 7)]
    figures = {key: RatingFigure(-12.25 - n, provisional=n % 2 == 0, games=n) for n, key in
               enumerate(keys)}  # fmt: skip
    players = tuple(ListedPlayer(f"Annabelle Mary Smith {n}", key) for n, key in enumerate(keys))
    row, lobby = _row_of(
        RatingBook(figures), players, host=STRANGER, address="255.255.255.255", port=65535
    )
    assert row.rating.startswith(f"seated: Annabelle M~ {_mark(figures[keys[0]])}, ")
    shown = row.rating.count("Annabelle")
    assert 1 <= shown < 6 and row.rating.endswith(f", +{6 - shown} others")
    lines = plain(render_lobby(lobby.rows(), 0, "")).splitlines()
    assert all(len(line) <= ROW_COLUMNS for line in lines)
    assert any(line.rstrip().endswith(row.rating) for line in lines)  # whole, not cut short


def _player(name: object = "ana", key: object = KEYS[1], **more: object) -> dict:
    return {"name": name, "key": key, **more}


MALFORMED = {
    "not a list": "ana,bo",
    "an object": {"0": _player()},
    "more than the table's seats": [_player(key=f"{n:02x}" * 32) for n in range(4)],
    "more than any table seats": [_player(key=f"{n:02x}" * 32) for n in range(7)],
    "an item that is not an object": [_player(), "bo"],
    "a key in capitals": [_player(key=KEYS[1].upper())],
    "a short key": [_player(key=KEYS[1][:-1])],
    "a key that is not hex": [_player(key="zz" * 32)],
    "a key that is a number": [_player(key=7)],
    "a huge key": [_player(key="ab" * 100_000)],
    "a huge name": [_player(name="x" * 1_000_000)],
    "a name that is not text": [_player(name=["ana"])],
    "a cpu flag that is not true or false": [_player(cpu="yes")],
    "one key twice": [_player(), _player(name="bo")],
}


@pytest.mark.parametrize("value", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_players_field_is_ignored_whole(value: object, book: RatingBook) -> None:
    row = {"id": "ab" * 32, "seats": "2/3", "players": value}
    assert listed_players(row, 3) is None
    lobby_row, _ = _row_of(book, listed_players(row, 3), host=STRANGER)
    assert lobby_row.rating == ""


def test_a_well_formed_players_field_is_read_cleaned_with_its_cpu_marks() -> None:
    row = {"players": [_player(name="ana\x1b[2J"), _player(key=KEYS[2], name="CPU 1", cpu=True)]}
    found = listed_players(row, 3)
    assert found is not None and [(p.key, p.cpu) for p in found] == [
        (KEYS[1], False),
        (KEYS[2], True),
    ]
    assert found[0].name == "ana" and found[1].name == "CPU 1"  # the escape is removed
    assert listed_players({}, 3) is None  # a host that names no players (an older one)


def test_the_spec_states_the_bounds_a_lobby_reads_the_players_field_with() -> None:
    spec = " ".join((PROTOCOL / "SPEC.md").read_text(encoding="utf-8").split())
    assert f"at most {MAX_NAME} characters" in spec
    assert f"(so at most {MAX_SEATS} items)" in spec or f"(so at most {MAX_SEATS})" in spec
    assert f"than the row's `seats` total or than {MAX_SEATS}," in spec
    assert f"a name over {LISTED_NAME_LIMIT} characters" in spec
