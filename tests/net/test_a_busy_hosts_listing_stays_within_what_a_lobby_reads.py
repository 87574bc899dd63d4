"""A host's `GET /tables` names each table's seated players, but never at the price of an
answer a lobby refuses: with hundreds of full tables of long names, the rows past a budget
leave their `players` out and the whole answer stays within LISTING_BYTES."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from p2pdice.core.rules import MAX_SEATS, Rules
from p2pdice.net.hostapp import PLAYERS_BUDGET, within_players_budget
from p2pdice.net.resolve import LISTING_BYTES, LISTING_ROWS
from tests.support.vectors import PROTOCOL
from tests.support.wire import hosted

WIDE_NAME = "\u00e9" * 24  #: 24 characters, each escaped to six bytes in the JSON answer


async def test_hundreds_of_full_tables_list_their_players_only_within_the_budget(
    tmp_path: Path,
) -> None:
    cpus = ["easy"] * MAX_SEATS
    async with hosted(tmp_path, rules=Rules(seats=MAX_SEATS), cpu=cpus, name="K" * 24) as (_, t):
        row = t.summary()
    assert len(row["players"]) == MAX_SEATS
    row["players"] = [{**p, "name": WIDE_NAME} for p in row["players"]]
    rows = [copy.deepcopy(row) for _ in range(LISTING_ROWS)]
    assert len(json.dumps(rows)) > LISTING_BYTES  # unbudgeted, a lobby would refuse it
    listed = within_players_budget(rows)
    assert len(json.dumps(listed)) <= LISTING_BYTES
    named = [r for r in listed if "players" in r]
    assert named == listed[: len(named)] and len(named) >= 32  # the first tables keep theirs
    assert all(r["players"] == row["players"] for r in named)


async def test_a_few_tables_all_list_their_players(tmp_path: Path) -> None:
    async with hosted(tmp_path, rules=Rules(seats=2), cpu=["easy"] * 2) as (_, t):
        rows = [t.summary() for _ in range(10)]
    assert all(len(r["players"]) == 2 for r in within_players_budget(copy.deepcopy(rows)))


def test_the_spec_states_the_hosts_players_budget() -> None:
    spec = " ".join((PROTOCOL / "SPEC.md").read_text(encoding="utf-8").split())
    assert f"until the lists come to {PLAYERS_BUDGET // 1024} KiB of JSON" in spec
