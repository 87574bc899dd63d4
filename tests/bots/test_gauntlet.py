"""hard against the gauntlet (bots/styles.py, bots/readers.py): quick versions here, full size
with --run-slow.

The full-size figures (2,000 games a line) and their targets are in docs/bots.md: the exploit
gauntlet (hard >= 90% heads-up, >= 50% as one of four) and the stronger gauntlet (hard >= 75%
heads-up, >= 65% against the sampler, >= 45% as one of four).
"""

from __future__ import annotations

import pytest

from p2pdice.bots.names import EXPLOIT_STYLE_NAMES, STRONGER_STYLE_NAMES
from p2pdice.bots.tournament import run_tournament
from p2pdice.core.rules import preset

MODES = {
    "classic": preset("classic"),
    "perudo": preset("perudo"),
    "natural": preset("classic", ones="natural"),
}


@pytest.mark.parametrize("style", EXPLOIT_STYLE_NAMES)
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
@pytest.mark.parametrize("style", EXPLOIT_STYLE_NAMES)
@pytest.mark.parametrize(("seats", "target"), [(2, 0.90), (4, 0.50)], ids=["heads-up", "four"])
def test_gauntlet_target(mode: str, style: str, seats: int, target: float) -> None:
    bots = ["hard"] + [style] * (seats - 1)
    result = run_tournament(MODES[mode].with_options(seats=seats), bots, games=2000, seed=1, jobs=2)
    rate = result.tallies["hard"].win_rate
    assert rate >= target, result.to_json()


# ---- the stronger gauntlet -------------------------------------------------------------------

#: hard's target against each style of the stronger gauntlet, by table size.
STRONGER_TARGETS = {2: 0.75, 4: 0.45}
SAMPLER_HEADS_UP_TARGET = 0.65

#: Lines today's hard misses at full size (docs/bots.md, "The stronger gauntlet"): expected
#: to fail until hard is improved; take a line out of here when it is met.
MISSED: set[tuple[str, str, int]] = {
    ("classic", "crediting-reader", 2),
    ("classic", "crediting-reader", 4),
    *((mode, "sampler", seats) for mode in MODES for seats in (2, 4)),
}

#: Quick floors for hard heads-up in classic (seed 3): well under today's full-size figures
#: (docs/bots.md), so they guard against a hard that gets clearly worse, not the targets.
QUICK_FLOORS = {
    "crediting-reader": 0.45,  # 70.2% at 1,000 games since hard reads who credits bids
    "style-switcher": 0.7,
    "weakest-face": 0.7,
    "sampler": 0.25,
}
QUICK_GAMES = {"sampler": 16}  #: the sampler's games are slower; the others play 60


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("style", STRONGER_STYLE_NAMES)
def test_each_stronger_style_plays_heads_up_and_one_of_four_without_a_fault(
    style: str, mode: str
) -> None:
    for seats in (2, 4):
        bots = ["hard"] + [style] * (seats - 1)
        result = run_tournament(MODES[mode].with_options(seats=seats), bots, games=2, seed=5)
        faults = {name: tally.faults for name, tally in result.tallies.items()}
        assert faults == {"hard": 0, style: 0}, (seats, faults)


@pytest.mark.parametrize("style", STRONGER_STYLE_NAMES)
def test_hard_against_each_stronger_style_heads_up_quick(style: str) -> None:
    games = QUICK_GAMES.get(style, 60)
    result = run_tournament(
        MODES["classic"].with_options(seats=2), ["hard", style], games=games, seed=3
    )
    assert result.tallies["hard"].win_rate >= QUICK_FLOORS[style], result.to_json()


@pytest.mark.parametrize(("reader", "games"), [("crediting-reader", 200), ("sampler", 16)])
def test_the_readers_beat_medium_heads_up_quick(reader: str, games: int) -> None:
    # A gauntlet of weak players proves nothing: both readers beat the reference clearly
    # (full size: docs/bots.md). The deceptive styles do not; they only pay against a reader.
    result = run_tournament(
        MODES["classic"].with_options(seats=2), [reader, "medium"], games=games, seed=3
    )
    assert result.tallies[reader].win_rate >= 0.6, result.to_json()


def _stronger_lines() -> list[object]:
    lines = []
    for mode in sorted(MODES):
        for style in STRONGER_STYLE_NAMES:
            for seats in (2, 4):
                target = STRONGER_TARGETS[seats]
                if style == "sampler" and seats == 2:
                    target = SAMPLER_HEADS_UP_TARGET
                marks = (
                    [pytest.mark.xfail(reason="missed by today's hard (docs/bots.md)")]
                    if (mode, style, seats) in MISSED
                    else []
                )
                # Three samplers make a game slow: that line is 1,000 games (as in docs/bots.md).
                games = 1000 if style == "sampler" and seats == 4 else 2000
                lines.append(
                    pytest.param(
                        mode, style, seats, target, games, marks=marks, id=f"{mode}-{style}-{seats}"
                    )
                )
    return lines


@pytest.mark.slow
@pytest.mark.parametrize(("mode", "style", "seats", "target", "games"), _stronger_lines())
def test_stronger_gauntlet_target(
    mode: str, style: str, seats: int, target: float, games: int
) -> None:
    bots = ["hard"] + [style] * (seats - 1)
    rules = MODES[mode].with_options(seats=seats)
    result = run_tournament(rules, bots, games=games, seed=1, jobs=2)
    rate = result.tallies["hard"].win_rate
    assert rate >= target, result.to_json()
