"""How long a game will take, for the host form, its review, the waiting screen and
`host --help`: the measured rounds and turns of a game at that seat count and starting dice
(bots.pace_table, made by bots.pace), changed by the measured factor of each option the rules
choose, at a stated pace for people."""

from __future__ import annotations

from ..core.rules import MIN_SEATS, Rules
from .pace import MEASURED_RULES, Pace, variants_of
from .pace_table import PACE, ROUNDS_FACTOR, TURNS_FACTOR

#: Seconds a person takes for a turn (reading the bid, choosing, pressing keys): the quick
#: and the slow end of the estimate.
TURN_SECONDS = (6.0, 10.0)
#: Seconds each round adds besides its turns: the deal's commitments, reading the reveal.
ROUND_SECONDS = 10.0


def pace_of(rules: Rules) -> Pace:
    """The rounds and turns a game with these rules lasts: the default rules' measurement at
    its seat count and dice, times the measured factor of each option that differs."""
    base = PACE[(rules.seats, rules.starting_dice)]
    rounds = turns = 1.0
    for variant in variants_of(rules):
        rounds *= ROUNDS_FACTOR[(variant, rules.seats)][rules.starting_dice - 1]
        turns *= TURNS_FACTOR[(variant, rules.seats)][rules.starting_dice - 1]
    return Pace(
        rounds=base.rounds * rounds,
        turns=base.turns * turns,
        turns_low=base.turns_low * turns,
        turns_high=base.turns_high * turns,
    )


def minutes(rules: Rules, *, cpu: int = 0, cpu_think: float | None = None) -> tuple[int, int]:
    """The quick and the slow length of a game, in whole minutes: the middle half of the
    measured games' turns at TURN_SECONDS, plus ROUND_SECONDS a round. With `cpu_think`, the
    `cpu` CPU seats' share of the turns takes that long each instead."""
    pace = pace_of(rules)
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
    """The estimate for every seat count up to the table's, for `host --help`: for the
    default rules, or for `rules` when the command line chose some before --help."""
    chosen = rules is not None
    rules = rules or Rules(seats=PACE_SEATS[-1])
    each = "; ".join(
        how_long(rules.with_options(seats=seats)).split(", ", 1)[1]
        for seats in PACE_SEATS
        if seats <= rules.seats
    )
    low, high = (int(s) for s in TURN_SECONDS)
    what = (
        f"these rules ({rules.summary()})"
        if chosen
        else f"{rules.starting_dice} dice and the {MEASURED_RULES}"
    )
    text = (
        f"How long a game takes with {what}, measured from simulated games at {low}-{high} s "
        f"a turn and {ROUND_SECONDS:g} s a round: {each}."
    )
    if chosen:
        return text
    return (
        f"{text} Other rules change it (exact calls, palifico, losing the difference): the "
        "host form shows the estimate for the rules chosen, and so does this help when they "
        "come before --help (p2pdice host --challenge-penalty difference --help)."
    )


#: The seat counts the estimate is measured at (every count a game may start with).
PACE_SEATS = tuple(sorted({seats for seats, _ in PACE if seats >= MIN_SEATS}))
