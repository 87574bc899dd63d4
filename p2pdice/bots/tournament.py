"""Tournaments: many games between named bots on the rules engine, with seats rotated.

Each game `g` gets its own random source derived from (seed, g), so a run gives the same
figures whatever `jobs` is and however the games are split between worker processes. The
bots are rotated round the table: in game `g` the bot listed `i`-th sits at seat
`(i + g) % seats`, so no bot keeps the first seat (or any seat) and the cyclic order of the
listed bots is kept. With `first_starter` random the opener is drawn as well.

A bot named more than once (`hard,medium,medium,medium`) is reported once, over all its
seats: its win rate is its wins divided by the seat-games it played, so it compares with
chance (1 / seats) directly. The 95% interval is Wilson's score interval over those
seat-games; for a bot with several seats the seat-games of one game are not independent,
so its interval is a little too narrow, which is why the targets are stated for the single
bot of a table.
"""

from __future__ import annotations

import math
import multiprocessing
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..core.game import Action, Challenge, ExactCall, PlaceBid
from ..core.rules import Rules
from ..core.view import SeatView
from .registry import Bot, load_bot
from .sim import play_game

Z95 = 1.959963984540054  #: the two-sided 95% normal quantile


@dataclass(slots=True)
class BotTally:
    """What one bot name achieved over all its seats."""

    seat_games: int = 0  #: games times the seats this bot held in each
    wins: int = 0
    place_sum: int = 0  #: sum of final places, 1 = winner
    faults: int = 0  #: decisions that failed and became the blind move

    def add(self, other: BotTally) -> None:
        self.seat_games += other.seat_games
        self.wins += other.wins
        self.place_sum += other.place_sum
        self.faults += other.faults

    @property
    def win_rate(self) -> float:
        return self.wins / self.seat_games if self.seat_games else 0.0

    @property
    def mean_place(self) -> float:
        return self.place_sum / self.seat_games if self.seat_games else 0.0

    def ci95(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seat_games)


@dataclass(slots=True)
class TournamentResult:
    rules: Rules
    names: tuple[str, ...]  #: the bots as listed, one per seat before rotation
    games: int = 0
    rounds: int = 0
    seconds: float = 0.0
    tallies: dict[str, BotTally] = field(default_factory=dict)

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, object]:
        bots: dict[str, object] = {}
        for name, tally in self.tallies.items():
            lo, hi = tally.ci95()
            bots[name] = {
                "win_rate": round(tally.win_rate, 4),
                "ci95": [round(lo, 4), round(hi, 4)],
                "mean_place": round(tally.mean_place, 3),
            }
        return {
            "games": self.games,
            "games_per_second": round(self.games_per_second, 1),
            "bots": bots,
        }


def wilson_interval(successes: int, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a binomial proportion (sound near 0 and 1, unlike Wald's)."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= trials else min(1.0, centre + half)  # exact ends, no rounding
    return (lo, hi)


def seating(names: Sequence[str], game: int) -> list[str]:
    """The bot at each seat in game `game`: listed bot `i` sits at seat `(i + game) % seats`."""
    seats = len(names)
    by_seat = [""] * seats
    for i, name in enumerate(names):
        by_seat[(i + game) % seats] = name
    return by_seat


def game_rng(seed: int, game: int) -> random.Random:
    """The random source of one game; string seeds hash with SHA-512, stable across runs."""
    return random.Random(f"p2pdice-tournament:{seed}:{game}")


class FaultCounted:
    """A bot wrapped to count its own faults: exceptions and actions the view says are illegal.

    `play_game` turns any fault into the blind move but only counts faults per game; the
    wrapper charges each one to the bot that made it and then lets the fault through.
    """

    def __init__(self, bot: Bot, tally: BotTally) -> None:
        self.bot = bot
        self.tally = tally

    def __call__(self, view: SeatView, rng: random.Random) -> Action:
        try:
            action = self.bot(view, rng)
        except Exception:
            self.tally.faults += 1
            raise
        if not _legal_for(view, action):
            self.tally.faults += 1
        return action


def _legal_for(view: SeatView, action: object) -> bool:
    if getattr(action, "seat", None) != view.seat:
        return False
    if isinstance(action, PlaceBid):
        return view.is_legal_bid(action.bid)
    if isinstance(action, Challenge):
        return view.can_challenge
    if isinstance(action, ExactCall):
        return view.can_exact
    return False


def _play_games(
    rules: Rules, names: tuple[str, ...], seed: int, games: range
) -> tuple[dict[str, BotTally], int]:
    """Play the games numbered in `games`; the tallies per bot name and the rounds played."""
    tallies = {name: BotTally() for name in dict.fromkeys(names)}
    bots = {name: FaultCounted(load_bot(name), tallies[name]) for name in tallies}
    rounds = 0
    for g in games:
        by_seat = seating(names, g)
        record = play_game(rules, [bots[n] for n in by_seat], game_rng(seed, g))
        rounds += record.rounds
        for place, seat in enumerate(record.ranking, 1):
            tally = tallies[by_seat[seat]]
            tally.seat_games += 1
            tally.place_sum += place
            tally.wins += place == 1
    return tallies, rounds


def _worker(args: tuple[Rules, tuple[str, ...], int, range]) -> tuple[dict[str, BotTally], int]:
    return _play_games(*args)


def run_tournament(
    rules: Rules, names: Sequence[str], *, games: int, seed: int = 0, jobs: int = 1
) -> TournamentResult:
    """Play `games` games of the listed bots (one per seat) and tally them per bot name."""
    names = tuple(names)
    if len(names) != rules.seats:
        raise ValueError(f"{len(names)} bots for a table of {rules.seats} seats")
    for name in set(names):
        load_bot(name)  # fail here, in the caller's process, with the loader's message
    result = TournamentResult(rules=rules, names=names)
    result.tallies = {name: BotTally() for name in dict.fromkeys(names)}
    jobs = max(1, min(jobs, games))
    # Interleaved slices keep the workers' loads even whatever the games cost.
    parts = [range(start, games, jobs) for start in range(jobs)]
    started = time.perf_counter()
    if jobs == 1:
        outputs = [_play_games(rules, names, seed, parts[0])]
    else:
        with multiprocessing.get_context(_start_method()).Pool(jobs) as pool:
            outputs = pool.map(_worker, [(rules, names, seed, part) for part in parts])
    result.seconds = time.perf_counter() - started
    for tallies, rounds in outputs:
        result.rounds += rounds
        for name, tally in tallies.items():
            result.tallies[name].add(tally)
    result.games = games
    return result


def _start_method() -> str:
    # fork is fastest and keeps third-party bots importable from the caller's sys.path;
    # spawn where fork is unavailable.
    methods = multiprocessing.get_all_start_methods()
    return "fork" if "fork" in methods else "spawn"
