"""A lobby row names who hosts the table in words a friend knows ("hosted by Ann"), beside the
host key's short form that identifies the host; two tables of one name from two hosts read
apart by it, `/` finds a table by its host's name, and a long name never cuts the note that
the host could read its CPUs' dice."""

from __future__ import annotations

from p2pdice.core.advert import Advert
from p2pdice.ui.lobbymodel import LobbyBook
from p2pdice.ui.panels import render_lobby
from p2pdice.ui.screens import plain

ANN_KEY, BEA_KEY = "60f6e2a3" + "1" * 8, "c95d43e8" + "2" * 8


def advert(table_id: str, *, host: str | None, key: str, **more: str) -> Advert:
    txt = {
        "id": table_id,
        "name": "Kitchen",
        "path": f"/t/{table_id}",
        "seats": "1/4",
        "phase": "lobby",
        "hk": key,
        **more,
    }
    if host is not None:
        txt["host"] = host
    return Advert.from_txt(txt)


def book_of(*adverts: Advert) -> LobbyBook:
    book = LobbyBook()
    for i, ad in enumerate(adverts):
        book.announce(f"k{i}", "Kitchen", [f"10.0.0.{i + 1}"], 7777, ad, 0.0)
    return book


def shown(book: LobbyBook, columns: int = 80) -> str:
    return plain(render_lobby(book.rows(), 0, "", columns=columns, height=40))


def test_two_kitchens_read_apart_by_their_hosts_names_and_keys() -> None:
    book = book_of(
        advert("3f" * 32, host="Ann", key=ANN_KEY, phase="playing", round="3", seats="2/2"),
        advert("a5" * 32, host="Bea", key=BEA_KEY, fill="1"),
    )
    text = " ".join(shown(book).split())
    assert "#3f3f3f3f at 10.0.0.1:7777, round 3, hosted by Ann (host key 60f6e2a3)" in text
    assert "#a5a5a5a5 at 10.0.0.2:7777, hosted by Bea (host key c95d43e8)" in text


def test_a_host_that_plays_no_seat_is_named_by_its_key_alone() -> None:
    text = " ".join(shown(book_of(advert("3f" * 32, host=None, key=ANN_KEY))).split())
    assert "#3f3f3f3f at 10.0.0.1:7777, host key 60f6e2a3" in text and "hosted by" not in text


def test_a_hosts_name_is_cleaned_as_a_players_name_before_it_is_shown() -> None:
    text = shown(book_of(advert("3f" * 32, host="Ann\x1b[2J\x1b]0;pwned\x07 \u202eX", key=ANN_KEY)))
    assert "hosted by Ann X (host key 60f6e2a3)" in text and "\x1b" not in text


def test_a_long_host_name_never_cuts_the_note_about_host_cpus() -> None:
    long_name = "Bartholomew Quartermaine"  # the 24 characters a name may have
    ad = advert("3f" * 32, host=long_name, key=ANN_KEY, cpu="1", fill="1", round="12")
    text = " ".join(shown(book_of(ad)).split())
    assert f"hosted by {long_name} (host key 60f6e2a3)" in text
    assert "1 host CPU (its host could read those dice)" in text


def test_a_search_finds_a_table_by_its_hosts_name() -> None:
    book = book_of(
        advert("3f" * 32, host="Ann", key=ANN_KEY), advert("a5" * 32, host="Bea", key=BEA_KEY)
    )
    book.search("bea")
    assert [row.short_id for row in book.rows()] == ["a5a5a5a5"]
