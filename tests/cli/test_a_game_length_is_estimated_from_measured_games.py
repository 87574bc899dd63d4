"""The host form, its review, the waiting screen and `host --help` say how long a game takes
("5 dice, 4 players: about 8-13 min"), from rounds and turns measured in simulated games
(bots/pace_table.py, made by `python -m p2pdice.bots.pace`) at a stated pace, for the rules
chosen: each option that changes a game's length moves the estimate as a fresh simulation of
it does. The committed table agrees with a fresh quick measurement."""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import pytest

from p2pdice.bots.estimate import ROUND_SECONDS, TURN_SECONDS, how_long, minutes, pace_of
from p2pdice.bots.pace import GROUPS, LENGTH_NEUTRAL, measure, play, variants, variants_of
from p2pdice.bots.pace_table import PACE, ROUNDS_FACTOR, TURNS_FACTOR
from p2pdice.cli import build_parser
from p2pdice.core.rules import OPTIONS, SEATS_RANGE, STARTING_DICE_RANGE, Rules, preset
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.panels import render_confirm, render_form
from p2pdice.ui.screens import plain
from p2pdice.ui.viewmodel import SeatFacts, Snapshot, table_model


def test_the_table_has_every_seat_count_and_dice_count() -> None:
    assert set(PACE) == {(s, d) for s in SEATS_RANGE for d in STARTING_DICE_RANGE}
    cells = {(name, seats) for name in variants() for seats in SEATS_RANGE}
    assert set(ROUNDS_FACTOR) == set(TURNS_FACTOR) == cells
    assert all(len(row) == len(STARTING_DICE_RANGE) for row in ROUNDS_FACTOR.values())
    assert all(len(row) == len(STARTING_DICE_RANGE) for row in TURNS_FACTOR.values())


def test_every_option_either_is_measured_or_changes_nothing_a_game_counts() -> None:
    measured = {key for group in GROUPS for key in group}
    assert measured.isdisjoint(LENGTH_NEUTRAL)
    assert {o.key for o in OPTIONS} == measured | LENGTH_NEUTRAL | {"seats", "starting_dice"}
    # Every value of a measured option is one variant (alone in its group), named so.
    for name, changes in variants().items():
        assert variants_of(Rules(**changes)) == (name,)
    for option in OPTIONS:
        if option.key in measured:
            for value in option.values:
                rules = Rules(**{option.key: value, "exact_call": True, "palifico": "fixed"})
                assert len(variants_of(rules)) >= 2  # its group's and the others'
    assert variants_of(Rules()) == ()
    # An option that plays no part is not counted: an exact reward without exact calls.
    assert variants_of(Rules(exact_reward="others-lose", palifico_kind="face-fixed")) == ()


@pytest.mark.parametrize("cell", [(2, 5), (3, 2), (4, 5), (5, 3), (6, 5), (6, 1)])
def test_the_committed_table_matches_a_fresh_quick_measurement(cell: tuple[int, int]) -> None:
    seats, dice = cell
    fresh = measure(seats, dice, games=60, seed=99)  # not the table's seed
    saved = PACE[cell]
    assert fresh.rounds == pytest.approx(saved.rounds, rel=0.1)
    assert fresh.turns == pytest.approx(saved.turns, rel=0.15)


def _fresh(rules: Rules, *, games: int) -> tuple[float, float]:
    """Mean rounds and turns of `games` fresh games (a seed the table was not made with)."""
    played = play(rules, games=games, seed=99)
    return (
        sum(r for r, _ in played) / len(played),
        sum(t for _, t in played) / len(played),
    )


def _moves_like_a_fresh_simulation(rules: Rules, *, games: int = 150) -> None:
    """The estimate's rounds and turns for `rules`, against the default's at the same seats
    and dice, change as much as fresh games of both do: the same way when the change is
    clear, and within a tenth of the default's either way (rough size)."""
    base = Rules(seats=rules.seats, starting_dice=rules.starting_dice)
    fresh_rules, fresh_base = _fresh(rules, games=games), _fresh(base, games=games)
    said, said_base = pace_of(rules), pace_of(base)
    for what, fresh, estimated in (
        ("rounds", fresh_rules[0] / fresh_base[0], said.rounds / said_base.rounds),
        ("turns", fresh_rules[1] / fresh_base[1], said.turns / said_base.turns),
    ):
        assert estimated == pytest.approx(fresh, abs=0.1), (what, rules.summary())
        if abs(fresh - 1) >= 0.1:
            assert (estimated > 1) == (fresh > 1), (what, rules.summary())


