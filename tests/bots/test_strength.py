"""The strength targets of docs/bots.md, at full size (2,000 games each). Slow: opt in.

Runs only with `--run-slow` (a few minutes on two cores); the quick check that `hard` beats
`easy` is in test_tournament.py, and small runs under each house rule are in
test_hard_house_rules.py.
"""

from __future__ import annotations

import pytest

from p2pdice.bots.tournament import run_tournament
from p2pdice.core.rules import Rules, preset

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


#: The house rules of issue 27, each on an otherwise classic table (docs/bots.md, "House
#: rules"). A palifico round needs three or more survivors, so the palifico kinds are
#: checked at four seats.
HOUSE_TARGETS = [
    ("difference", preset("classic", challenge_penalty="difference"), 2, 0.60),
    ("others-lose", preset("classic", exact_call=True, exact_reward="others-lose"), 2, 0.60),
    ("difference", preset("classic", challenge_penalty="difference"), 4, 0.40),
    ("others-lose", preset("classic", exact_call=True, exact_reward="others-lose"), 4, 0.40),
    ("ones-not-wild", preset("classic", palifico="fixed", palifico_kind="ones-not-wild"), 4, 0.40),
    ("face-fixed", preset("classic", palifico="fixed", palifico_kind="face-fixed"), 4, 0.40),
]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("option", "rules", "seats", "target"),
    HOUSE_TARGETS,
    ids=[f"{o}-{n}-seats" for o, _, n, _ in HOUSE_TARGETS],
)
def test_house_rule_strength_target(option: str, rules: Rules, seats: int, target: float) -> None:
    bots = ("hard",) + ("medium",) * (seats - 1)
    result = run_tournament(rules.with_options(seats=seats), bots, games=2000, seed=1, jobs=2)
    lo, _ = result.tallies["hard"].ci95()
    assert lo >= target, result.to_json()
