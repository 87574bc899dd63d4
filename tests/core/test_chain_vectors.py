"""protocol/vectors/v1/chain.json and comparison codes, through the transcript replayer."""

from __future__ import annotations

import pytest

from p2pdice.core.errors import RemoteError
from p2pdice.core.fairness import comparison_code
from p2pdice.core.table import Replayer
from p2pdice.core.transcript import is_equivocation, parse_entry
from tests.support.vectors import cases

VALID = [t for g, t in cases("chain.json") if g["type"] == "valid"]
INVALID = [t for g, t in cases("chain.json") if g["type"] == "invalid"]
EQUIVOCATION = [t for g, t in cases("chain.json") if g["type"] == "equivocation"]


def replay(lines: list[str]) -> Replayer:
    replayer = Replayer()
    for line in lines:
        replayer.feed(parse_entry(line.encode("utf-8")))
    return replayer


@pytest.mark.parametrize("test", VALID, ids=[f"tc{t['tc_id']}" for t in VALID])
def test_valid_chain(test: dict) -> None:
    replayer = replay(test["lines"])
    assert [h.hex() for h in replayer.chain.hashes] == test["entry_hashes"]
    state = replayer.state
    assert state is not None and state.table_id.hex() == test["table_id"]
    assert state.start_seq is not None
    assert comparison_code(replayer.chain.hashes[state.start_seq]) == test["comparison_code"]


@pytest.mark.parametrize("test", INVALID, ids=[f"tc{t['tc_id']}" for t in INVALID])
def test_invalid_chain_fails_at_the_named_line(test: dict) -> None:
    replayer = Replayer()
    for index, line in enumerate(test["lines"]):
        try:
            replayer.feed(parse_entry(line.encode("utf-8")))
        except RemoteError as err:
            assert (index, err.reason) == (test["index"], test["reason"]), test["comment"]
            return
    pytest.fail(f"accepted: {test['comment']}")


@pytest.mark.parametrize("test", EQUIVOCATION, ids=[f"tc{t['tc_id']}" for t in EQUIVOCATION])
def test_equivocation(test: dict) -> None:
    a = parse_entry(test["entry_a"].encode())
    b = parse_entry(test["entry_b"].encode())
    table = bytes.fromhex(test["table_id"])
    assert is_equivocation(a, b, bytes.fromhex(test["host_public"]), table) == (
        test["result"] == "invalid"
    )
