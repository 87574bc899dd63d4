"""The interactive commands: the lobby, `practice`, `pass-and-play`, and playing at a table
you join or host (`join`, `host` without --bot/--headless call into here).

Everything heavy is imported inside the functions, so `p2pdice --help` stays fast.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path
from typing import Any

from .cli_options import CliError, add_rules_options, rules_from_args
from .cmd_common import add_home_option, home_of, password_of

LEVELS = ("easy", "medium", "hard")


def add_parsers(sub: argparse._SubParsersAction) -> None:
    practice = sub.add_parser(
        "practice",
        help="play against CPU players on this machine (no network needed)",
        description="A table on this machine only (loopback, not advertised) against CPU players. "
        "With --humans N you hold N seats and switch between them with Tab.",
    )
    practice.add_argument(
        "--cpu",
        default=None,
        metavar="N[:LEVEL]",
        help="CPU players and their level: easy, medium (default), hard; default 3 "
        "(or every seat --seats leaves free)",
    )
    practice.add_argument(
        "--name", default=None, help="your name at the table (default: your login name)"
    )
    practice.add_argument(
        "--humans", type=int, default=1, metavar="N", help="seats you play (default 1)"
    )
    add_rules_options(practice)
    add_home_option(practice)
    practice.set_defaults(run=run_practice)

    pnp = sub.add_parser(
        "pass-and-play",
        help="several people sharing this device, with a pass screen between turns",
        description="Several people on one device: a pass screen covers the table between turns "
        "and names who takes the device next. CPU seats never ask for the device.",
    )
    pnp.add_argument(
        "--players",
        default="Player 1,Player 2",
        metavar="NAME,NAME,...",
        help="the people at the table, in seat order",
    )
    pnp.add_argument(
        "--cpu",
        default=None,
        metavar="N[:LEVEL]",
        help="CPU players and their level (default: none, or every seat --seats leaves free)",
    )
    add_rules_options(pnp)
    add_home_option(pnp)
    pnp.set_defaults(run=run_pass_and_play)


def parse_cpu(text: str | None) -> tuple[int, str]:
    """`N` or `N:LEVEL` -> (N, LEVEL)."""
    count, _, level = (text or "0").partition(":")
    level = level or "medium"
    try:
        n = int(count)
    except ValueError:
        raise CliError(f"--cpu: expected N or N:LEVEL, got {text!r}") from None
    if n < 0:
        raise CliError("--cpu: the number of CPU players cannot be negative")
    if level not in LEVELS:
        from .bots.registry import BotLoadError, load_bot

        try:
            load_bot(level)
        except BotLoadError as err:
            raise CliError(f"--cpu: {err}") from None
    return n, level


def _seated_rules(args: argparse.Namespace, humans: int, cpu: int, kind: str, cpu_given: bool):
    if humans < 1:
        raise CliError("at least one person must play")
    seats = getattr(args, "seats", None)
    if seats is None:
        seats = humans + cpu
    elif not cpu_given:
        cpu = seats - humans
    if seats != humans + cpu or cpu < 0:
        raise CliError(f"--seats {seats}: {humans} player(s) and {cpu} CPU make {humans + cpu}")
    if getattr(args, "undo", None) is None:
        args.undo = True
    rules = rules_from_args(
        args, flag_names={"seats": "--seats (players + CPU)"}, kind=kind, seats=seats
    )
    return rules, cpu


def run_practice(args: argparse.Namespace) -> int:
    cpu, level = parse_cpu(args.cpu or "3")
    rules, cpu = _seated_rules(args, args.humans, cpu, "practice", args.cpu is not None)
    home = home_of(args)

    def setup(c, lobby) -> None:
        def open_():  # imported here, after the first frame is on screen (aiohttp is heavy)
            from .ui.runtime import start_practice

            return start_practice(home, rules, [level] * cpu, args.humans, name=args.name)

        lobby.open_table(open_, "opening a practice table")

    return _run(home, setup)


def run_pass_and_play(args: argparse.Namespace) -> int:
    from .net.limits import clean_name

    players = [clean_name(p) for p in args.players.split(",") if clean_name(p)]
    if not players:
        raise CliError("--players: name at least one player")
    if len({p.lower() for p in players}) != len(players):
        raise CliError("--players: two players have the same name")
    cpu, level = parse_cpu(args.cpu or "0")
    rules, cpu = _seated_rules(args, len(players), cpu, "pass_and_play", args.cpu is not None)
    home = home_of(args)

    def setup(c, lobby) -> None:
        def open_():  # imported after the first frame is on screen
            from .ui.runtime import start_pass_and_play

            return start_pass_and_play(home, rules, players, [level] * cpu)

        lobby.open_table(open_, "opening a pass-and-play table")

    return _run(home, setup)


def run_lobby(args: argparse.Namespace | None = None) -> int:
    """`p2pdice` with no arguments: the lobby."""
    home = home_of(args or argparse.Namespace())

    def setup(c, lobby) -> None:
        c.ui.screen = "lobby"
        c.ui.from_lobby = True

    return _run(home, setup, browse=True)


def run_interactive_join(args: argparse.Namespace) -> int:
    """`p2pdice join TABLE` (or `--spectate`) in the terminal client."""
    from .net.limits import clean_name

    name = clean_name(getattr(args, "name", None) or "")
    spectate = bool(getattr(args, "spectate", False))
    if getattr(args, "name", None) and not name:
        raise CliError("--name: the name is empty once control characters are removed")
    password = password_of(args)
    home = home_of(args)
    timeout = getattr(args, "timeout", 5.0)
    give_up = getattr(args, "give_up", 120.0)

    def setup(c, lobby) -> None:
        from .ui.runtime import default_name, start_join

        async def open_() -> Any:
            from .net.resolve import ResolveError, resolve

            try:
                target = await resolve(args.table, timeout=timeout)
            except ResolveError as err:
                raise RuntimeError(str(err)) from None
            return await start_join(
                home,
                url=target.url,
                name=("spectator" if spectate else name or default_name()),
                password=password,
                spectate=spectate,
                table_id=target.table_id,
                give_up_after=give_up,
            )

        lobby.open_table(open_, f"looking for {args.table}")

    return _run(home, setup)


def run_interactive_host(args: argparse.Namespace) -> int:
    """`p2pdice host` without --headless: host the table and play at it here."""
    from .cmd_host import parse_cpu as host_cpu
    from .net.limits import clean_name
    from .store import AppendLog

    name = clean_name(args.name)
    if not name:
        raise CliError("--name: the name is empty once control characters are removed")
    rules = rules_from_args(args)
    cpu = host_cpu(args.cpu, rules.seats)
    if len(cpu) >= rules.seats:
        raise CliError(f"--cpu: at most {rules.seats - 1} CPU seats: you play one seat yourself")
    password = password_of(args)
    home = home_of(args)
    resume_lines = None
    if getattr(args, "resume", None):
        folder = home / "hosted" / args.resume
        resume_lines = AppendLog.read(folder / "log.jsonl")
        if not resume_lines:
            raise CliError(f"--resume: no saved log for table {args.resume} in {home}")
        saved = json.loads((folder / "table.json").read_text())
        name, cpu, password = saved["name"], saved["cpu"], saved["password"]
    player = clean_name(getattr(args, "player", None) or "")

    def setup(c, lobby) -> None:
        from .ui.lobby import joining_hint
        from .ui.runtime import default_name, start_hosting

        async def open_() -> Any:
            runtime = await start_hosting(
                home,
                name=name,
                player=player or default_name(),
                rules=rules,
                cpu=cpu,
                password=password,
                bind=getattr(args, "bind", None),
                port=getattr(args, "port", 0),
                advertise=not getattr(args, "no_advertise", False),
                resume_lines=resume_lines,
            )
            c.say(joining_hint(name, runtime))
            return runtime

        lobby.open_table(open_, "opening your table")

    return _run(home, setup)


def _run(home: Path, setup, *, browse: bool = False) -> int:
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the terminal client needs an interactive terminal")
    from .ui.app import quiet_logging, run_app

    quiet_logging(home)
    return asyncio.run(run_app(home, setup, browse=browse))
