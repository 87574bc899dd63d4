"""Host events are frozen types parsed once from their JSON; turned back into JSON they are
the very object they came from, so every entry, hash and vector stays byte-identical."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from p2pdice.core import events
from p2pdice.core.codec import encode
from p2pdice.core.errors import Reason, RemoteError
from p2pdice.core.transcript import parse_entry

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"
#: The example games (games.json): whole honest logs, unlike the mutants and the damaged copy.
LOGS = [EXAMPLES / game["file"] for game in json.loads((EXAMPLES / "games.json").read_text())]


def _event_entries() -> list:
    return [
        entry
        for path in LOGS
        for line in path.read_bytes().splitlines()
        if (entry := parse_entry(line)).event is not None
    ]


def test_every_example_event_turns_back_into_the_exact_json_it_was_parsed_from() -> None:
    entries = _event_entries()
    kinds = {entry.kind for entry in entries}
    assert {f"event:{t}" for t in events.EVENT_FIELDS} <= kinds, "the examples hold every type"
    for entry in entries:
        assert entry.host_event is not None
        assert entry.host_event.to_json() == entry.event
        assert encode(entry.host_event.to_json()) == encode(entry.event)


def test_a_parsed_event_is_frozen_and_holds_typed_values() -> None:
    beacon = next(e.host_event for e in _event_entries() if e.kind == "event:beacon")
    assert isinstance(beacon, events.Beacon)
    assert isinstance(beacon.beacon, bytes) and isinstance(beacon.contributions, tuple)
    assert all(m.type == "contribute" for m in beacon.messages)
    with pytest.raises(dataclasses.FrozenInstanceError):
        beacon.starter = 0  # type: ignore[misc]


def test_an_event_of_a_bad_shape_is_refused_where_it_is_parsed() -> None:
    with pytest.raises(RemoteError) as err:
        events.parse_event({"type": "absent", "round": 1, "seat": 9, "reason": "no_reply"})
    assert err.value.reason == Reason.SCHEMA


def test_host_acts_name_the_seats_they_act_for() -> None:
    assert events.Absent(round=1, seat=2, reason="no_reply").acted_for == (2,)
    assert events.Abort(round=1, attempt=1, missing=(0, 2), reason="commit_timeout").acted_for == (
        0,
        2,
    )
    assert events.GameOver(ranking=(0, 1), reason="finished").acted_for == ()
