"""Decision time per difficulty, over the views that real games put in front of each bot.

Each difficulty plays whole games on the rules engine against `medium` (or `--opponent`,
e.g. a gauntlet style such as never-calls, whose long rounds give hard's look-ahead the
most to do) at tables of two,
four and six seats, in the classic, perudo and natural modes; every one
of its decisions is timed (wall clock, one process, caches starting cold as in a fresh game
process). Prints mean, p50, p99 and max per difficulty, and whether `hard` meets its budget
(5 ms mean, 50 ms p99).

Python's cyclic garbage collector runs when the process has allocated enough, whoever did
the allocating, so a pause it takes during a decision counts in that decision's time; how
long it walks depends on every object alive in the process, the opponents' caches too.
Every figure is therefore also given with those pauses taken out (`gc_ms`: their total
inside the timed decisions; `p99_ms_without_gc`), measured by a `gc.callbacks` hook on
the same clock. The budget is checked on the times with the pauses in.

    python -m benchmarks.bot_decisions [--games N] [--seed S] [--json] [--cold] [--opponent NAME]
                                       [--cpu-clock]
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

from p2pdice.bots.registry import BOT_NAMES, Bot, load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.game import Action
from p2pdice.core.rules import Rules
from p2pdice.core.view import SeatView

from .common import RULE_MODES, percentile

BUDGET_MEAN_MS = 5.0
BUDGET_P99_MS = 50.0


def _bot_caches() -> list[Callable[[], None]]:
    """`cache_clear` of every memoised function in the package's modules: the bots' and
    the core's they call (the lowest legal quantities are cached in core.bids)."""
    clears = []
    for name, module in list(sys.modules.items()):
        if name.startswith("p2pdice.") and module is not None:
            for value in vars(module).values():
                clear = getattr(value, "cache_clear", None)
                if callable(clear):
                    clears.append(clear)
    return clears


class _Timed:
    """Wraps a bot and records how long each of its decisions takes, and how much of that
    the garbage collector's pauses took."""

    def __init__(
        self, bot: Bot, *, cold: bool, clock: Callable[[], int] = time.perf_counter_ns
    ) -> None:
        self.bot = bot
        self.clock = clock
        self.samples_ns: list[int] = []
        self.gc_ns: list[int] = []
        self.clears = _bot_caches() if cold else []
        self._deciding = False
        self._gc_started = 0
        self._gc_in_decision = 0

    def on_gc(self, phase: str, info: dict[str, int]) -> None:
        """A `gc.callbacks` hook: adds up the pauses that fall inside a decision."""
        if not self._deciding:
            return
        if phase == "start":
            self._gc_started = self.clock()
        else:
            self._gc_in_decision += self.clock() - self._gc_started

    def __call__(self, view: SeatView, rng: random.Random) -> Action:
        for clear in self.clears:  # --cold: every decision starts from empty caches
            clear()
        self._gc_in_decision = 0
        self._deciding = True
        started = self.clock()
        try:
            action = self.bot(view, rng)
        finally:
            self._deciding = False
        self.samples_ns.append(self.clock() - started)
        self.gc_ns.append(self._gc_in_decision)
        return action


def measure(
    name: str,
    *,
    games: int,
    seed: int,
    cold: bool = False,
    opponent: str = "medium",
    cpu_clock: bool = False,
) -> dict[str, float]:
    clock = time.thread_time_ns if cpu_clock else time.perf_counter_ns
    timed = _Timed(load_bot(name), cold=cold, clock=clock)
    medium = load_bot(opponent)
    rng = random.Random(seed)
    gc.callbacks.append(timed.on_gc)
    try:
        for base in RULE_MODES.values():
            for seats in (2, 4, 6):
                rules: Rules = base.with_options(seats=seats)
                for g in range(games):
                    bots: list[Bot] = [medium] * seats
                    bots[g % seats] = timed  # rotate the timed bot round the table
                    play_game(rules, bots, rng)
    finally:
        gc.callbacks.remove(timed.on_gc)
    figures = summary([ns / 1e6 for ns in timed.samples_ns])
    without = [(ns - pause) / 1e6 for ns, pause in zip(timed.samples_ns, timed.gc_ns, strict=True)]
    figures["gc_ms"] = sum(timed.gc_ns) / 1e6
    figures["p99_ms_without_gc"] = percentile(without, 0.99)
    return figures


def summary(ms: Sequence[float]) -> dict[str, float]:
    """Count, mean, nearest-rank p50 and p99, and max of decision times in milliseconds."""
    return {
        "decisions": len(ms),
        "mean_ms": statistics.fmean(ms),
        "p50_ms": percentile(ms, 0.50),
        "p99_ms": percentile(ms, 0.99),
        "max_ms": max(ms),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bot_decisions")
    parser.add_argument("--games", type=int, default=100, help="games per mode and table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="clear the bots' caches before every decision (a worst case, not a game)",
    )
    parser.add_argument(
        "--opponent", default="medium", help="the bot in every other seat (default medium)"
    )
    parser.add_argument(
        "--cpu-clock",
        action="store_true",
        help="time decisions in CPU time of this thread, not wall clock: on a shared, busy"
        " machine the wall clock also counts the time other processes held the core",
    )
    args = parser.parse_args(argv)
    figures = {
        name: measure(
            name,
            games=args.games,
            seed=args.seed,
            cold=args.cold,
            opponent=args.opponent,
            cpu_clock=args.cpu_clock,
        )
        for name in BOT_NAMES
    }
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        print(
            f"{'bot':<8} {'decisions':>9} {'mean ms':>8} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8}"
            f" {'gc ms':>9} {'p99 w/o gc':>10}"
        )
        for name, f in figures.items():
            print(
                f"{name:<8} {f['decisions']:>9} {f['mean_ms']:8.3f} {f['p50_ms']:8.3f} "
                f"{f['p99_ms']:8.3f} {f['max_ms']:8.2f} {f['gc_ms']:9.1f}"
                f" {f['p99_ms_without_gc']:10.3f}"
            )
    hard = figures.get("hard")
    if hard and (hard["mean_ms"] > BUDGET_MEAN_MS or hard["p99_ms"] > BUDGET_P99_MS):
        print(
            f"hard is over budget ({BUDGET_MEAN_MS} ms mean, {BUDGET_P99_MS} ms p99)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
