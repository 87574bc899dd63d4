"""The one way a ranking is written out (simulate, verify, host, join and protocol games)."""

from __future__ import annotations

from p2pdice.core.describe import ranking_line, ranking_places


def test_places_are_numbered_from_one_in_ranking_order() -> None:
    assert ranking_places([2, 0, 1], ["Ann", "Bob", "Cid"]) == ["1. Cid", "2. Ann", "3. Bob"]
    assert ranking_line([1, 0], ["Ann", "Bob"]) == "1. Bob  2. Ann"
    assert ranking_line([1, 0], ["Ann", "Bob"], ", ") == "1. Bob, 2. Ann"


def test_a_seat_without_a_name_shows_its_number() -> None:
    assert ranking_line([1, 0], []) == "1. 1  2. 0"
    assert ranking_line([1, 0], {0: "Ann"}) == "1. 1  2. Ann"
