"""The tournament runner and its command: seating, intervals, JSON shape, errors, strength."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from p2pdice.bots.tournament import run_tournament, seating, wilson_interval
from p2pdice.cli import tournament as cmd_tournament
from p2pdice.cli.options import CliError
from p2pdice.core.game import Action, Challenge, PlaceBid
from p2pdice.core.rules import preset
from p2pdice.core.view import SeatView


class OpenLowThenCall:
    """A third-party bot as a class with `decide`: opens at the lowest bid, then always calls."""

    def decide(self, view: SeatView, rng: random.Random) -> Action:
        assert view.seat is not None
        if view.standing_bid is None:
            return PlaceBid(view.seat, view.legal_bids()[0])
        return Challenge(view.seat)


def broken_bot(view: SeatView, rng: random.Random) -> Action:
    raise RuntimeError("this bot always fails")


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    parser = argparse.ArgumentParser()
    cmd_tournament.add_parser(parser.add_subparsers())
    args = parser.parse_args(["tournament", *argv])
    assert args.run(args) == 0
    return capsys.readouterr().out


def test_seats_rotate_so_every_bot_sits_everywhere() -> None:
    names = ["hard", "medium", "medium", "easy"]
    tables = [seating(names, g) for g in range(4)]
    assert [t[0] for t in tables] == ["hard", "easy", "medium", "medium"]
    for t in tables:
        assert sorted(t) == sorted(names)
    for seat in range(4):
        assert {t[seat] for t in tables} == set(names)


def test_wilson_interval_brackets_the_rate() -> None:
    lo, hi = wilson_interval(600, 1000)
    assert 0.569 < lo < 0.570 and 0.629 < hi < 0.630
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def test_json_shape_reports_a_repeated_bot_once(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(["--bots", "medium,easy,easy", "--games", "30", "--seed", "1", "--json"], capsys)
    data = json.loads(out)
    assert set(data) == {"games", "games_per_second", "rounds", "bots"}
    assert data["games"] == 30 and data["games_per_second"] > 0
    assert set(data["bots"]) == {"medium", "easy"}
    for entry in data["bots"].values():
        assert set(entry) == {"win_rate", "ci95", "mean_place", "seats", "faults"}
        lo, hi = entry["ci95"]
        assert 0 <= lo <= entry["win_rate"] <= hi <= 1
        assert 1 <= entry["mean_place"] <= 3
    # Win rates are per seat-game: one medium seat plus two easy seats share 30 wins.
    wins = data["bots"]["medium"]["win_rate"] * 30 + data["bots"]["easy"]["win_rate"] * 60
    assert round(wins) == 30


def test_text_output_and_module_callable_bots(capsys: pytest.CaptureFixture[str]) -> None:
    out = _run(
        [
            "--bots",
            "medium,tests.bots.test_tournament:OpenLowThenCall",
            "--games",
            "20",
            "--preset",
            "perudo",
        ],
        capsys,
    )
    assert "tests.bots.test_tournament:OpenLowThenCall" in out
    assert "95% interval" in out and "games/s" in out


def test_a_failing_bot_plays_blind_and_its_faults_are_counted() -> None:
    result = run_tournament(
        preset("classic", seats=2),
        ["medium", "tests.bots.test_tournament:broken_bot"],
        games=10,
        seed=0,
    )
    assert result.tallies["tests.bots.test_tournament:broken_bot"].faults > 0
    assert result.tallies["medium"].faults == 0


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--bots", "medium"], "2 to 6"),
        (["--bots", "medium,nobody"], "unknown bot 'nobody'"),
        (["--bots", "medium,no.such.module:bot"], "cannot load bot"),
        (["--bots", "medium,easy", "--games", "0"], "--games"),
        (["--bots", "medium,easy", "--jobs", "0"], "--jobs"),
        (["--bots", "medium,easy", "--seats", "4"], "--seats"),
        (["--bots", "medium,easy", "--starting-dice", "9"], "--starting-dice"),
    ],
)
def test_user_errors_are_one_line(argv: list[str], message: str) -> None:
    parser = argparse.ArgumentParser()
    cmd_tournament.add_parser(parser.add_subparsers())
    args = parser.parse_args(["tournament", *argv])
    with pytest.raises(CliError, match=message) as err:
        args.run(args)
    assert "\n" not in str(err.value)


def test_hard_beats_easy_by_a_wide_margin() -> None:
    """A few hundred games: hard wins about nine in ten heads-up, half of four-seat tables."""
    heads_up = run_tournament(preset("classic", seats=2), ["hard", "easy"], games=300, seed=11)
    lo, _ = heads_up.tallies["hard"].ci95()
    assert lo > 0.75, heads_up.to_json()
    table = run_tournament(
        preset("perudo", seats=4), ["hard", "easy", "easy", "easy"], games=100, seed=11
    )
    lo, _ = table.tallies["hard"].ci95()
    assert lo > 0.45, table.to_json()
