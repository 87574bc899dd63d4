"""A count and its noun agree: "1 game", "1 die", "1 win", never "1 games" or "1 dice"; in the
rules' summary, the help panel, `simulate`'s summary and `stats`' ratings."""

from __future__ import annotations

import re

import pytest

from p2pdice.cli import main
from p2pdice.cli.stats import human
from p2pdice.core.describe import amount
from p2pdice.core.rules import Rules
from p2pdice.ui.panels import render_help
from p2pdice.ui.screens import plain


def test_amount_is_singular_for_one_only() -> None:
    assert [amount(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert [amount(n, "die", "dice") for n in (1, 3)] == ["1 die", "3 dice"]


def test_one_starting_die_is_a_die() -> None:
    rules = Rules(seats=2, starting_dice=1)
    assert rules.summary().endswith("1 die") and "1 dice" not in rules.summary()
    helped = " ".join(plain(render_help(rules, height=60)).split())
    assert "2 seats, 1 die each." in helped and "1 dice" not in helped


def test_simulating_one_game_says_one_game(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", "1", "--seats", "2"]) == 0
    out = capsys.readouterr().out
    # "621 games/s" is a rate, not a count of one: only a lone 1 must not say "games"
    assert out.startswith("1 game, ") and not re.search(r"(?<![\d.])1 games\b", out)
    assert " 1 win (" in out and " 0 wins (" in out


def test_a_rating_after_one_game_says_one_game() -> None:
    rating = {"name": "Ann", "key": "ab" * 16, "kind": "human", "rating": 1.5,
              "provisional": True, "games": 1}  # fmt: skip
    text = human({"games": 1, "groups": [], "ratings": [rating], "skipped": []})
    assert "after 1 game" in text and "1 games" not in text
