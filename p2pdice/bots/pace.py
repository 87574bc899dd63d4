"""How long games last, measured: rounds and turns (bids and calls) per game for every seat
count and starting-dice count, and how much each rule that changes a game's length changes
them, from games between the default CPU players on the rules engine.
`python -m p2pdice.bots.pace > p2pdice/bots/pace_table.py` measures them and prints the table
module (bots write no files), which the estimate of a table's length (bots.estimate) reads; a
test replays a quick measurement and checks the committed table against it.

The options are measured against the default rules in small groups (GROUPS), each at every
seat count and starting dice (an exact call matters more with few dice, losing the difference
more with many players), as a factor on the mean rounds and the mean turns of a game. Both are
measured from the same seed, so the same first deals, which makes a factor steadier than the
ratio of two independent means. A table whose options fall in several groups multiplies their
factors (the groups act on different moments of a game: what a call costs, exact calls,
one-die rounds), and a test checks the product against fresh simulations of mixed rules.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..core.rules import (
    OPTION_BY_KEY,
    SEATS_RANGE,
    STARTING_DICE_RANGE,
    ExactReward,
    Palifico,
    PalificoKind,
    Rules,
)
from .names import DEFAULT_LEVEL

#: The rules every Pace cell is measured with, but for seats and starting dice.
MEASURED_RULES = "default rules (wild ones, no exact call, no palifico, lose one die)"
GAMES = 400  #: games per cell, and per option in each cell, in the committed table
SEED = 2026

#: Options that change nothing a simulated game counts: who opens round 1, how a table is
#: opened, undo (a taken-back bid is not a turn), and the clocks. A turn timer (30 or 60 s)
#: and the time bank's free 15 s a turn are above the pace the estimate assumes for a person
#: (bots.estimate.TURN_SECONDS), so they do not shorten it either.
LENGTH_NEUTRAL = frozenset(
    {"first_starter", "kind", "undo", "turn_timer", "time_bank", "grace_period"}
)


@dataclass(frozen=True, slots=True)
class Pace:
    """One cell: a game's rounds (mean) and turns (mean, and the middle half's bounds)."""

    rounds: float
    turns: float
    turns_low: float  #: 25th percentile
    turns_high: float  #: 75th percentile


#: The options that change a game's length, in groups measured together: a group's every
#: combination of values is measured against the default, and the groups' factors multiply.
#: Wild ones and losing the difference go together because they do not multiply: without
#: wild ones a count strays less from the bid, so losing the difference shortens a game less
#: (measured: a game of 4 with 5 dice, 0.87 of the default's rounds, where the product of
#: their factors said 0.78). Exact calls and palifico multiply with them within a few percent.
GROUPS: tuple[tuple[str, ...], ...] = (
    ("ones", "challenge_penalty"),
    ("exact_call", "exact_reward"),
    ("palifico", "palifico_kind"),
)


def _in_effect(rules: Rules) -> Rules:
    """`rules` with every option that plays no part at the table set to its default: the
    exact reward without exact calls, the palifico kind without palifico."""
    changes: dict[str, Any] = {}
    if not rules.exact_call:
        changes["exact_reward"] = ExactReward.REGAIN
    if rules.palifico == Palifico.OFF:
        changes["palifico_kind"] = PalificoKind.BOTH
    return rules.with_options(**changes)


def _variant(rules: Rules, group: tuple[str, ...]) -> str | None:
    """The name of what `rules` choose in `group` ("ones=natural,challenge_penalty=difference"),
    None when it is the default."""
    default = Rules()
    chosen = [
        f"{key}={json.dumps(getattr(rules, key))}".replace('"', "")
        for key in group
        if getattr(rules, key) != getattr(default, key)
    ]
    return ",".join(chosen) or None


def variants_of(rules: Rules) -> tuple[str, ...]:
    """The measured variants a table's rules are made of, one a group that differs from the
    default (none for the default rules)."""
    rules = _in_effect(rules)
    return tuple(v for group in GROUPS if (v := _variant(rules, group)) is not None)


def variants() -> dict[str, dict[str, Any]]:
    """Every measured way of playing other than the default, by name, with the options that
    make it: each combination of a group's values but the default, an option that plays no
    part left out (an exact reward only counts with exact calls, a palifico kind only with
    palifico)."""
    found: dict[str, dict[str, Any]] = {}
    for group in GROUPS:
        options = [OPTION_BY_KEY[key] for key in group]
        for values in itertools.product(*(option.values for option in options)):
            rules = _in_effect(Rules(**dict(zip(group, values, strict=True))))
            name = _variant(rules, group)
            if name is not None:
                found[name] = {key: getattr(rules, key) for key in group}
    return found


def game_length(rules: Rules, rng: random.Random) -> tuple[int, int]:
    """(rounds, turns) of one game between default CPU players."""
    # Here, not at the top: the estimate reads this module's Pace from `--help`, which stays
    # fast without the bots.
    from ..core.game import Deal, Phase, Reveal, StartNextRound, apply, new_game
    from .registry import load_bot
    from .sim import decide_safely, roll

    bot = load_bot(DEFAULT_LEVEL)
    state = new_game(rules)
    turns = 0
    while state.phase != Phase.GAME_OVER:
        hands = roll(rng, state.dice)
        starter = rng.choice(state.survivors) if state.starter is None else None
        state = apply(state, Deal(starter))
        while state.phase == Phase.BIDDING:
            mover = state.turn
            assert mover is not None
            action, _ = decide_safely(bot, state, mover, hands[mover], rng)
            state = apply(state, action)
            turns += 1
        state = apply(state, Reveal(tuple(h if h else () for h in hands)))
        if state.phase == Phase.ROUND_OVER:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    return state.round, turns


def play(rules: Rules, *, games: int, seed: int) -> list[tuple[int, int]]:
    """(rounds, turns) of `games` games with `rules`, from a seed of their seat count and
    dice: every variant of a cell is played from the same deals as its default."""
    rng = random.Random(f"{seed}/{rules.seats}/{rules.starting_dice}")
    return [game_length(rules, rng) for _ in range(games)]


def pace_of(played: list[tuple[int, int]]) -> Pace:
    turns = [t for _, t in played]
    low, _, high = statistics.quantiles(turns, n=4)
    return Pace(
        rounds=round(statistics.fmean(r for r, _ in played), 1),
        turns=round(statistics.fmean(turns), 1),
        turns_low=round(low, 1),
        turns_high=round(high, 1),
    )


def measure(seats: int, dice: int, *, games: int, seed: int) -> Pace:
    return pace_of(play(Rules(seats=seats, starting_dice=dice), games=games, seed=seed))


def factor_of(played: list[tuple[int, int]], default: list[tuple[int, int]]) -> tuple[float, float]:
    """How much longer (above 1) or shorter a variant's games are than the default's: the
    ratio of their mean rounds, and of their mean turns."""
    rounds = statistics.fmean(r for r, _ in played) / statistics.fmean(r for r, _ in default)
    turns = statistics.fmean(t for _, t in played) / statistics.fmean(t for _, t in default)
    return round(rounds, 2), round(turns, 2)


def measure_factor(
    name: str, seats: int, dice: int, *, games: int, seed: int
) -> tuple[float, float]:
    """A variant's factors on rounds and turns at one seat count and starting dice."""
    base = Rules(seats=seats, starting_dice=dice)
    return factor_of(
        play(base.with_options(**variants()[name]), games=games, seed=seed),
        play(base, games=games, seed=seed),
    )


