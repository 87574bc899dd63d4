"""A player who leaves a game for good (`q`, `y`) has its seat played by a CPU stand-in: the
seat's place stays its player's, marked as played partly by a CPU stand-in, but it moves no
rating and compares with nobody head to head; the other seats are rated among themselves,
and the game-over screen says why the leaver's line shows no change (docs/stats.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pdice.cli import main
from p2pdice.cli.stats import load_games, ratings_book
from p2pdice.core.rules import preset
from p2pdice.ui.ratings import STOOD_IN_TEXT, change_text

from .tables import POOL, play_with_a_leaver, save_home


def roster_and_acts(lines: list[bytes]) -> tuple[list[str], list[dict[str, Any]]]:
    events = [json.loads(line).get("event") for line in lines]
    (start,) = [e for e in events if e is not None and e["type"] == "start"]
    return [seat["key"] for seat in start["roster"]], [e for e in events if e is not None]


def run_stats(home: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["stats", "--home", str(home), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_game_a_stand_in_won_for_a_player_who_left_keeps_its_place_and_rates_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Bob (seat 1) leaves on his turn in round 3; the host calls "Liar!" for him, wrongly,
    # and from round 4 a stand-in plays his seat and wins the game.
    lines = play_with_a_leaver(17, preset("classic", seats=4, starting_dice=2), POOL, 1)
    keys, events = roster_and_acts(lines)
    bob, others = keys[1], [keys[0], keys[2], keys[3]]
    assert [(e["type"], e["seat"]) for e in events if e["type"] in ("forced", "stand_in")] == [
        ("forced", 1),
        ("forced", 1),
        ("stand_in", 1),
    ]
    assert events[-1]["ranking"][0] == 1
    home = save_home(tmp_path, [lines], ["game"])
    body = run_stats(home, capsys)
    seen = {p["key"]: p for group in body["groups"] for p in group["players"]}

    # The place is the seat's, Bob's, and said to be partly a CPU's.
    assert (seen[bob]["wins"], seen[bob]["places"], seen[bob]["stand_in_games"]) == (1, {"1": 1}, 1)
    assert seen[bob]["calls"]["made"] == 0  # the host's wrong call was not his
    assert seen[bob]["made_for_it"]["host"] == 1 and seen[bob]["made_for_it"]["stand_in"] > 0
    # No head to head with Bob either way; the others compare among themselves.
    assert seen[bob]["head_to_head"] == {}
    for key in others:
        assert sorted(seen[key]["head_to_head"]) == sorted(k for k in others if k != key)
    # Bob is not rated; the three others are, by their places among themselves.
    rated = {r["key"]: r for r in body["ratings"]}
    assert sorted(rated) == sorted(others)
    assert all(r["games"] == 1 for r in rated.values())
    places = [events[-1]["ranking"].index(keys.index(key)) for key in others]
    by_rating = sorted(others, key=lambda key: -rated[key]["rating"])
    assert by_rating == [others[i] for i in sorted(range(3), key=lambda i: places[i])]

    # The game-over screen: a change for each rated player, and the reason for Bob.
    (game,), _ = load_games(home)
    changes = ratings_book(home, game.table_id).changes[game.table_id]
    assert sorted(changes) == sorted(keys)
    assert changes[bob].stood_in and change_text(changes[bob]) == STOOD_IN_TEXT
    assert all(change_text(changes[key]).startswith("first rating") for key in others)


def test_a_game_with_one_person_left_besides_the_stand_in_is_not_rated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Ann and Bob; Bob leaves and his stand-in beats Ann: a CPU beat a person, not Bob.
    lines = play_with_a_leaver(2, preset("classic", seats=2, starting_dice=2), POOL[:2], 1)
    keys, events = roster_and_acts(lines)
    assert events[-1]["ranking"] == [1, 0]
    assert any(e["type"] == "stand_in" for e in events)
    home = save_home(tmp_path, [lines], ["game"])
    body = run_stats(home, capsys)
    assert body["ratings"] == []
    seen = {p["key"]: p for group in body["groups"] for p in group["players"]}
    assert seen[keys[0]]["head_to_head"] == {} and seen[keys[1]]["head_to_head"] == {}
    (game,), _ = load_games(home)
    changes = ratings_book(home, game.table_id).changes[game.table_id]
    assert list(changes) == [keys[1]] and changes[keys[1]].stood_in