# Each variant where it matters: an exact call most with few dice, losing the difference
# most with many players, palifico where one-die rounds come often.
@pytest.mark.parametrize(
    ("name", "seats", "dice"),
    [
        ("ones=natural", 4, 4),
        ("ones=aces", 6, 3),
        ("challenge_penalty=difference", 6, 5),
        ("ones=natural,challenge_penalty=difference", 5, 5),
        ("ones=aces,challenge_penalty=difference", 4, 5),
        ("exact_call=true", 4, 2),
        ("exact_call=true,exact_reward=others-lose", 3, 2),
        ("palifico=fixed", 4, 2),
        ("palifico=fixed,palifico_kind=ones-not-wild", 4, 3),
        ("palifico=fixed,palifico_kind=face-fixed", 5, 2),
        ("palifico=free", 5, 2),
        ("palifico=free,palifico_kind=ones-not-wild", 3, 3),
        ("palifico=free,palifico_kind=face-fixed", 4, 2),
    ],
)
def test_each_option_moves_the_estimate_as_a_fresh_simulation_does(
    name: str, seats: int, dice: int
) -> None:
    rules = Rules(seats=seats, starting_dice=dice, **variants()[name])
    assert variants_of(rules) == (name,)
    _moves_like_a_fresh_simulation(rules)


@pytest.mark.parametrize(
    "rules",
    [
        preset("perudo", seats=4, starting_dice=5),
        preset("perudo", seats=3, starting_dice=3),
        Rules(seats=6, exact_call=True, exact_reward="others-lose", challenge_penalty="difference"),
        Rules(seats=4, ones="natural", exact_call=True, palifico="free"),
    ],
    ids=["perudo-4x5", "perudo-3x3", "others-lose-and-difference", "natural-exact-palifico"],
)
def test_options_of_several_groups_together_move_the_estimate_as_fresh_games_do(
    rules: Rules,
) -> None:
    assert len(variants_of(rules)) >= 2
    _moves_like_a_fresh_simulation(rules)


def test_losing_the_difference_shortens_a_big_table_s_game_in_minutes() -> None:
    default, difference = Rules(seats=6), Rules(seats=6, challenge_penalty="difference")
    assert minutes(difference)[1] < minutes(default)[1] * 0.8
    assert how_long(difference) != how_long(default)


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


def _host_help(*args: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        build_parser().parse_args(["host", *args])
    return " ".join(out.getvalue().split())


def test_host_help_gives_the_default_rules_estimate_for_each_seat_count() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for text in (" ".join(sub.choices["host"].format_help().split()), _host_help("--help")):
        for seats in SEATS_RANGE:
            assert how_long(Rules(seats=seats)).split(", ", 1)[1] in text
        assert f"{int(TURN_SECONDS[0])}-{int(TURN_SECONDS[1])} s a turn" in text
        assert "the default rules" in text and "the host form shows the estimate" in text


def test_host_help_estimates_the_rules_given_before_it() -> None:
    text = _host_help("--challenge-penalty", "difference", "--seats", "4", "--help")
    rules = Rules(seats=4, challenge_penalty="difference")
    assert f"with these rules ({rules.summary()})" in text
    for seats in (2, 3, 4):
        assert how_long(rules.with_options(seats=seats)).split(", ", 1)[1] in text
    assert "5 players" not in text
    assert how_long(Rules(seats=4)).split(", ", 1)[1] not in text  # not the default's
    # Rules that do not make a table: the default's estimate (the command says what is wrong).
    assert "the default rules" in _host_help("--seats", "9", "--help")


def test_the_host_form_and_its_review_show_the_estimate_of_its_rules() -> None:
    form = HostForm()
    form.set("seats", 6)
    form.set("starting_dice", 3)
    before = how_long(form.rules())
    form.set("challenge_penalty", "difference")
    rules = form.rules()
    expected = how_long(rules)
    assert expected.startswith("3 dice, 6 players: about ") and expected != before
    assert expected in " ".join(plain(render_form(form, height=40)).split())
    assert expected in " ".join(plain(render_confirm(form, rules, height=40)).split())


def _waiting(seated: int, **more: object) -> str:
    seats = tuple(SeatFacts(name=f"P{i}") for i in range(seated)) + (None,) * (6 - seated)
    snap = Snapshot(
        table_name="Kitchen",
        seats=seats,
        phase="lobby",
        rules=Rules(seats=6, challenge_penalty="difference", first_starter="seat5"),
        me=0,
        link="connected",
        **more,  # type: ignore[arg-type]
    )
    return table_model(snap).standing


def test_the_waiting_screen_estimates_the_game_of_the_party_that_is_there() -> None:
    rules = Rules(seats=6, challenge_penalty="difference")
    assert _waiting(3) == f"Length, started now: {how_long(rules.with_options(seats=3))}"
    # The host's CPUs still to sit down count; CPUs that fill every seat make it six.
    assert _waiting(2, host_cpu=2).endswith(how_long(rules.with_options(seats=4)))
    assert _waiting(2, cpu_fill=True).endswith(how_long(rules))
    assert _waiting(1) == f"Length, with 2 players: {how_long(rules.with_options(seats=2))}"


def test_the_committed_table_is_the_generators_output() -> None:
    from p2pdice.bots import pace_table
    from p2pdice.bots.pace import Measured, table_source

    measured = Measured(PACE, ROUNDS_FACTOR, TURNS_FACTOR)
    made = table_source(measured, games=pace_table.GAMES, seed=pace_table.SEED)
    committed = Path(pace_table.__file__).read_text(encoding="utf-8")
    assert committed == made  # not edited by hand
