"""A game whose last seats forfeited together has no winner: those seats share a place, a
draw, where the rules rank a forfeit (below every seat already out, RULES.md R6); neither is
ahead of the other head to head, and they rate alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.rules import preset
from p2pdice.core.verify import verify_lines

from .tables import POOL, play_to_no_survivor, save_home

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


def test_two_seats_that_forfeit_together_share_first_place(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    no_survivor = str(EXAMPLES / "no-survivor.jsonl")
    assert main(["stats", "--home", str(tmp_path), "--import", no_survivor, "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    for player in group["players"]:
        assert player["places"] == {"1": 1} and player["wins"] == 0
        (h2h,) = player["head_to_head"].values()
        assert h2h == {"games": 1, "ahead": 0, "behind": 0}


def test_the_last_seats_share_their_place_below_the_seat_already_out_and_rate_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = play_to_no_survivor(0, preset("classic", seats=3, starting_dice=1), POOL[:3])
    report = verify_lines(lines)
    assert report.ended == "abandoned"
    first, *last = report.ranking  # the seat knocked out first, then the two that forfeited
    keys = {s["seat"]: s["key"] for s in report.roster}
    assert main(["stats", "--home", str(save_home(tmp_path, [lines], ["a"])), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    (group,) = body["groups"]
    players = {p["key"]: p for p in group["players"]}
    assert players[keys[first]]["places"] == {"1": 1}
    assert [players[keys[seat]]["places"] for seat in last] == [{"2": 1}, {"2": 1}]
    assert all(p["wins"] == 0 for p in players.values())
    one, other = (keys[seat] for seat in last)
    assert players[one]["head_to_head"][other] == {"games": 1, "ahead": 0, "behind": 0}
    rating = {r["key"]: r["rating"] for r in body["ratings"]}
    assert rating[one] == rating[other] < rating[keys[first]]
