"""Other playing styles, to check that `hard` is strong in general and not only against `medium`.

Two sets:

* threshold players like `medium` with other settings or some noise (below). They are
  third-party bots in the `module:callable` sense; from the repository root:

      python -m p2pdice tournament --bots hard,benchmarks.opponents:passive --games 1000

* the gauntlet, fixed styles built into the product by name: the exploit gauntlet
  (bots/styles.py: never-calls, always-calls, heavy-bluffer, misleading) and the stronger
  gauntlet (crediting-reader, style-switcher, weakest-face, sampler; bots/readers.py and
  bots/styles.py). Running this module plays `hard` against each of them, heads-up and as
  one of four, in classic, perudo and natural, and prints hard's win rate with its Wilson 95%
  interval against the targets of docs/bots.md (exploit gauntlet: >= 90% heads-up, >= 50% as
  one of four; stronger gauntlet: >= 75% heads-up, >= 65% against the sampler, >= 45% as one
  of four):

      python -m benchmarks.opponents [--games N] [--seed S] [--modes ...] [--seats 2,4]
                                     [--styles ...] [--first BOT] [--jobs K] [--json]

  `--first medium` puts another bot in hard's place (for scale; no target applies), and
  `--decision-times` times every decision of each listed style instead (CPU clock, in whole
  games against medium at 2, 4 and 6 seats, as benchmarks.bot_decisions does for the
  difficulties).
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Sequence
from typing import cast

from p2pdice.bots.odds import bid_true_chance, exact_chance, face_probability
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Challenge, ExactCall, PlaceBid
from p2pdice.core.view import SeatView

from .common import RULE_MODES


def _threshold_player(
    view: SeatView,
    rng: random.Random,
    *,
    call_below: float,
    raise_at_least: float,
    exact_at_least: float = 0.40,
    random_raise: float = 0.0,
    random_opening: bool = False,
) -> Action:
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    lowest = view.lowest_bids_per_face()
    if standing is None:
        if random_opening:
            face = rng.choice(sorted(lowest))
            jitter = rng.choice((-1, 0, 1))
        else:
            face = max(lowest, key=lambda f: (view.own_matching(f), f))
            jitter = 0
        p = face_probability(face, wild_ones=view.wild_ones)
        quantity = math.floor(view.own_matching(face) + view.unseen_dice * p) + jitter
        return PlaceBid(seat, Bid(min(max(quantity, 1), view.dice_in_play), face))
    if view.can_exact and exact_chance(view, standing) >= exact_at_least:
        return ExactCall(seat)
    if bid_true_chance(view, standing) < call_below:
        return Challenge(seat)
    candidates = [
        b
        for low in lowest.values()
        for b in (low, Bid(low.quantity + 1, low.face))
        if b.quantity <= view.dice_in_play
    ]
    if not candidates:
        return Challenge(seat)
    if random_raise and rng.random() < random_raise:
        return PlaceBid(seat, rng.choice(candidates))
    best = max(candidates, key=lambda b: (bid_true_chance(view, b), -b.quantity, b.face))
    if bid_true_chance(view, best) >= raise_at_least:
        return PlaceBid(seat, best)
    return Challenge(seat)


def passive(view: SeatView, rng: random.Random) -> Action:
    """Calls only long shots (below 20%), raises down to 10%."""
    return _threshold_player(view, rng, call_below=0.20, raise_at_least=0.10)


def caller(view: SeatView, rng: random.Random) -> Action:
    """Calls anything below even odds, raises only from 25%."""
    return _threshold_player(view, rng, call_below=0.50, raise_at_least=0.25)


def bluffer(view: SeatView, rng: random.Random) -> Action:
    """Medium's thresholds, but opens on a random face and makes a random small raise 30% of the time."""
    return _threshold_player(
        view, rng, call_below=0.35, raise_at_least=0.15, random_raise=0.30, random_opening=True
    )


TARGETS = {2: 0.90, 4: 0.50}  #: hard's win rate against each exploit style, by table size
STRONGER_TARGETS = {2: 0.75, 4: 0.45}  #: the same against each style of the stronger gauntlet
SAMPLER_HEADS_UP_TARGET = 0.65  #: heads-up against the Monte-Carlo sampler


