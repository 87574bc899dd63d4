"""`p2pdice review FILE`: the coach's review of one player's decisions in a saved game.

The file is verified first (a log that does not verify is refused with its reason); the
review itself is bots/review.py's, which sees only what the player saw at each decision.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.describe import KEY_DIGITS_SHOWN, short_key
from ..core.errors import P2PDiceError
from .options import CliError
from .verify_exits import EXIT_FAILED

if TYPE_CHECKING:  # the verifier, the table and the coach load only when a review runs
    from ..core.events import SeatInfo
    from ..core.table import Replayer

#: Version of the `--json` object's shape.
JSON_SCHEMA = 1


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "review",
        help="the coach: your decisions in a saved game beside the strong bot's",
        description="Verify a saved transcript, then list each decision of one player (bids, "
        "Liar and Exact calls) with its chance of being right from that player's own dice and "
        "the bids so far, the strong bot's move in the same position, and the dice it cost. "
        "Nothing the player could not see at that moment is used.",
    )
    parser.add_argument("file", metavar="FILE", help="a transcript (JSON Lines)")
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, metavar="N", help="the seat to review")
    who.add_argument(
        "--key",
        metavar="HEX",
        help=f"the player key to review, or its start (at least {KEY_DIGITS_SHOWN} hex digits, as "
        "`stats` shows it)",
    )
    who.add_argument("--name", metavar="NAME", help="the player name to review")
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(run=run)


def pick_seat(
    roster: tuple[SeatInfo, ...], *, seat: int | None, key: str | None, name: str | None
) -> int:
    """The seat asked for, or the one seat not played by a CPU."""
    listing = ", ".join(f"{s.seat} {s.name}" for s in roster)
    if seat is not None:
        if not any(s.seat == seat for s in roster):
            raise CliError(f"--seat: no seat {seat} at this table (seats: {listing})")
        return seat
    if key is not None:
        return seat_of_key(roster, key)
    if name is not None:
        named = [s.seat for s in roster if s.name == name]
        if len(named) != 1:
            raise CliError(
                f"--name: {'no' if not named else 'more than one'} seat named {name!r} "
                f"(seats: {listing})"
            )
        return named[0]
    people = [s.seat for s in roster if not s.cpu]
    if len(people) != 1:
        raise CliError(f"choose a player with --seat, --key or --name (seats: {listing})")
    return people[0]


def seat_of_key(roster: tuple[SeatInfo, ...], key: str) -> int:
    """The one seat whose key is `key` or starts with it (as `stats` shows keys, by their
    first KEY_DIGITS_SHOWN hex digits, the fewest taken)."""
    listing = ", ".join(f"{s.seat} {s.name} [{short_key(s.key.hex())}]" for s in roster)
    start = key.lower()
    if len(start) < KEY_DIGITS_SHOWN or any(c not in "0123456789abcdef" for c in start):
        raise CliError(
            f"--key: {key} is not a key nor its start: give at least {KEY_DIGITS_SHOWN} hex digits "
            f"(seats: {listing})"
        )
    matches = [s for s in roster if s.key.hex().startswith(start)]
    if not matches:
        raise CliError(f"--key: no seat has a key starting {key} (seats: {listing})")
    if len(matches) > 1:
        seats = ", ".join(f"{s.seat} {s.name} [{s.key.hex()}]" for s in matches)
        raise CliError(f"--key: {key} starts the keys of more than one seat: {seats}")
    return matches[0].seat


def replayed(lines: list[bytes]) -> Replayer:
    from ..core.table import Replayer
    from ..core.transcript import parse_entry

    replayer = Replayer()
    for line in lines:
        replayer.feed(parse_entry(line))
    assert replayer.state is not None
    return replayer


def run(args: argparse.Namespace) -> int:
    from ..bots.review import (
        movers_from_notes,
        review_rounds,
        review_text,
        summarize,
        unfinished_round,
    )
    from ..core.verify import split_lines, verify_lines

    path = Path(args.file)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CliError(f"cannot read {path}: {err.strerror}") from None
    lines, cut = split_lines(data)
    report = verify_lines(lines, partial=True) if cut is None else None
    failure = cut if report is None else report.failure
    if failure is not None:
        print(f"{path}: does not verify, not reviewed: {failure.describe()}")
        return EXIT_FAILED
    try:
        replayer = replayed(lines)
    except P2PDiceError as err:  # verified a moment ago: only a file changed meanwhile
        print(f"{path}: does not verify, not reviewed: {err.reason}: {err.detail}")
        return EXIT_FAILED
    state = replayer.state
    assert state is not None
    if not state.roster or state.game is None:
        print(f"{path}: the game never started: nothing to review")
        return 0
    seat = pick_seat(state.roster, seat=args.seat, key=args.key, name=args.name)
    movers = movers_from_notes(replayer.notes)
    rounds = list(review_rounds(state.rules, state.game.results, seat, movers))
    unfinished = unfinished_round(state.game, seat)  # the round the game stopped in
    names = [s.name for s in state.roster]
    if args.json:
        s = summarize(rounds)
        print(
            json.dumps(
                {
                    "schema": JSON_SCHEMA,
                    "table": state.name,
                    "seat": seat,
                    "name": names[seat],
                    "key": state.roster[seat].key.hex(),
                    "rounds": [
                        {
                            "round": r.round,
                            "hand": None if r.hand is None else list(r.hand),
                            "dice": list(r.dice),
                            "change": r.change,
                            "outcome": str(r.outcome),
                            "decisions": [d.to_json() for d in r.decisions],
                        }
                        for r in rounds
                    ],
                    "unfinished": None
                    if unfinished is None
                    else {"round": unfinished.round, "moves": unfinished.moves},
                    "summary": {
                        "decisions": s.decisions,
                        "right": s.right,
                        "judged": s.judged,
                        "agreed": s.agreed,
                        "dice_lost": s.dice_lost,
                        "mean_chance": s.mean_chance,
                    },
                },
                indent=1,
            )
        )
        return 0
    print("\n".join(review_text(rounds, names, seat, state.name, unfinished)))
    return 0
