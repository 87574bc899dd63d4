"""`p2pdice simulate`: CPU-only games, printed as they play or summarised."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from ..bots.registry import BotLoadError, load_bot
from ..bots.sim import simulate
from ..bots.tournament import BotTally, FaultCounted
from ..core.describe import amount
from .common import output_folder
from .options import CliError, rules_from_args


def bot_names_for_seats(text: str, seats: int) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    if not names:
        raise CliError("--bots: give at least one bot name")
    return [names[i % len(names)] for i in range(seats)]


def transcript_writer(folder: str, games: int) -> Callable[[int, list[bytes]], None]:
    """Saves game `number`'s log as `folder/game-NNNN.jsonl` (the folder made first). A folder
    that cannot be made, or that already holds one of those files (an earlier run's games,
    which would be written over), is refused before any game is played."""
    path = output_folder("--transcripts", folder)
    taken = [p.name for p in (transcript_path(path, n) for n in range(1, games + 1)) if p.exists()]
    if taken:
        raise CliError(
            f"--transcripts: {folder} already holds {taken[0]}"
            + (f" and {len(taken) - 1} more" if len(taken) > 1 else "")
            + " from an earlier run: choose another folder, or move them first"
        )

    def save(number: int, lines: list[bytes]) -> None:
        transcript_path(path, number).write_bytes(b"".join(line + b"\n" for line in lines))

    return save


def transcript_path(folder: Path, number: int) -> Path:
    return folder / f"game-{number:04d}.jsonl"


def run(args: argparse.Namespace) -> int:
    if args.games < 1:
        raise CliError("--games: must be at least 1")
    rules = rules_from_args(args)
    names = bot_names_for_seats(args.bots, rules.seats)
    try:
        bots = [load_bot(n) for n in names]
    except BotLoadError as err:
        raise CliError(f"--bots: {err}") from None
    # Every decision that failed and became the blind move, on the engine or the protocol.
    faults = BotTally()
    bots = [FaultCounted(bot, faults) for bot in bots]
    labels = [f"P{s} ({n})" for s, n in enumerate(names)]
    out = print if args.verbose else None
    if args.transcripts and not args.protocol:
        raise CliError("--transcripts: needs --protocol (only protocol games have transcripts)")
    if (args.faults or args.host_cpu) and not args.protocol:
        raise CliError("--faults, --host-cpu: need --protocol (faults happen in the protocol)")
    if not 0.0 <= args.faults <= 1.0:
        raise CliError("--faults: a probability between 0 and 1")
    if not 0 <= args.host_cpu <= rules.seats:
        raise CliError(f"--host-cpu: between 0 and {rules.seats}")
    save = transcript_writer(args.transcripts, args.games) if args.transcripts else None
    if out:
        print(f"Rules: {rules.summary()}; players: {', '.join(labels)}")
    if args.protocol:
        from ..bots.protosim import Faults, simulate_protocol

        summary = simulate_protocol(
            rules,
            bots,
            games=args.games,
            seed=args.seed,
            names=labels,
            out=out,
            save=save,
            faults=Faults.uniform(args.faults) if args.faults else None,
            host_cpu=args.host_cpu,
        )
    else:
        summary = simulate(rules, bots, games=args.games, seed=args.seed, names=labels, out=out)
    if args.json:
        print(json.dumps({**summary.to_json(names), "bot_faults": faults.faults}, sort_keys=True))
    elif not args.verbose:
        print(
            f"{amount(summary.games, 'game')}, {amount(summary.rounds, 'round')}, "
            f"{summary.games / summary.seconds:.0f} games/s"
        )
        for seat, wins in enumerate(summary.wins):
            print(f"  {labels[seat]:<16} {amount(wins, 'win')} ({100 * wins / summary.games:.1f}%)")
        if faults.faults:
            print(
                f"  bot faults: {amount(faults.faults, 'decision')} failed and became the blind move"
            )
    if args.transcripts and not args.json:
        last = transcript_path(Path(args.transcripts), summary.games).name
        files = "game-0001.jsonl" + (f" to {last}" if summary.games > 1 else "")
        print(f"transcripts: {files} in {args.transcripts} (check them: p2pdice verify FILE)")
    return 0