@dataclass(frozen=True, slots=True)
class Measured:
    """The committed table: the default rules' pace, and each variant's factors (rounds,
    turns) by (variant, seats), one per starting dice from 1."""

    pace: dict[tuple[int, int], Pace]
    rounds: dict[tuple[str, int], tuple[float, ...]]
    turns: dict[tuple[str, int], tuple[float, ...]]


def _cell(seats: int, dice: int, games: int, seed: int) -> tuple[Pace, dict[str, Any]]:
    base = Rules(seats=seats, starting_dice=dice)
    default = play(base, games=games, seed=seed)
    factors = {
        name: factor_of(play(base.with_options(**changes), games=games, seed=seed), default)
        for name, changes in variants().items()
    }
    return pace_of(default), factors


def _cells() -> Iterator[tuple[int, int]]:
    for seats in SEATS_RANGE:
        for dice in STARTING_DICE_RANGE:
            yield seats, dice


def measure_all(*, games: int, seed: int, jobs: int = 1) -> Measured:
    """Every cell and every variant (`jobs` processes; the result does not depend on it)."""
    cells = list(_cells())
    args = [(s, d, games, seed) for s, d in cells]
    if jobs > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(_cell, *zip(*args, strict=True)))
    else:
        results = [_cell(*a) for a in args]
    found = dict(zip(cells, results, strict=True))
    rounds: dict[tuple[str, int], tuple[float, ...]] = {}
    turns: dict[tuple[str, int], tuple[float, ...]] = {}
    for name in variants():
        for seats in SEATS_RANGE:
            each = [found[(seats, dice)][1][name] for dice in STARTING_DICE_RANGE]
            rounds[(name, seats)] = tuple(r for r, _ in each)
            turns[(name, seats)] = tuple(t for _, t in each)
    return Measured({cell: pace for cell, (pace, _) in found.items()}, rounds, turns)


def _factor_rows(factors: dict[tuple[str, int], tuple[float, ...]]) -> str:
    return "\n".join(
        f'    ("{name}", {seats}): ({", ".join(str(f) for f in row)}),'
        for (name, seats), row in factors.items()
    )


def table_source(measured: Measured, *, games: int, seed: int) -> str:
    rows = "\n".join(
        f"    ({s}, {d}): Pace({p.rounds}, {p.turns}, {p.turns_low}, {p.turns_high}),"
        for (s, d), p in sorted(measured.pace.items())
    )
    return (
        f'"""Generated by `python -m p2pdice.bots.pace` ({games} games a cell and {games} per\n'
        f"option in each cell, seed {seed}, {DEFAULT_LEVEL} CPU players): do not edit.\n\n"
        "PACE: (seats, starting dice) -> rounds and turns per game, with the\n"
        f"{MEASURED_RULES}.\n"
        "ROUNDS_FACTOR, TURNS_FACTOR: (variant, seats) -> how many times the default's mean\n"
        "rounds and turns a game with that option lasts, for 1 to 5 starting dice, each played\n"
        'from the same seed as its default cell (bots.pace.variants names them)."""\n\n'
        "from __future__ import annotations\n\n"
        "from .pace import Pace\n\n"
        f"GAMES = {games}\n"
        f"SEED = {seed}\n"
        "PACE: dict[tuple[int, int], Pace] = {\n"
        f"{rows}\n"
        "}\n"
        "ROUNDS_FACTOR: dict[tuple[str, int], tuple[float, ...]] = {\n"
        f"{_factor_rows(measured.rounds)}\n"
        "}\n"
        "TURNS_FACTOR: dict[tuple[str, int], tuple[float, ...]] = {\n"
        f"{_factor_rows(measured.turns)}\n"
        "}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=GAMES)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--jobs", type=int, default=1, help="processes to measure with (same table whatever)"
    )
    args = parser.parse_args()
    measured = measure_all(games=args.games, seed=args.seed, jobs=args.jobs)
    print(table_source(measured, games=args.games, seed=args.seed), end="")


if __name__ == "__main__":
    main()
