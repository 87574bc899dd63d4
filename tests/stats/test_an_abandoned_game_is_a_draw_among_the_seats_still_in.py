"""A game the host abandoned has no winner: the seats still in share first place, a draw,
and rate alike; the seat already knocked out places last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.rules import preset
from p2pdice.core.verify import verify_lines

from .tables import POOL, play_abandoned, save_home


def test_the_seats_still_in_share_first_place_and_rate_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = play_abandoned(5, preset("classic", seats=4, starting_dice=1), POOL)
    assert verify_lines(lines).ended == "abandoned"
    assert main(["stats", "--home", str(save_home(tmp_path, [lines], ["a"])), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    (group,) = body["groups"]
    places = {p["key"]: p["places"] for p in group["players"]}
    assert sorted(map(json.dumps, places.values())) == sorted(
        map(json.dumps, [{"1": 1}, {"1": 1}, {"1": 1}, {"4": 1}])
    )
    assert all(p["wins"] == 0 for p in group["players"])
    rating = {r["key"]: r["rating"] for r in body["ratings"]}
    tied = {rating[key] for key, place in places.items() if place == {"1": 1}}
    (out,) = (rating[key] for key, place in places.items() if place == {"4": 1})
    assert len(tied) == 1 and out < tied.pop()
