"""One honestly played game, built once per test session and shared by the tests that only
read its log (they forge entries against it, never change it)."""

from __future__ import annotations

import random
from functools import cache

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import FirstStarter, Rules


@cache
def honest_game() -> LocalTable:
    """Three easy bots play one seeded game to its end: the same log on every run."""
    rules = Rules(seats=3, starting_dice=2, first_starter=FirstStarter.SEAT0)
    lt = LocalTable(rules, [load_bot("easy")] * 3, rng=random.Random(11))
    lt.seat_everyone()
    lt.play(max_rounds=40)
    return lt
