"""The CFR+ solver reproduces known game values; hard's 1-die endgame table is near equilibrium."""

from __future__ import annotations

import pytest

from p2pdice.bots.cfr import (
    ENDGAME_MODES,
    exploitability,
    ours,
    p2pdice_game,
    plain_game,
    solve,
    table_policy,
)
from p2pdice.bots.endgame import TABLES


@pytest.mark.parametrize(("sides", "value"), [(3, -1 / 9), (4, -1 / 8)])
def test_solver_reproduces_the_known_no_wild_values(sides: int, value: float) -> None:
    # Values of the 1-die-each game without wilds (as tabulated by thomasahle/snyd).
    _, got, gap = solve(plain_game(sides), 150)
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
    assert exploitability(game, table_policy(game, table)) <= 0.05


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "value"), [("natural", -1 / 9)])
def test_our_natural_1_die_game_has_the_no_wild_value(mode: str, value: float) -> None:
    _, got, gap = solve(p2pdice_game(ours(mode)), 300)
    assert abs(got - value) < 2 * gap + 1e-3
