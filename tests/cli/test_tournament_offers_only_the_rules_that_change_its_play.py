"""`p2pdice tournament` offers only the rules options that change a game between bots on the
rules engine: no turn timer, time bank, grace period or undo (`Option.people_only`: they
matter only where people play by a clock), which it refuses as unknown flags, and its
`--first-starter` help does not speak of the host's own seat, which no tournament has (nor
any game `simulate` or `learn` plays). Before, its --help listed all of them. Every other
command that opens a table still offers every option."""

from __future__ import annotations

import argparse

import pytest

from p2pdice.cli import build_parser, main
from p2pdice.core.rules import OPTIONS


def _help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[command].format_help().split())


def test_the_options_people_only_are_the_clocks_and_undo() -> None:
    people_only = {o.key for o in OPTIONS if o.people_only}
    assert people_only == {"turn_timer", "time_bank", "grace_period", "undo"}


def test_tournament_help_lists_exactly_the_options_that_change_its_play() -> None:
    text = _help("tournament")
    for option in OPTIONS:
        if option.key == "seats":
            continue  # the number of bots listed: accepted to be checked, not offered
        offered = not option.hidden and not option.people_only
        assert (f"{option.flag} " in text) is offered, option.flag
    assert "host" not in text.replace("--bots", ""), text


@pytest.mark.parametrize(
    "flags", [["--turn-timer", "30"], ["--time-bank", "0"], ["--grace-period", "60"], ["--undo"]]
)
def test_tournament_refuses_a_clock_or_undo_in_one_line(
    flags: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["tournament", "--bots", "easy,easy", "--games", "1", *flags])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and err.count("\n") == 1
    assert f"unrecognized arguments: {' '.join(flags)}" in err


@pytest.mark.parametrize("command", ["tournament", "simulate"])
def test_first_starter_help_speaks_of_no_host_where_nobody_hosts(command: str) -> None:
    line = _help(command).split("--first-starter {", 2)[-1]
    assert "who opens round 1: drawn fairly, or a named seat (default random)" in line
    assert "host" not in line


@pytest.mark.parametrize("command", ["host", "practice", "pass-and-play", "simulate"])
def test_the_commands_that_open_tables_with_clocks_still_offer_every_option(command: str) -> None:
    text = _help(command)
    for option in OPTIONS:
        if not option.hidden:
            assert f"{option.flag} " in text or f"{option.flag}," in text, (command, option.flag)
    if command != "simulate":
        assert "drawn fairly, the host's own seat, or a named seat" in text
