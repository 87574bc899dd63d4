"""`p2pdice tournament`: bots against each other over many games, with win rates and intervals."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any, cast

from ..core.describe import amount
from ..core.rules import MAX_SEATS, SEATS_RANGE
from .options import CliError, add_rules_options, bots_help, rules_from_args

if TYPE_CHECKING:
    from ..bots.tournament import TournamentResult

MAX_JOBS = 64


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the `tournament` sub-command to the `p2pdice` parser."""
    parser = sub.add_parser(
        "tournament",
        help="play many games between bots and report win rates with 95%% intervals",
        description=(
            "Play many games between bots on the rules engine, rotating the seats so no bot "
            "keeps the first one, and report each bot's win rate (with a 95% interval), "
            "mean placement and games per second. The table has one seat per listed bot."
        ),
    )
    parser.add_argument(
        "--bots",
        required=True,
        metavar="LIST",
        help=(
            f"comma-separated bots, one per seat ({SEATS_RANGE[0]}..{MAX_SEATS}): "
            f"{bots_help()}; a bot listed twice is reported once"
        ),
    )
    parser.add_argument(
        "--games", type=int, default=1000, metavar="N", help="games to play (default 1000)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="S",
        help="random seed (default 0): same seed, same games",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="K",
        help="worker processes (default 1); the figures do not depend on it",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    # Bots play through on the rules engine: no clocks and no undo (Option.people_only).
    add_rules_options(parser, seats_flag="--seats", hosted=False, people=False)
    # The table size is the number of bots listed: keep --seats out of the help, and refuse a
    # value that disagrees (rather than silently ignoring it).
    for action in parser._actions:
        if action.dest == "seats":
            action.help = argparse.SUPPRESS
    parser.set_defaults(run=run)


def json_report(result: TournamentResult, names: list[str]) -> dict[str, Any]:
    """`--json`: the result's own object with what the text shows beside it: each bot's seats
    (how many of the table's it held) and faults (decisions that failed and became the
    blind move), and the rounds played (docs/bots.md)."""
    data = result.to_json()
    listed = cast("dict[str, dict[str, Any]]", data["bots"])
    bots = {name: dict(entry) for name, entry in listed.items()}
    for name, entry in bots.items():
        entry["seats"] = names.count(name)
        entry["faults"] = result.tallies[name].faults
    return {**data, "bots": bots, "rounds": result.rounds}


def run(args: argparse.Namespace) -> int:
    names = [n.strip() for n in args.bots.split(",") if n.strip()]
    if len(names) not in SEATS_RANGE:
        raise CliError(
            f"--bots: list one bot per seat, {SEATS_RANGE[0]} to {MAX_SEATS} of them"
            f" (got {len(names)})"
        )
    if getattr(args, "seats", None) is not None and args.seats != len(names):
        raise CliError(f"--seats: the table has one seat per bot listed in --bots ({len(names)})")
    if args.games < 1:
        raise CliError("--games: must be at least 1")
    if not 1 <= args.jobs <= MAX_JOBS:
        raise CliError(f"--jobs: from 1 to {MAX_JOBS} (this machine has {os.cpu_count()} cores)")
    rules = rules_from_args(args, seats=len(names))
    from ..bots.registry import BotLoadError, load_bot

    for name in dict.fromkeys(names):
        try:
            load_bot(name)
        except BotLoadError as err:
            raise CliError(f"--bots: {err}") from None
    from ..bots.tournament import run_tournament  # the engine and the bots load only when needed

    result = run_tournament(rules, names, games=args.games, seed=args.seed, jobs=args.jobs)
    if args.json:
        print(json.dumps(json_report(result, names), sort_keys=True))
        return 0
    print(f"Rules: {rules.summary()}; {len(names)} seats, rotated every game; seed {args.seed}")
    width = max(8, *(len(n) for n in result.tallies))
    print(f"  {'bot':<{width}}  seats  win rate   95% interval     mean place  faults")
    for name, tally in result.tallies.items():
        lo, hi = tally.ci95()
        print(
            f"  {name:<{width}}  {names.count(name):>5}  {100 * tally.win_rate:7.1f}%  "
            f"[{100 * lo:5.1f}%, {100 * hi:5.1f}%]  {tally.mean_place:10.2f}  {tally.faults:6}"
        )
    print(
        f"{amount(result.games, 'game')}, {amount(result.rounds, 'round')} in {result.seconds:.1f} s "
        f"({result.games_per_second:.1f} games/s)"
    )
    return 0
