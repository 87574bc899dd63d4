"""`p2pdice simulate`: whole games of CPU seats on the rules engine (the fast path).

Hands are rolled here, outside the core, from a seeded random.Random, so the same seed gives
the same games. `--protocol` runs the same games through the fairness protocol instead
(see p2pdice.bots.protosim).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..core.describe import bid_words, hand_text, outcome_line, ranking_line
from ..core.game import (
    Action,
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Phase,
    PlaceBid,
    Reveal,
    RoundResult,
    StartNextRound,
    apply,
    blind_action,
    new_game,
)
from ..core.rules import Rules
from ..core.view import seat_view
from .registry import Bot

Printer = Callable[[str], None]


@dataclass(slots=True)
class GameRecord:
    ranking: tuple[int, ...]
    results: tuple[RoundResult, ...]  #: every round, hands included
    bot_faults: int = 0

    @property
    def rounds(self) -> int:
        return len(self.results)


@dataclass(slots=True)
class Summary:
    games: int = 0
    rounds: int = 0
    wins: list[int] = field(default_factory=list)
    bot_faults: int = 0
    seconds: float = 0.0
    messages: int = 0  #: signed player messages (protocol games only)

    def to_json(self, bots: Sequence[str]) -> dict[str, object]:
        return {
            "games": self.games,
            "rounds": self.rounds,
            "mean_rounds": round(self.rounds / self.games, 3) if self.games else 0.0,
            "wins": self.wins,
            "bots": list(bots),
            "games_per_second": round(self.games / self.seconds, 1) if self.seconds else None,
            **(
                {
                    "messages": self.messages,
                    "messages_per_second": round(self.messages / self.seconds, 1),
                }
                if self.messages and self.seconds
                else {}
            ),
        }


def decide_safely(
    bot: Bot, state: GameState, seat: int, hand: tuple[int, ...], rng: random.Random
) -> tuple[Action, bool]:
    """The bot's action, or the blind move when it fails (second value: it failed).

    Third-party bots may raise anything or answer for another seat; a game must not stop
    because of it, so every failure becomes the move that needs no hand.
    """
    try:
        action = bot(seat_view(state, seat, hand), rng)
        if getattr(action, "seat", None) != seat:
            raise ValueError(f"bot answered {action!r} for seat {seat}")
        apply(state, action)
    except Exception:
        return blind_action(state, seat), True
    return action, False


def roll(rng: random.Random, dice: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(rng.randint(1, 6) for _ in range(n)) for n in dice)


def play_game(
    rules: Rules,
    bots: Sequence[Bot],
    rng: random.Random,
    *,
    names: Sequence[str] | None = None,
    out: Printer | None = None,
) -> GameRecord:
    """One whole game; prints it round by round when `out` is given."""
    names = list(names or [f"seat {s}" for s in range(rules.seats)])
    state = new_game(rules)
    faults = 0
    while state.phase != Phase.GAME_OVER:
        hands = roll(rng, state.dice)
        starter = rng.choice(state.survivors) if state.starter is None else None
        state = apply(state, Deal(starter))
        if out:
            kind = (
                " (palifico round: ones are not wild, the face is fixed)"
                if state.palifico_round
                else ""
            )
            opener = state.turn
            assert opener is not None  # a deal names who opens
            out(
                f"Round {state.round}: {state.dice_in_play} dice in play, {names[opener]} starts{kind}"
            )
            for seat in state.survivors:
                out(f"  {names[seat]:<16} {hand_text(hands[seat])}")
        while state.phase == Phase.BIDDING:
            mover = state.turn
            assert mover is not None
            action, faulted = decide_safely(bots[mover], state, mover, hands[mover], rng)
            faults += faulted
            state = apply(state, action)
            if out:
                out("  " + _action_line(action, names, faulted))
        state = apply(state, Reveal(tuple(h if h else () for h in hands)))
        result = state.last_result
        assert result is not None
        if out:
            out("  " + outcome_line(result, names, rules))
            out(
                "  dice now: " + ", ".join(f"{names[s]} {n}" for s, n in enumerate(state.dice) if n)
            )
        if state.phase == Phase.ROUND_OVER:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    if out:
        out("Final ranking: " + ranking_line(state.ranking, names, ", "))
    return GameRecord(ranking=state.ranking, results=state.results, bot_faults=faults)


def _action_line(action: Action, names: Sequence[str], forced: bool) -> str:
    who = names[action.seat]
    note = " (forced: the bot failed)" if forced else ""
    if isinstance(action, PlaceBid):
        return f"{who} bids {bid_words(action.bid)}{note}"
    if isinstance(action, Challenge):
        return f"{who} calls Liar!{note}"
    if isinstance(action, ExactCall):
        return f"{who} calls exact!{note}"
    return f"{who}: {type(action).__name__}{note}"


def simulate(
    rules: Rules,
    bots: Sequence[Bot],
    *,
    games: int,
    seed: int,
    names: Sequence[str] | None = None,
    out: Printer | None = None,
) -> Summary:
    rng = random.Random(seed)
    summary = Summary(wins=[0] * rules.seats)
    started = time.perf_counter()
    for number in range(1, games + 1):
        if out:
            out(f"=== Game {number} ===")
        record = play_game(rules, bots, rng, names=names, out=out)
        summary.games += 1
        summary.rounds += record.rounds
        summary.wins[record.ranking[0]] += 1
        summary.bot_faults += record.bot_faults
    summary.seconds = time.perf_counter() - started
    return summary
