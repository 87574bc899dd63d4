"""A seat whose key this device has rated shows its rating beside its name (marked while
provisional), a lobby row shows its host's, and game over shows each known player's change
from the game just finished. The figures come from the command line as plain data."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.core.advert import Advert
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Reveal, apply
from p2pdice.core.rules import Rules
from p2pdice.ui.lobbymodel import LobbyBook
from p2pdice.ui.panels import render_lobby
from p2pdice.ui.ratings import RatingBook, RatingChange, RatingFigure
from p2pdice.ui.reveal import game_over_model
from p2pdice.ui.screens import plain, render_game_over, render_table
from p2pdice.ui.viewmodel import SeatFacts, table_model
from tests.ui.helpers import NAMES, bidding, snap_of

KEYS = ("a1" * 32, "b2" * 32, "c3" * 32)
BOOK = RatingBook(
    figures={
        KEYS[0]: RatingFigure(24.125, provisional=False, games=9),
        KEYS[1]: RatingFigure(-1.5, provisional=True, games=2),
    }
)


def _keyed(snap, names=NAMES):
    seats = tuple(
        SeatFacts(name=n, cpu=i == 2, host_run=i == 2, key=KEYS[i]) for i, n in enumerate(names)
    )
    return replace(snap, seats=seats, ratings=BOOK, table_id="ee" * 32)


def test_a_rated_seat_shows_its_rating_and_an_unknown_one_none() -> None:
    rows = table_model(_keyed(snap_of(bidding(), me=0))).seats
    assert [r.rating for r in rows] == ["24.1", "-1.5?", ""]


def test_the_rating_fits_80_columns_beside_a_long_name() -> None:
    long = ("Annabelle Mary Smith", "Bob", "Cid")
    model = table_model(_keyed(snap_of(bidding(), me=0, names=long), long))
    text = plain(render_table(model, height=40))
    assert all(len(line) <= 80 for line in text.splitlines())
    seat_line = next(line for line in text.splitlines() if "24.1" in line)
    assert "Annabelle" in seat_line and "-1.5?" in text


def test_game_over_shows_each_known_players_change() -> None:
    rules = Rules(seats=2, starting_dice=1, first_starter="seat0")
    state = apply(bidding(rules, bids=((0, Bid(1, 5)),)), Challenge(1))
    state = apply(state, Reveal(((5,), (2,))))  # Ann's bid holds: Bob is out
    snap = _keyed(snap_of(state, me=0, names=NAMES[:2]), NAMES[:2])
    changes = {
        KEYS[0]: RatingChange(RatingFigure(20.0, False, 8), RatingFigure(24.125, False, 9)),
        KEYS[1]: RatingChange(None, RatingFigure(-1.5, True, 1)),
    }
    snap = replace(snap, ratings=replace(BOOK, changes={snap.table_id: changes}))
    model = game_over_model(snap)
    assert model.ranking == (
        "1. Ann  (1 die left)  rating 20.0 -> 24.1 (+4.1)",
        "2. Bob  first rating -1.5 (provisional)",
    )
    text = plain(render_game_over(model, height=30))
    assert all(len(line) <= 80 for line in text.splitlines())
    # Another table's changes are not this one's.
    other = replace(snap, table_id="ff" * 32)
    assert game_over_model(other).ranking == ("1. Ann  (1 die left)", "2. Bob")


def test_a_lobby_row_shows_its_hosts_rating_by_the_announced_key() -> None:
    book = LobbyBook(ratings=BOOK)
    for n, key in enumerate(KEYS):
        advert = Advert(table_id=f"{n:02d}" * 32, name=f"t{n}", host_key_prefix=key[:16])
        book.announce(f"s{n}", f"t{n}", ["10.0.0.5"], 8765 + n, advert, 0.0)
    rows = {r.name: r.rating for r in book.rows()}
    assert rows == {"t0": "host rated 24.1", "t1": "host rated -1.5 (provisional)", "t2": ""}
    text = plain(render_lobby(book.rows(), 0, ""))
    assert "host rated 24.1" in text and all(len(line) <= 80 for line in text.splitlines())
