"""Two data folders holding the same games under different names (so listed, read and
deduplicated in different orders) give the same ratings to the last digit; games with fewer
than two human keys are not rated, and CPU keys are rated apart from humans."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.rules import preset
from p2pdice.stats.games import DUPLICATE
from p2pdice.stats.ratings import PROVISIONAL_GAMES

from .tables import POOL, league, play_game, save_home


def stats_json(home: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> dict:
    assert main(["stats", "--home", str(home), "--json", *flags]) == 0
    return json.loads(capsys.readouterr().out)


def test_the_same_games_in_another_file_order_rate_to_the_last_digit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = league(8)
    forward = save_home(tmp_path / "a", games, [f"{n:02d}" for n in range(8)])
    # Reversed names, and one game held twice (a client's copy beside the host's log).
    backward = save_home(tmp_path / "b", games, [f"{7 - n:02d}" for n in range(8)])
    copy = backward / "tables" / "copy"
    copy.mkdir(parents=True)
    (copy / "transcript.jsonl").write_bytes((backward / "hosted" / "03" / "log.jsonl").read_bytes())
    first = stats_json(forward, capsys)["ratings"]
    second_body = stats_json(backward, capsys)
    assert json.dumps(first) == json.dumps(second_body["ratings"])
    assert [s["reason"] for s in second_body["skipped"]] == [DUPLICATE]
    assert len(first) == len(POOL) and len({r["rating"] for r in first}) == len(POOL)
    assert all(r["games"] == 6 and not r["provisional"] for r in first)
    assert all(len(r["history"]) == r["games"] for r in first)


def test_a_rating_is_provisional_until_enough_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = league(PROVISIONAL_GAMES + 1)  # some keys sit out two of them, some one
    names = [f"g{n}" for n in range(len(games))]
    ratings = stats_json(save_home(tmp_path, games, names), capsys)["ratings"]
    assert {r["games"] < PROVISIONAL_GAMES for r in ratings} == {True, False}
    assert all(r["provisional"] == (r["games"] < PROVISIONAL_GAMES) for r in ratings)


def test_cpu_only_and_practice_games_are_counted_apart_and_never_rated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = preset("classic", seats=2, starting_dice=1)
    cpu_game = play_game(1, rules, POOL[:2], humans=False)
    practice = play_game(2, rules.with_options(kind="practice"), POOL[:2])
    body = stats_json(save_home(tmp_path, [cpu_game, practice], ["cpu", "practice"]), capsys)
    assert body["ratings"] == []
    kinds = {(g["kind"], p["kind"]) for g in body["groups"] for p in g["players"]}
    assert kinds == {("standard", "cpu"), ("practice", "human")}
    omitted = stats_json(tmp_path, capsys, "--practice", "omit")
    assert [g["kind"] for g in omitted["groups"]] == ["standard"]


def test_a_cpu_the_host_runs_is_rated_as_its_own_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = preset("classic", seats=3, starting_dice=1)
    games = [play_game(n, rules, POOL[:3], host_run=1) for n in range(3)]
    body = stats_json(save_home(tmp_path, games, ["a", "b", "c"]), capsys)
    kinds = {r["key"]: r["kind"] for r in body["ratings"]}
    assert sorted(kinds.values()) == ["host_run", "human", "human"]
    (group,) = body["groups"]
    players = {p["key"]: p for p in group["players"]}
    cpu = next(key for key, kind in kinds.items() if kind == "host_run")
    assert players[cpu]["kind"] == "host_run" and players[cpu]["games"] == 3
    assert all(p["games"] == 3 for p in players.values())
