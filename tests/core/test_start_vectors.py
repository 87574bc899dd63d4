"""protocol/vectors/v1/start.json through the transcript replayer: the seats that play and
round 1's starter are fixed by the start entry, and a start SPEC.md 3.3 refuses is refused
with the vector's code."""

from __future__ import annotations

import pytest

from p2pdice.core.errors import RemoteError
from p2pdice.core.table import Replayer
from p2pdice.core.transcript import parse_entry
from tests.support.vectors import cases

VALID = [t for g, t in cases("start.json") if g["type"] == "valid"]
INVALID = [t for g, t in cases("start.json") if g["type"] == "invalid"]


@pytest.mark.parametrize("test", VALID, ids=[f"tc{t['tc_id']}" for t in VALID])
def test_an_accepted_start_fixes_the_seats_that_play(test: dict) -> None:
    replayer = Replayer()
    for line in test["lines"]:
        replayer.feed(parse_entry(line.encode("utf-8")))
    state = replayer.state
    assert state is not None and state.start_seq == test["index"]
    assert state.rules.seats == test["seats_after_start"]
    assert state.game is not None and len(state.game.dice) == test["seats_after_start"]
    assert [s.seat for s in state.roster if s.host_run] == test["host_run_seats"]
    # Who opens round 1 is fixed by the start too: a named seat, the host's, or drawn (None).
    assert state.game.starter == test["round1_starter"]


@pytest.mark.parametrize("test", INVALID, ids=[f"tc{t['tc_id']}" for t in INVALID])
def test_a_refused_start_fails_at_its_line_with_its_code(test: dict) -> None:
    replayer = Replayer()
    for index, line in enumerate(test["lines"]):
        try:
            replayer.feed(parse_entry(line.encode("utf-8")))
        except RemoteError as err:
            assert (err.reason, index) == (test["reason"], test["index"])
            return
    raise AssertionError("every line was accepted")
