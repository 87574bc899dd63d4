"""`--cpu` gives each CPU seat its own level: `2` (the default level), `1:easy,1:hard`, a
gauntlet style or `module:callable`; `--fill-cpu easy,hard` gives the CPUs that fill the empty
seats theirs, in seat order; a bad part names the flag, and every command's --help shows the
comma list."""

from __future__ import annotations

import pytest

from p2pdice.bots.names import DEFAULT_LEVEL
from p2pdice.cli import build_parser
from p2pdice.cli.options import CliError, parse_cpu_seats, parse_fill_levels


def test_a_comma_list_gives_each_seat_its_level() -> None:
    assert parse_cpu_seats("1:easy,2:hard") == ["easy", "hard", "hard"]
    assert parse_cpu_seats("2") == [DEFAULT_LEVEL] * 2
    assert parse_cpu_seats("1:never-calls, 1") == ["never-calls", DEFAULT_LEVEL]
    assert parse_cpu_seats(None) == []


def test_a_bad_part_or_too_many_seats_names_the_flag() -> None:
    with pytest.raises(CliError, match="--cpu"):
        parse_cpu_seats("1:easy,1:nobody")
    with pytest.raises(CliError, match="--cpu: 4 CPU seats, and the table has 3"):
        parse_cpu_seats("2:easy,2:hard", seats=3)


def test_fill_cpu_takes_a_level_or_a_comma_list_in_seat_order() -> None:
    assert parse_fill_levels(None) is None  # empty seats left out
    assert parse_fill_levels("hard") == ["hard"]
    assert parse_fill_levels("easy, hard,never-calls") == ["easy", "hard", "never-calls"]
    with pytest.raises(CliError, match="--fill-cpu: unknown bot 'nobody'"):
        parse_fill_levels("easy,nobody")


def _help(command: str) -> str:
    import argparse

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[command].format_help().split())


@pytest.mark.parametrize("command", ["practice", "pass-and-play", "host"])
def test_each_command_s_help_shows_the_comma_list_of_levels(command: str) -> None:
    text = _help(command)
    assert "--cpu N[:LEVEL],..." in text and "1:easy," in text
    if command == "host":
        assert "--fill-cpu [LEVEL,...]" in text and "easy,hard" in text


@pytest.mark.parametrize("command", ["practice", "pass-and-play"])
def test_the_help_says_n_is_a_count_of_cpus_not_a_seat(command: str) -> None:
    """`1:easy,2:hard` reads like "seat 1 easy, seat 2 hard"; the help says what it seats."""
    text = _help(command)
    assert parse_cpu_seats("1:easy,2:hard") == ["easy", "hard", "hard"]
    assert "1:easy,2:hard (three CPUs: one easy, then two hard)" in text
