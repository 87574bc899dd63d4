"""hard against the exploit gauntlet (bots/styles.py): quick versions here, full size with --run-slow.

The full-size figures (2,000 games a line) and their targets are in docs/bots.md.
"""

from __future__ import annotations

import pytest

from p2pdice.bots.names import EXPLOIT_STYLE_NAMES as STYLE_NAMES
from p2pdice.bots.tournament import run_tournament
from p2pdice.core.rules import preset

MODES = {
    "classic": preset("classic"),
    "perudo": preset("perudo"),
    "natural": preset("classic", ones="natural"),
}


@pytest.mark.parametrize("style", STYLE_NAMES)
def test_hard_beats_each_style_heads_up_quick(style: str) -> None:
    result = run_tournament(
        MODES["classic"].with_options(seats=2), ["hard", style], games=80, seed=3
    )
    lo, _ = result.tallies["hard"].ci95()
    assert lo >= 0.7, result.to_json()


def test_hard_beats_three_never_callers_quick() -> None:
    bots = ["hard", "never-calls", "never-calls", "never-calls"]
    result = run_tournament(MODES["classic"].with_options(seats=4), bots, games=40, seed=3)
    lo, _ = result.tallies["hard"].ci95()
    assert lo >= 0.35, result.to_json()  # chance is 25%; the full-size target is 50%


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("style", STYLE_NAMES)
@pytest.mark.parametrize(("seats", "target"), [(2, 0.90), (4, 0.50)], ids=["heads-up", "four"])
def test_gauntlet_target(mode: str, style: str, seats: int, target: float) -> None:
    bots = ["hard"] + [style] * (seats - 1)
    result = run_tournament(MODES[mode].with_options(seats=seats), bots, games=2000, seed=1, jobs=2)
    rate = result.tallies["hard"].win_rate
    assert rate >= target, result.to_json()
