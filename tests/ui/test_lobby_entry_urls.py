"""A lobby row is joined at the address it was found at, under the path the protocol gives a
table: an announcement whose path could point elsewhere, or whose id is not a table's, gives
no address to join."""

from __future__ import annotations

from p2pdice.core.advert import Advert
from p2pdice.ui.lobbymodel import LobbyEntry

TABLE_ID = "ab" * 32


def entry(txt: dict[str, str]) -> LobbyEntry:
    advert = Advert.from_txt(txt)
    return LobbyEntry(
        service="s", name="n", address="10.0.0.5", port=8765, advert=advert, seen_at=0.0
    )


def test_a_table_is_joined_where_it_was_found() -> None:
    assert entry({"id": TABLE_ID}).url == f"wss://10.0.0.5:8765/t/{TABLE_ID}"


def test_a_path_that_could_point_elsewhere_or_a_bad_id_gives_no_address() -> None:
    assert entry({"id": TABLE_ID, "path": f"@203.0.113.9:80/t/{TABLE_ID}"}).url is None
    assert entry({"id": "zz", "path": "/t/zz"}).url is None
