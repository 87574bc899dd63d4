"""The protocol version and the seat and dice ranges are defined once in the core (core.version,
core.rules); the spec's schemas restate them as JSON and must agree."""

from __future__ import annotations

import json
from typing import Any

import p2pdice
from p2pdice.core import shape
from p2pdice.core.rules import MAX_DICE, MAX_SEATS, SEATS_RANGE
from p2pdice.core.version import PROTOCOL_VERSION
from tests.support.vectors import PROTOCOL, SCHEMAS


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


def test_the_package_speaks_the_cores_protocol_version() -> None:
    assert p2pdice.PROTOCOL_VERSION == PROTOCOL_VERSION


def test_the_spec_and_schemas_name_the_cores_protocol_version() -> None:
    spec = (PROTOCOL / "SPEC.md").read_text(encoding="utf-8")
    assert spec.splitlines()[0] == f"# p2pdice protocol, version {PROTOCOL_VERSION}"
    genesis = _schema("event.schema.json")["$defs"]["genesis"]["properties"]["protocol"]
    challenge = _schema("frame_to_client.schema.json")["$defs"]["challenge"]["properties"]
    assert genesis["const"] == challenge["protocol"]["const"] == PROTOCOL_VERSION
    assert SCHEMAS.name == f"v{PROTOCOL_VERSION}"


def test_the_schemas_seat_and_dice_ranges_are_the_rules() -> None:
    defs = _schema("common.schema.json")["$defs"]
    assert (defs["seat"]["minimum"], defs["seat"]["maximum"]) == (0, MAX_SEATS - 1)
    assert defs["seat_list"]["maxItems"] == MAX_SEATS
    assert (defs["dice_count"]["minimum"], defs["dice_count"]["maximum"]) == (0, MAX_DICE)
    genesis = _schema("event.schema.json")["$defs"]["genesis"]
    assert genesis["properties"]["host_cpu"]["maximum"] == MAX_SEATS
    # host_cpu is at most the seats: one condition for each table size below the largest
    bounded = [
        c["if"]["properties"]["rules"]["properties"]["seats"]["const"] for c in genesis["allOf"]
    ]
    assert bounded == list(SEATS_RANGE)[:-1]
    roster = _schema("event.schema.json")["$defs"]["start"]["properties"]["roster"]
    assert (roster["minItems"], roster["maxItems"]) == (SEATS_RANGE[0], MAX_SEATS)


def test_a_seat_number_is_below_the_most_seats() -> None:
    assert [n for n in range(-1, MAX_SEATS + 2) if shape.seat(n)] == list(range(MAX_SEATS))
