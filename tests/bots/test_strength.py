"""The strength targets of docs/bots.md, at full size (2,000 games each). Slow: opt in.

Runs only with `--run-slow` (about a minute on two cores); the quick check that `hard` beats
`easy` is in test_tournament.py.
"""

from __future__ import annotations

import pytest

from p2pdice.bots.tournament import run_tournament
from p2pdice.core.rules import preset

MODES = {
    "classic": preset("classic"),
    "perudo": preset("perudo"),
    "natural": preset("classic", ones="natural"),
}
TARGETS = [
    (("hard", "medium"), 0.60),
    (("medium", "easy"), 0.65),
    (("hard", "medium", "medium", "medium"), 0.40),
]


@pytest.fixture(autouse=True)
def _only_when_asked(request: pytest.FixtureRequest) -> None:
    if not request.config.getoption("--run-slow", default=False):
        pytest.skip("slow: give --run-slow")


@pytest.mark.slow
@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize(
    ("bots", "target"), TARGETS, ids=lambda v: ",".join(v) if isinstance(v, tuple) else str(v)
)
def test_strength_target(mode: str, bots: tuple[str, ...], target: float) -> None:
    rules = MODES[mode].with_options(seats=len(bots))
    result = run_tournament(rules, bots, games=2000, seed=1, jobs=2)
    lo, _ = result.tallies[bots[0]].ci95()
    assert lo >= target, result.to_json()
