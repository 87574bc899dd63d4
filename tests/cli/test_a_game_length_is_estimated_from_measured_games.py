"""The host form and `host --help` say how long a game takes ("5 dice, 4 players: about
8-13 min"), from rounds and turns measured in simulated games (bots/pace_table.py, made by
`python -m p2pdice.bots.pace`) at a stated pace; the committed table agrees with a fresh
quick measurement."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from p2pdice.bots.estimate import ROUND_SECONDS, TURN_SECONDS, how_long, minutes
from p2pdice.bots.pace import measure
from p2pdice.bots.pace_table import PACE
from p2pdice.cli import build_parser
from p2pdice.core.rules import SEATS_RANGE, STARTING_DICE_RANGE, Rules
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.panels import render_confirm, render_form
from p2pdice.ui.screens import plain


def test_the_table_has_every_seat_count_and_dice_count() -> None:
    assert set(PACE) == {(s, d) for s in SEATS_RANGE for d in STARTING_DICE_RANGE}


@pytest.mark.parametrize("cell", [(2, 5), (3, 2), (4, 5), (5, 3), (6, 5), (6, 1)])
def test_the_committed_table_matches_a_fresh_quick_measurement(cell: tuple[int, int]) -> None:
    seats, dice = cell
    fresh = measure(seats, dice, games=60, seed=99)  # not the table's seed
    saved = PACE[cell]
    assert fresh.rounds == pytest.approx(saved.rounds, rel=0.1)
    assert fresh.turns == pytest.approx(saved.turns, rel=0.15)


def test_the_estimate_is_the_measured_turns_at_the_stated_pace() -> None:
    pace = PACE[(4, 5)]
    low = (pace.turns_low * TURN_SECONDS[0] + pace.rounds * ROUND_SECONDS) / 60
    high = (pace.turns_high * TURN_SECONDS[1] + pace.rounds * ROUND_SECONDS) / 60
    assert minutes(Rules(seats=4)) == (round(low), round(high))
    assert how_long(Rules(seats=4)) == f"5 dice, 4 players: about {round(low)}-{round(high)} min"


def test_more_players_or_dice_take_longer() -> None:
    for dice in STARTING_DICE_RANGE:
        lengths = [minutes(Rules(seats=s, starting_dice=dice))[1] for s in SEATS_RANGE]
        assert lengths == sorted(lengths)
    assert minutes(Rules(seats=6))[0] > minutes(Rules(seats=6, starting_dice=1))[1]


def test_cpu_seats_that_answer_quickly_shorten_the_estimate() -> None:
    assert minutes(Rules(seats=4), cpu=3, cpu_think=1.5)[1] < minutes(Rules(seats=4))[1]


def test_host_help_gives_the_estimate_for_each_seat_count() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    text = " ".join(sub.choices["host"].format_help().split())
    for seats in SEATS_RANGE:
        assert how_long(Rules(seats=seats)).split(", ", 1)[1] in text
    assert f"{int(TURN_SECONDS[0])}-{int(TURN_SECONDS[1])} s a turn" in text


def test_the_host_form_shows_the_estimate_of_its_rules() -> None:
    form = HostForm()
    form.set("seats", 6)
    form.set("starting_dice", 3)
    rules = form.rules()
    expected = how_long(rules)
    assert expected.startswith("3 dice, 6 players: about ")
    assert expected in " ".join(plain(render_form(form, height=40)).split())
    assert expected in " ".join(plain(render_confirm(form, rules, height=40)).split())


def test_the_committed_table_is_the_generators_output() -> None:
    from p2pdice.bots import pace_table
    from p2pdice.bots.pace import table_source

    made = table_source(PACE, games=pace_table.GAMES, seed=pace_table.SEED)
    committed = Path(pace_table.__file__).read_text(encoding="utf-8")
    assert committed == made  # not edited by hand
