"""Every option of every command that has a default says it in --help, read from the option's
one definition (argparse's default, or core.rules for the table options)."""

from __future__ import annotations

import argparse

import pytest

from p2pdice.cli import build_parser
from p2pdice.core.rules import MAX_SEATS, OPTION_BY_KEY


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _has_a_default(action: argparse.Action) -> bool:
    """An option whose default is a value (not "absent" or "off")."""
    if action.help == argparse.SUPPRESS or not action.option_strings:
        return False
    return action.default not in (None, False, argparse.SUPPRESS)


def _help_after(text: str, flag: str) -> str:
    """The help text from `flag`'s own line to the next option's line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith(flag))
    rest = [lines[start]]
    for line in lines[start + 1 :]:
        if line.lstrip().startswith("-") or not line.startswith(" "):
            break
        rest.append(line)
    return " ".join(" ".join(rest).split())


@pytest.mark.parametrize("command", sorted(_commands()))
def test_every_option_with_a_default_states_it(command: str) -> None:
    parser = _commands()[command]
    text = parser.format_help()
    for action in parser._actions:
        rules_option = OPTION_BY_KEY.get(action.dest)
        if rules_option is not None and action.help != argparse.SUPPRESS:
            expected = rules_option.shown(rules_option.default) if rules_option.is_bool else None
        elif _has_a_default(action):
            expected = None
        else:
            continue
        line = _help_after(text, action.option_strings[0])
        assert "(default" in line, (command, action.option_strings)
        if expected is not None:
            assert "(default " in line and line.count("(default") == 1, line


@pytest.mark.parametrize(
    ("command", "flag", "default"),
    [
        ("host", "--seats", str(MAX_SEATS)),  # a host opens for up to six
        ("host", "--turn-timer", "0"),
        ("host", "--grace-period", "30"),
        ("host", "--exact-call", "off"),
        ("host", "--name", "p2pdice table"),
        ("join", "--give-up", "120"),
        ("simulate", "--bots", "medium"),
    ],
)
def test_the_defaults_people_asked_about_are_shown(command: str, flag: str, default: str) -> None:
    line = _help_after(_commands()[command].format_help(), flag)
    assert f"(default {default})" in line, line
