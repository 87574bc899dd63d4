"""`--cpu` gives each CPU seat its own level: `2` (the default level), `1:easy,1:hard`, a
gauntlet style or `module:callable`; a bad part names the flag."""

from __future__ import annotations

import pytest

from p2pdice.bots.names import DEFAULT_LEVEL
from p2pdice.cli.options import CliError, parse_cpu_seats


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
