"""`simulate --help` and `tournament --help` name, under --bots, every bot the registry takes
by name (the difficulties and every gauntlet style) and `module:callable`; the words come
from one place, the names the registry is built from. Before, `simulate --bots` said only
"easy, medium, hard or module:callable", though it took the gauntlet styles too."""

from __future__ import annotations

import argparse

import pytest

from p2pdice.bots import registry
from p2pdice.cli import build_parser


def _bots_help(command: str) -> str:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    [action] = [a for a in sub.choices[command]._actions if "--bots" in a.option_strings]
    return action.help or ""


@pytest.mark.parametrize("command", ["simulate", "tournament"])
def test_bots_help_names_every_bot_the_registry_takes(command: str) -> None:
    text = _bots_help(command)
    builtin = list(registry._BUILTIN)  # every name load_bot takes without a module
    assert len(builtin) > 3  # the difficulties and the gauntlet styles
    for name in builtin:
        registry.load_bot(name)
        assert name in text, (command, name)
    assert "module:callable" in text


def test_simulate_plays_a_gauntlet_style_its_help_names(capsys: pytest.CaptureFixture[str]) -> None:
    from p2pdice.cli import main

    style = next(n for n in registry._BUILTIN if n not in registry.BOT_NAMES)
    assert style in _bots_help("simulate")
    assert main(["simulate", "--games", "1", "--seats", "2", "--bots", f"{style},easy"]) == 0
    assert f"P0 ({style})" in capsys.readouterr().out
