"""Helpers shared by the networked commands: passwords, homes, narration, signals."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

from .cli_options import CliError
from .core.describe import outcome_line
from .core.fairness import comparison_code
from .core.table import TableState
from .store import data_dir


def add_home_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--home",
        metavar="DIR",
        help="where keys, secrets and transcripts live (default: $P2PDICE_HOME or the user data folder)",
    )


def add_password_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--password-file",
        metavar="FILE",
        help="read the table password from FILE (or set P2PDICE_PASSWORD); never pass it on the command line",
    )


def home_of(args: argparse.Namespace) -> Path:
    home = data_dir(getattr(args, "home", None))
    home.mkdir(parents=True, exist_ok=True)
    return home


def password_of(args: argparse.Namespace) -> str | None:
    if getattr(args, "password_file", None):
        try:
            text = Path(args.password_file).read_text(encoding="utf-8")
        except OSError as err:
            raise CliError(
                f"--password-file: cannot read {args.password_file}: {err.strerror}"
            ) from None
        return text.rstrip("\r\n")
    return os.environ.get("P2PDICE_PASSWORD") or None


def install_stop_signals(stop: asyncio.Event) -> None:
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)


class Narrator:
    """Prints a game as its verified entries arrive (for headless hosts and bots)."""

    def __init__(self, out: Callable[[str], None] = print) -> None:
        self.out = out
        self._seen = 0
        self._results = 0
        self._code_told = False

    def update(self, state: TableState | None, hashes: list[bytes]) -> None:
        if state is None:
            return
        names = [s.name for s in state.roster] if state.roster else []
        if not self._code_told and state.start_seq is not None and len(hashes) > state.start_seq:
            self._code_told = True
            code = comparison_code(hashes[state.start_seq])
            self.out(f"game started: {', '.join(names)}")
            self.out(
                f"comparison code {code} (compare it aloud: everyone at this table sees the same)"
            )
            host_run = [s.name for s in state.roster if s.host_run]
            if host_run:
                self.out(
                    f"note: the host's machine runs {', '.join(host_run)} and could read their hands"
                )
        game = state.game
        if game is None:
            return
        for result in game.results[self._results :]:
            self.out(f"round {result.round}: " + outcome_line(result, names, state.rules))
        self._results = len(game.results)
