"""A player's figures count only the moves its own key signed (docs/stats.md, "Moves made for
a player"): a blind move the host made for its seat (`forced`) and a CPU stand-in's bid or
call (signed by the stand-in's key) are counted for nobody, and said on the player's line.

protocol/examples/stalled.jsonl: P0 runs out of time on its first turn of round 1; the host
bids 1 x 2s for it (its own die is a 3: no support) and later calls "Liar!" for it on P2's
1 x 6s, rightly; from round 2 a CPU stand-in plays P0's seat, bids 1 x 2s, P1 calls and the
bid holds, and the stand-in wins the game for P0."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from p2pdice.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"
P0 = "e94f5d21ec20ed18ed0910cd2efb1ff47dbdcb19b40870088665d8c7160ce5bd"
P1 = "5bc4e1255a938d5bfea5fbcd818db8a2d356c969dc68d7d9667062bf1a3b1c9a"
P2 = "e3b1fbcdaade2403bda005da162ec923fbc9a2c40b3f5be0ab9a2dcb958da2cf"


def stats(home: Path, capsys: pytest.CaptureFixture[str], *names: str) -> dict[str, Any]:
    (home / "league").mkdir(parents=True)
    for name in names:
        shutil.copy(EXAMPLES / name, home / "league" / name)
    assert main(["stats", "--home", str(home), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def players(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {p["key"]: p for group in body["groups"] for p in group["players"]}


def test_the_hosts_forced_moves_and_the_stand_ins_moves_are_not_the_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = stats(tmp_path, capsys, "stalled.jsonl")
    assert body["skipped"] == []
    seen = players(body)
    p0, p1, p2 = seen[P0], seen[P1], seen[P2]
    # P0 made no move of its own: the host's call and bid, and the stand-in's bid, are not its.
    assert p0["calls"] == {"made": 0, "right": 0, "rate": None}
    assert p0["bids_called"] == {"called": 0, "held": 0, "rate": None}
    assert p0["bluffs"] == {"bids": 0, "known": 0, "bluffs": 0, "rate": None}
    assert p0["made_for_it"] == {"host": 2, "stand_in": 1}
    # Its one round of its own (round 1, no die lost); round 2 was the stand-in's.
    assert (p0["rounds"], p0["dice_lost"]) == (1, 0)
    # The seat's place is its player's, marked as played partly by a stand-in.
    assert (p0["games"], p0["wins"], p0["places"], p0["stand_in_games"]) == (1, 1, {"1": 1}, 1)
    assert p0["head_to_head"] == {}
    # P1's own call on the stand-in's bid is P1's; the bid it called is nobody's.
    assert p1["calls"]["made"] == 1 and p1["calls"]["right"] == 0
    assert p1["made_for_it"] == {"host": 0, "stand_in": 0}
    # P2's own bid, called by the host for P0, is still a bid of P2's that was called.
    assert p2["bids_called"] == {"called": 1, "held": 0, "rate": 0.0}
    # P1 and P2 played their seats themselves: they compare with each other, not with P0.
    assert set(p1["head_to_head"]) == {P2} and set(p2["head_to_head"]) == {P1}


def test_the_record_says_plainly_what_was_played_for_a_player(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "league").mkdir()
    shutil.copy(EXAMPLES / "stalled.jsonl", tmp_path / "league" / "stalled.jsonl")
    assert main(["stats", "--home", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    line = next(n for n, row in enumerate(text.splitlines()) if f"[{P0[:8]}]" in row)
    mine = text.splitlines()[line : line + 3]
    assert "Liar calls 0 (- right)" in mine[0] and "bluffs 0 of 0 known bids" in mine[0]
    assert mine[1].strip() == (
        "1 game played partly by a CPU stand-in: its place counted above, not rated, "
        "no head to head"
    )
    assert mine[2].strip() == (
        "3 moves made for it, in none of its figures: 2 by the host, 1 by a CPU stand-in"
    )


@pytest.mark.parametrize("name", ["faults-1.jsonl", "faults-2.jsonl"])
def test_every_forced_move_of_a_fault_log_is_counted_as_made_for_its_seat(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = [json.loads(line) for line in (EXAMPLES / name).read_bytes().splitlines()]
    forced: Counter[str] = Counter()
    roster: dict[int, str] = {}
    for entry in entries:
        event = entry.get("event", {})
        if event.get("type") == "start":
            roster = {seat["seat"]: seat["key"] for seat in event["roster"]}
        elif event.get("type") == "forced" and event["action"]["type"] in ("bid", "challenge"):
            forced[roster[event["seat"]]] += 1
    stood_in = {e["event"]["seat"] for e in entries if e.get("event", {}).get("type") == "stand_in"}
    body = stats(tmp_path, capsys, name)
    seen = players(body)
    assert {
        key: p["made_for_it"]["host"] for key, p in seen.items() if p["made_for_it"]["host"]
    } == (dict(forced))
    marked = {key for key, p in seen.items() if p["stand_in_games"]}
    assert marked == {roster[seat] for seat in stood_in}
    assert all(seen[key]["made_for_it"]["stand_in"] > 0 for key in marked)