def target(style: str, seats: int) -> float | None:
    """hard's target win rate against `style` at a table of `seats` (docs/bots.md)."""
    from p2pdice.bots.names import STRONGER_STYLE_NAMES

    if style == "sampler" and seats == 2:
        return SAMPLER_HEADS_UP_TARGET
    return (STRONGER_TARGETS if style in STRONGER_STYLE_NAMES else TARGETS).get(seats)


def gauntlet_line(
    style: str, mode: str, seats: int, *, games: int, seed: int, first: str = "hard", jobs: int = 1
) -> dict[str, object]:
    """`first` (hard) as the first of `seats`, the rest `style`: its win rate and interval."""
    from p2pdice.bots.tournament import run_tournament

    rules = RULE_MODES[mode].with_options(seats=seats)
    result = run_tournament(
        rules, [first] + [style] * (seats - 1), games=games, seed=seed, jobs=jobs
    )
    tally = result.tallies[first]
    lo, hi = tally.ci95()
    goal = target(style, seats) if first == "hard" else None
    return {
        "first": first,
        "style": style,
        "mode": mode,
        "seats": seats,
        "games": games,
        "seed": seed,
        "win_rate": round(tally.win_rate, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
        "target": goal,
        "met": None if goal is None else tally.win_rate >= goal,
        "seconds": round(result.seconds, 1),
    }


def decision_times(styles: Sequence[str], *, games: int, seed: int) -> dict[str, dict[str, float]]:
    """CPU time of every decision each style makes in whole games against medium."""
    from .bot_decisions import measure

    return {style: measure(style, games=games, seed=seed, cpu_clock=True) for style in styles}


def main(argv: Sequence[str] | None = None) -> int:
    from p2pdice.bots.names import STYLE_NAMES

    parser = argparse.ArgumentParser(prog="python -m benchmarks.opponents")
    parser.add_argument(
        "--games",
        type=int,
        help="games per line (default 2000); with --decision-times, per mode and table size"
        " (default 10)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--modes", default=",".join(RULE_MODES))
    parser.add_argument("--seats", default="2,4")
    parser.add_argument("--styles", default=",".join(STYLE_NAMES))
    parser.add_argument("--first", default="hard", help="the bot measured (default hard)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes per line")
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument(
        "--decision-times",
        action="store_true",
        help="time each style's decisions (CPU clock) instead of playing hard",
    )
    args = parser.parse_args(argv)
    styles = args.styles.split(",")
    if args.decision_times:
        times = decision_times(styles, games=args.games or 10, seed=args.seed)
        for style, f in times.items():
            if args.json:
                print(json.dumps({"style": style, **f}, sort_keys=True), flush=True)
            else:
                print(
                    f"{style:16} {f['decisions']:6} decisions  mean {f['mean_ms']:6.2f} ms  "
                    f"p50 {f['p50_ms']:6.2f} ms  p99 {f['p99_ms']:6.2f} ms  max {f['max_ms']:6.1f} ms",
                    flush=True,
                )
        return 0
    missed = 0
    for mode in args.modes.split(","):
        for style in styles:
            for seats in (int(n) for n in args.seats.split(",")):
                line = gauntlet_line(
                    style,
                    mode,
                    seats,
                    games=args.games or 2000,
                    seed=args.seed,
                    first=args.first,
                    jobs=args.jobs,
                )
                missed += line["met"] is False
                if args.json:
                    print(json.dumps(line, sort_keys=True), flush=True)
                else:
                    lo, hi = cast("list[float]", line["ci95"])
                    verdict = {None: "", True: "met", False: "MISSED"}[line["met"]]  # type: ignore[index]
                    print(
                        f"{mode:8} {style:16} {seats} seats  {args.first} "
                        f"{100 * line['win_rate']:5.1f}% "  # type: ignore[operator]
                        f"[{100 * lo:5.1f}%, {100 * hi:5.1f}%]  target {line['target']}  "
                        f"{verdict}  ({line['games']} games, {line['seconds']} s)",
                        flush=True,
                    )
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
