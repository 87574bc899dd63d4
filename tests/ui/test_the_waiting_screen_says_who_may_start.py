"""The waiting screen says who it waits for and who may start (SPEC.md 3.3): the seated
players wait for the host once two are seated, the host is offered s, and every screen says
what an empty seat becomes at the start (left out, or a CPU)."""

from __future__ import annotations

from p2pdice.core.rules import Rules
from p2pdice.ui.screens import plain, render_table
from p2pdice.ui.viewmodel import (
    LATE_ARRIVAL,
    STATUS_WIDTH,
    SeatFacts,
    Snapshot,
    table_model,
)

CPU_LATER = "free: CPU at the start"


def _lobby(seated: int, *, most: int = 6, hosting: bool = False, cpu_fill: bool = False, **more):
    seats = tuple(SeatFacts(name=f"P{i}") for i in range(seated)) + (None,) * (most - seated)
    return table_model(
        Snapshot(
            table_name="Kitchen",
            seats=seats,
            phase="lobby",
            rules=Rules(seats=most),
            me=0,
            link="connected",
            hosting=hosting,
            cpu_fill=cpu_fill,
            **more,
        )
    )


def test_a_seated_player_waits_for_the_host_once_two_are_seated() -> None:
    model = _lobby(3)
    assert model.turn_line == "Waiting for the host to start: 3 seated; the host can start now."
    assert ("s", "start") not in model.keys


def test_a_lone_player_waits_for_a_second() -> None:
    assert _lobby(1).turn_line == "Waiting for players: 1 seated of up to 6; a game needs 2."


def test_the_host_is_offered_the_start_key() -> None:
    model = _lobby(2, hosting=True)
    assert model.turn_line == "2 seated of up to 6: press s to start, or wait for more."
    assert ("s", "start") in model.keys


def test_every_screen_says_what_an_empty_seat_becomes() -> None:
    left_out = _lobby(2)
    filled = _lobby(2, cpu_fill=True)
    assert [row.status for row in left_out.seats[2:]] == ["free: left out"] * 4
    assert [row.status for row in filled.seats[2:]] == [CPU_LATER] * 4


def test_what_an_empty_seat_becomes_is_whole_at_eighty_columns() -> None:
    for model, said in ((_lobby(2), "free: left out"), (_lobby(2, cpu_fill=True), CPU_LATER)):
        screen = plain(render_table(model, columns=80, height=24))
        assert screen.count(f" {said}") == 4, screen
        assert "~" not in screen, screen


def test_the_seats_kept_for_the_host_s_cpus_are_the_next_ones_and_count_as_taken() -> None:
    """The host's --cpu CPUs sit down at the start, after the people: the waiting screen
    keeps the next empty seats for them (as the start would seat them now), counts them,
    and on the host's own screen names each CPU's level and the fill CPUs' levels."""
    player = _lobby(2, host_cpu=2)
    assert [row.status for row in player.seats[2:]] == ["kept for a host CPU"] * 2 + [
        "free: left out"
    ] * 2
    assert player.turn_line.startswith("Waiting for the host to start: 4 seated")
    host = _lobby(
        2,
        host_cpu=2,
        hosting=True,
        cpu_fill=True,
        cpu_levels=("easy", "hard"),
        fill_levels=("medium", "never-calls"),
    )
    assert [row.status for row in host.seats[2:]] == [
        "kept: CPU easy", "kept: CPU hard", "at start: CPU medium", "at start: never-calls",
    ]  # fmt: skip
    assert all(len(row.status) <= STATUS_WIDTH for row in host.seats)


def test_lines_fit_eighty_columns() -> None:
    for model in (_lobby(1), _lobby(5), _lobby(5, hosting=True)):
        assert len(model.turn_line) <= 78, model.turn_line


def test_a_player_who_arrives_after_the_start_is_told_they_are_watching() -> None:
    late = table_model(
        Snapshot(
            table_name="Kitchen",
            seats=(SeatFacts(name="Ann"), SeatFacts(name="Bea")),
            phase="between",
            rules=Rules(seats=2),
            me=None,
            link="connected",
        )
    )
    assert late.hand_label == LATE_ARRIVAL
    assert "started before you sat down" in LATE_ARRIVAL and len(LATE_ARRIVAL) <= 78
