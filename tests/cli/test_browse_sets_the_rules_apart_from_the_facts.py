"""Plain `browse` lists each table on one line: name and short id, its facts, its rules and
where it is. The rules are free text, and ran into the facts: "1/4 seats, lobby, empty seats
left out  aces ones, 5 dice" read as one list."""

from __future__ import annotations

from p2pdice.cli.join import browse_line
from p2pdice.core.advert import Advert
from p2pdice.net.discovery import TableAd

TABLE_ID = "3fa2c1d0" + "ab" * 28


def table(**changes: object) -> TableAd:
    fields: dict[str, object] = {
        "name": "Kitchen",
        "table_id": TABLE_ID,
        "path": f"/t/{TABLE_ID}",
        "rules": "aces ones, exact call, 5 dice",
        "seats": (1, 4),
        "phase": "lobby",
        "host_key_prefix": "9c1b2a3f00112233",
    }
    advert = Advert(**{**fields, **changes})  # type: ignore[arg-type]
    return TableAd("Kitchen [3fa2c1d0]._p2pdice._tcp.local.", "Kitchen", ["10.0.0.5"], 7777, advert)


def test_the_rules_are_set_apart_from_the_facts_and_the_address() -> None:
    assert browse_line(table()) == (
        "Kitchen#3fa2c1d0  1/4 seats, lobby, empty seats left out; "
        "rules: aces ones, exact call, 5 dice; at 10.0.0.5:7777, host key 9c1b2a3f"
    )
    assert browse_line(table(cpu=1, fill=True, seats=(4, 4), phase="playing", round=2)) == (
        "Kitchen#3fa2c1d0  4/4 seats, round 2, 1 CPU run by the host; "
        "rules: aces ones, exact call, 5 dice; at 10.0.0.5:7777, host key 9c1b2a3f"
    )
    # Two are "CPUs" (it said "2 CPU run by the host").
    assert ", 2 CPUs run by the host; " in browse_line(table(cpu=2, seats=(2, 4)))
    assert browse_line(table(rules="", host_key_prefix=None)) == (
        "Kitchen#3fa2c1d0  1/4 seats, lobby, empty seats left out; at 10.0.0.5:7777"
    )
