"""The `p2pdice` command. Sub-commands import their machinery inside the functions that run
them, so building the parser (all `--help` does, and what every command does first) imports
only the light modules that hold options and help texts and `--help` stays fast
(tests/cli/test_building_the_parser_imports_no_machinery.py)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from .. import __version__
from ..__main__ import INTERRUPTED
from ..bots.names import DEFAULT_LEVEL
from ..core.errors import UserError
from .options import add_rules_options, bots_help
from .verify_exits import VERIFY_EPILOG, default_jobs

Runner = Callable[[argparse.Namespace], int]


class DefaultsShown(argparse.HelpFormatter):
    """Every option's help ends with its default, read from the option's own definition
    (argparse's `default`), unless its help already says it (the rules options, whose flag
    default is None so a preset can fill it, say theirs from core.rules)."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "(default" in text or not shows_a_default(action):
            return text
        return f"{text} (default {_shown(action.default)})".replace("%", "%%")


def shows_a_default(action: argparse.Action) -> bool:
    """Whether an option has a default worth stating: a value, not "absent" or "off"."""
    if action.help == argparse.SUPPRESS or not action.option_strings:
        return False
    return action.default not in (None, False, argparse.SUPPRESS)


def _shown(default: object) -> str:
    if isinstance(default, float) and default.is_integer():
        return f"{default:g}"
    return str(default)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and exit status 2), never a usage dump, and
    --help states every default (DefaultsShown)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsShown)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _run_simulate(args: argparse.Namespace) -> int:
    from .simulate import run

    return run(args)


def _run_verify(args: argparse.Namespace) -> int:
    from .verify import run

    return run(args)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="p2pdice",
        description="Liar's Dice for people on the same Wi-Fi: provably fair hands, no trusted server. "
        "Run without a command to open the lobby.",
    )
    parser.add_argument("--version", action="version", version=f"p2pdice {__version__}")
    parser.add_argument(
        "--home",
        dest="lobby_home",
        metavar="DIR",
        help="the lobby's folder for keys, secrets and transcripts, as each command's --home "
        "(default: $P2PDICE_HOME or the user data folder)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    sim = sub.add_parser(
        "simulate",
        help="play whole games between CPU players and print them",
        description="Play whole games between CPU players on the rules engine.",
    )
    sim.add_argument("--games", type=int, default=1, metavar="N", help="games to play (default 1)")
    add_rules_options(sim, old_seats_flag="--players", hosted=False)
    sim.add_argument(
        "--bots",
        default=DEFAULT_LEVEL,
        metavar="LIST",
        help=f"comma-separated bots per seat, repeated to fill the table: {bots_help()}",
    )
    sim.add_argument(
        "--seed", type=int, default=0, help="random seed: the same seed plays the same games"
    )
    sim.add_argument("--json", action="store_true", help="print one JSON summary object")
    sim.add_argument(
        "--verbose", action="store_true", help="print every round: hands, bids, calls, counts"
    )
    sim.add_argument(
        "--protocol",
        action="store_true",
        help="play every seat as a real peer through the fairness protocol (slower, signed)",
    )
    sim.add_argument(
        "--transcripts",
        metavar="DIR",
        help="with --protocol: write one transcript per game into DIR (game-0001.jsonl, ...;"
        " a DIR holding an earlier run's games is refused)",
    )
    sim.add_argument(
        "--faults",
        type=float,
        default=0.0,
        metavar="RATE",
        help="with --protocol: lose messages, drop and return seats, take bids back and leave "
        "the lobby, each with probability RATE (0..1) at each chance, seeded (default 0)",
    )
    sim.add_argument(
        "--host-cpu",
        type=int,
        default=0,
        metavar="N",
        help="with --protocol: the last N seats are CPUs run inside the host (default 0)",
    )
    sim.set_defaults(run=_run_simulate)

    ver = sub.add_parser(
        "verify",
        help="check saved game transcripts offline",
        description="Replay saved transcripts and check every signature, commitment, hand, count "
        "and result. Exit status 0 only if every file verifies.",
        epilog=VERIFY_EPILOG,
    )
    ver.add_argument("files", nargs="+", metavar="FILE", help="transcript files (JSON Lines)")
    ver.add_argument(
        "--partial", action="store_true", help="accept a log that stops before game over"
    )
    ver.add_argument(
        "--mine", metavar="STORE", help="your sent-messages file: check the host posted them all"
    )
    ver.add_argument("--json", action="store_true", help="print a JSON report")
    ver.add_argument(
        "--jobs",
        type=int,
        default=default_jobs(),
        metavar="N",
        help="processes to verify with: files in parallel, or one file's signatures in "
        "batches (default: the number of cores; 1 = sequential). The results are the same",
    )
    ver.set_defaults(run=_run_verify)

    from . import host as cmd_host
    from . import join as cmd_join
    from . import learn as cmd_learn
    from . import review as cmd_review
    from . import stats as cmd_stats
    from . import tournament as cmd_tournament
    from . import ui as cmd_ui

    cmd_ui.add_parsers(sub)
    cmd_host.add_parser(sub)
    cmd_join.add_parsers(sub)
    cmd_tournament.add_parser(sub)
    cmd_stats.add_parser(sub)
    cmd_learn.add_parser(sub)
    cmd_review.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run: Runner | None = getattr(args, "run", None)
    if args.lobby_home is not None and getattr(args, "home", None) is None:
        args.home = args.lobby_home  # `p2pdice --home DIR [COMMAND]`: the command's --home too
    if run is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            from .ui import run_lobby

            run = run_lobby  # `p2pdice` alone opens the lobby
        else:
            parser.print_help()
            return 0
    try:
        return run(args)
    except UserError as err:
        print(f"p2pdice {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`p2pdice ... | head`); stop quietly, as Unix tools do.
        # Exit 0, as coreutils do under `| head`: the reader had what it wanted. Point stdout
        # at /dev/null so the interpreter's final flush does not raise again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
