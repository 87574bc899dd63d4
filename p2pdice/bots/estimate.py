"""How long a game will take, for the host form and `host --help`: the measured rounds and
turns of a game at that seat count and starting dice (bots.pace_table, made by bots.pace),
at a stated pace for people."""

from __future__ import annotations

from ..core.rules import Rules
from .pace_table import PACE

#: Seconds a person takes for a turn (reading the bid, choosing, pressing keys): the quick
#: and the slow end of the estimate.
TURN_SECONDS = (6.0, 10.0)
#: Seconds each round adds besides its turns: the deal's commitments, reading the reveal.
ROUND_SECONDS = 10.0


def minutes(rules: Rules, *, cpu: int = 0, cpu_think: float | None = None) -> tuple[int, int]:
    """The quick and the slow length of a game, in whole minutes: the middle half of the
    measured games' turns at TURN_SECONDS, plus ROUND_SECONDS a round. With `cpu_think`, the
    `cpu` CPU seats' share of the turns takes that long each instead."""
    pace = PACE[(rules.seats, rules.starting_dice)]
    people = (rules.seats - cpu) / rules.seats if cpu_think is not None else 1.0

    def seconds(turns: float, per_turn: float) -> float:
        cpu_turns = turns * (1 - people)
        return (
            turns * people * per_turn + cpu_turns * (cpu_think or 0.0) + pace.rounds * ROUND_SECONDS
        )

    low = seconds(pace.turns_low, TURN_SECONDS[0])
    high = seconds(pace.turns_high, TURN_SECONDS[1])
    return max(1, round(low / 60)), max(1, round(high / 60))


def how_long(rules: Rules, *, cpu: int = 0, cpu_think: float | None = None) -> str:
    """ "5 dice, 4 players: about 8-13 min"."""
    low, high = minutes(rules, cpu=cpu, cpu_think=cpu_think)
    span = f"{low}" if low == high else f"{low}-{high}"
    dice = f"{rules.starting_dice} {'die' if rules.starting_dice == 1 else 'dice'}"
    return f"{dice}, {rules.seats} players: about {span} min"


def how_long_help(rules: Rules | None = None) -> str:
    """The estimate for every seat count at the default starting dice, for --help."""
    rules = rules or Rules()
    each = "; ".join(
        how_long(rules.with_options(seats=seats)).split(", ", 1)[1]
        for seats in sorted({s for s, d in PACE if d == rules.starting_dice})
    )
    low, high = (int(s) for s in TURN_SECONDS)
    return (
        f"How long a game takes with {rules.starting_dice} dice, measured from simulated "
        f"games at {low}-{high} s a turn and {ROUND_SECONDS:g} s a round: {each}."
    )
