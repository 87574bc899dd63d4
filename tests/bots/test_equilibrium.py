"""The CFR+ solver reproduces known game values; hard's 1-die endgame table is near equilibrium."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from benchmarks.equilibrium import bot_policy
from p2pdice.bots.cfr import (
    ENDGAME_MODES,
    exploitability,
    ours,
    p2pdice_game,
    plain_game,
    solve,
    table_key,
    table_policy,
)
from p2pdice.bots.endgame import TABLES
from p2pdice.bots.hard import hard, hard_policy
from p2pdice.core.bids import Bid
from p2pdice.core.game import PlacedBid
from p2pdice.core.rules import preset
from tests.support.views import bidding_view


@pytest.mark.parametrize(("sides", "value", "iterations"), [(3, -1 / 9, 150), (4, -1 / 8, 60)])
def test_solver_reproduces_the_known_no_wild_values(
    sides: int, value: float, iterations: int
) -> None:
    # Values of the 1-die-each game without wilds (as tabulated by thomasahle/snyd).
    _, got, gap = solve(plain_game(sides), iterations)
    assert gap < 0.005
    assert abs(got - value) < 2 * gap + 1e-3


def test_a_few_iterations_are_far_from_equilibrium_and_more_get_closer() -> None:
    _, _, early = solve(plain_game(3), 2)
    _, _, late = solve(plain_game(3), 60)
    assert early > 0.05 > late


@pytest.mark.parametrize("mode", ENDGAME_MODES)
def test_hards_endgame_table_is_barely_exploitable(mode: str) -> None:
    game = p2pdice_game(ours(mode))
    table = TABLES[ours(mode).ones.value]
    assert exploitability(game, table_policy(game, table)) <= 0.01


@pytest.mark.parametrize("mode", ["classic", pytest.param("natural", marks=pytest.mark.slow)])
def test_hard_itself_is_barely_exploitable_in_the_1_die_game(mode: str) -> None:
    # hard's own mixed move at every information set, through a real SeatView: its
    # heuristics alone are exploitable by 0.70 (classic) and 0.17 (natural) games per game.
    game = p2pdice_game(ours(mode))
    assert exploitability(game, bot_policy(game, ours(mode), hard_policy)) <= 0.05


def test_hard_plays_the_table_in_a_1_die_heads_up_round() -> None:
    rules = preset("classic", seats=2)
    view = bidding_view(rules, (4,), (1, 1), (PlacedBid(0, Bid(1, 3)),), seat=1, round_number=9)
    game = p2pdice_game(ours("classic"))
    index = game.bids.index(Bid(1, 3))
    expected = TABLES["wild"][table_key(1, 4, [index])]
    got = hard_policy(view)
    assert len(got) == len(expected)
    assert sum(chance for chance, _ in got) == pytest.approx(1.0)
    counts = Counter(hard(view, random.Random(seed)) for seed in range(300))
    assert set(counts) == {action for _, action in got}


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "value"), [("natural", -1 / 9)])
def test_our_natural_1_die_game_has_the_no_wild_value(mode: str, value: float) -> None:
    _, got, gap = solve(p2pdice_game(ours(mode)), 300)
    assert abs(got - value) < 2 * gap + 1e-3
