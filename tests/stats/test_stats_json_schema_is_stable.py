"""The shape of `p2pdice stats --json` is fixed: every key of every object, and its schema
number; a change to it must change this test and the schema number together."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main

from .tables import league, save_home

TOP = {"schema", "games", "groups", "ratings", "provisional_until", "skipped"}
GROUP = {"kind", "preset", "players"}
PLAYER = {
    "key",
    "kind",
    "names",
    "games",
    "wins",
    "places",
    "stand_in_games",
    "made_for_it",
    "rounds",
    "dice_lost",
    "dice_lost_per_round",
    "calls",
    "bids_called",
    "bluffs",
    "exact_calls",
    "head_to_head",
}
RATE = {"rate"}
RATING = {"key", "kind", "name", "mu", "sigma", "rating", "games", "provisional", "history"}


def test_every_object_has_exactly_its_documented_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, league(2), ["a", "b"])
    (home / "hosted" / "bad").mkdir()
    (home / "hosted" / "bad" / "log.jsonl").write_bytes(b"{}\n")
    assert main(["stats", "--home", str(home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert set(body) == TOP and body["schema"] == 2
    for group in body["groups"]:
        assert set(group) == GROUP
        for player in group["players"]:
            assert set(player) == PLAYER
            assert set(player["calls"]) == {"made", "right"} | RATE
            assert set(player["bids_called"]) == {"called", "held"} | RATE
            assert set(player["bluffs"]) == {"bids", "known", "bluffs"} | RATE
            assert set(player["exact_calls"]) == {"made", "right"} | RATE
            assert set(player["made_for_it"]) == {"host", "stand_in"}
            for h2h in player["head_to_head"].values():
                assert set(h2h) == {"games", "ahead", "behind"}
    assert body["ratings"]
    for rating in body["ratings"]:
        assert set(rating) == RATING
        assert all(set(point) == {"table", "rating"} for point in rating["history"])
    assert [set(s) for s in body["skipped"]] == [{"file", "reason", "detail"}]
