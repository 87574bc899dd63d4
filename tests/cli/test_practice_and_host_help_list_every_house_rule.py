"""`p2pdice host --help`, `practice --help` and `pass-and-play --help` list each house rule
(issue 27) with its values and its default, as the rules object defines them."""

from __future__ import annotations

import argparse

import pytest

from p2pdice.cli import build_parser
from p2pdice.core.rules import OPTION_BY_KEY

HOUSE_RULES = ("palifico_kind", "exact_reward", "challenge_penalty")


def command_help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return " ".join(sub.choices[command].format_help().split())


@pytest.mark.parametrize("command", ["host", "practice", "pass-and-play"])
def test_each_house_rule_is_in_the_commands_help_with_its_values_and_default(command: str) -> None:
    text = command_help(command)
    for key in HOUSE_RULES:
        option = OPTION_BY_KEY[key]
        usage = f"[{option.flag} {{{','.join(option.values)}}}]"
        assert usage in text, (command, usage)
        described = text.split(f"{option.flag} {{", 2)[-1]
        assert option.help in described and f"(default {option.default})" in described
