"""Verify checks an entry's shape before its place in the chain: a malformed entry is SCHEMA
even when its seq, prev and signature are wrong too (SPEC.md 9 step 1). One of the
clarifications an independent implementer of SPEC.md asked for; the rule itself is written in
protocol/SPEC.md."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.errors import Reason
from p2pdice.core.events import make_event
from p2pdice.core.rules import Rules
from p2pdice.core.verify import verify_lines

EASY = load_bot("easy")


def test_a_schema_error_comes_before_the_chain_checks() -> None:
    """SPEC.md 9 step 1: an entry of the wrong shape is SCHEMA even when its seq, prev and
    signature are wrong too; a non-commit message inside commit_set is a shape error."""
    from p2pdice.core.codec import decode, encode

    rules = Rules(seats=2, starting_dice=1, first_starter="seat0")
    lt = LocalTable(rules, [EASY] * 2, rng=random.Random(3))
    lt.seat_everyone()
    lt.play(max_rounds=30)
    lines = lt.host.lines()
    index = next(
        i for i, e in enumerate(lt.host.entries) if e.event and e.event["type"] == "commit_set"
    )
    entry = decode(lines[index])
    bid_like = decode(lines[index])["event"]["commits"][0]
    bid_like["body"] = {**bid_like["body"], "type": "bid"}
    entry["event"]["commits"][0] = bid_like
    entry["seq"] += 5  # also out of sequence, and the host signature no longer matches
    report = verify_lines([*lines[:index], encode(entry)], partial=True)
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (index, Reason.SCHEMA)
    with pytest.raises(Exception) as err:
        make_event("commit_set", round=1, attempt=1, commits=[bid_like])
    assert getattr(err.value, "reason", None) == Reason.SCHEMA
