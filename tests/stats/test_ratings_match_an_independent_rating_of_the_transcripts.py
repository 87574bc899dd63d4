"""The ratings `p2pdice stats --json` prints are what openskill gives, with the parameters
docs/stats.md writes down, fed the places read straight from each log's game-over entry in
the order of each start entry's hash (read from the next entry's `prev`, SPEC.md 4): the
test's own rating, sharing nothing with p2pdice.stats but the file format and the docs; a
seat a CPU stand-in played (a `stand_in` event names it) is left out of its game's rating.
And a finished game's change, as the table screens show it, is the ratings without it and
with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from p2pdice.cli import main
from p2pdice.cli.stats import ratings_book
from p2pdice.core.rules import preset

from .tables import POOL, league, play_with_a_leaver, save_home

DOCUMENTED = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "kappa": 0.0001, "tau": 25 / 300}


def rerate(transcripts: list[list[bytes]]) -> dict[str, tuple[float, int]]:
    """key -> (mu - 3 sigma, games), from the entries' JSON (every seat here is a person's)."""
    model = PlackettLuce(**DOCUMENTED, limit_sigma=False, balance=False)
    ordered = []
    for lines in transcripts:
        entries = [json.loads(line) for line in lines]
        start = next(i for i, e in enumerate(entries) if e.get("event", {}).get("type") == "start")
        keys = {
            e["msg"]["body"]["seat"]: e["msg"]["body"]["key"]
            for e in entries
            if e.get("msg", {}).get("body", {}).get("type") == "join"
        }
        stood_in = {
            e["event"]["seat"] for e in entries if e.get("event", {}).get("type") == "stand_in"
        }
        ranking = [seat for seat in entries[-1]["event"]["ranking"] if seat not in stood_in]
        if len(ranking) >= 2:
            ordered.append((entries[start + 1]["prev"], [keys[seat] for seat in ranking]))
    state: dict[str, tuple[float, float, int]] = {}
    for _, keys in sorted(ordered):
        order = sorted(keys)
        teams = [
            [model.create_rating(list(state.get(k, (25.0, 25 / 3, 0))[:2]), name=k)] for k in order
        ]
        after = model.rate(teams, ranks=[float(keys.index(k) + 1) for k in order])
        for k, (team,) in zip(order, after, strict=True):
            state[k] = (team.mu, team.sigma, state.get(k, (0, 0, 0))[2] + 1)
    return {k: (mu - 3 * sigma, n) for k, (mu, sigma, n) in state.items()}


def test_every_rating_matches_openskill_fed_the_logs_by_hand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = [
        *league(8),
        # the leaver's stand-in wins this one, and places 2nd in the other
        play_with_a_leaver(17, preset("classic", seats=4, starting_dice=2), POOL, 1),
        play_with_a_leaver(106, preset("perudo", seats=3, starting_dice=2), POOL[1:], 2),
    ]
    home = save_home(tmp_path, games, [f"t{n}" for n in range(len(games))])
    assert main(["stats", "--home", str(home), "--json"]) == 0
    ratings = json.loads(capsys.readouterr().out)["ratings"]
    expected = rerate(games)
    assert {r["key"]: (r["rating"], r["games"]) for r in ratings} == expected
    assert len(expected) == 4 and len({rating for rating, _ in expected.values()}) == 4


def test_a_finished_games_change_is_the_ratings_without_it_and_with_it(tmp_path: Path) -> None:
    games = league(6)
    home = save_home(tmp_path / "all", games, [f"t{n}" for n in range(6)])
    table_id = _table_id(home, 5)
    with_it = ratings_book(home, table_id)
    without = save_home(tmp_path / "without", games[:5], [f"t{n}" for n in range(5)])
    before = ratings_book(without).figures
    change = with_it.changes[table_id]
    assert len(change) == 3  # the three keys that sat at that table
    for key, c in change.items():
        assert c.after == with_it.figures[key]
        assert c.before == before.get(key)
        assert c.before is not None and c.before.rating != c.after.rating


def _table_id(home: Path, number: int) -> str:
    from p2pdice.cli.stats import load_games

    games, _ = load_games(home)
    (game,) = [g for g in games if g.source.endswith(f"t{number}/log.jsonl")]
    return game.table_id
