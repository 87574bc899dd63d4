"""Helpers shared by the networked commands: passwords, homes, narration, signals."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from .cli_options import CliError


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
    from .store import data_dir

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


def install_stop_signals(stop: Any) -> None:
    """SIGINT and SIGTERM set the asyncio.Event `stop` (graceful shutdown)."""
    import asyncio
    import contextlib
    import signal

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
