"""The interactive commands: the lobby, `practice`, `pass-and-play`, and playing at a table
you join or host (`join`, `host` without --bot/--headless call into here).

Everything heavy is imported inside the functions, so `p2pdice --help` stays fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..bots.names import BOT_NAMES, DEFAULT_LEVEL, STYLE_NAMES
from ..core.rules import TableKind, time_bank_default
from ..ui.defaults import undo_default
from .common import (
    PRACTICE_CPU,
    add_cpu_think_option,
    add_home_option,
    cpu_think_of,
    home_flag,
    home_of,
    name_of,
    on_signals,
    password_of,
    person_name_of,
)
from .options import (
    CliError,
    add_rules_options,
    parse_cpu_seats,
    parse_fill_levels,
    rules_from_args,
)

if TYPE_CHECKING:
    from ..core.rules import Rules
    from ..net.resolve import Target
    from ..store import SavedTable
    from ..ui.controller import Controller
    from ..ui.lobby import LobbyActions
    from .lobby import CliLobby
    from .runtime import TableRuntime

    #: Opens the first screen's work once the first frame is drawn (see ui.app.run_app).
    Setup = Callable[[Controller, LobbyActions], None]

_LEVELS_HELP = ", ".join(f"{n} (default)" if n == DEFAULT_LEVEL else n for n in BOT_NAMES)


def add_parsers(sub: argparse._SubParsersAction) -> None:
    practice = sub.add_parser(
        "practice",
        help="play against CPU players on this machine (no network needed)",
        description="A table on this machine only (loopback, not advertised) against CPU players. "
        "With --humans N you hold N seats and switch between them with Tab. Your seats come "
        "first, then the CPUs in the order --cpu lists them.",
    )
    practice.add_argument(
        "--cpu",
        default=None,
        metavar="N[:LEVEL],...",
        help="N CPU players at LEVEL, with commas for several levels: 3, or 1:easy,2:hard "
        "(three CPUs: one easy, then two hard), seated in that order after yours; LEVEL is "
        f"{_LEVELS_HELP} or a style: {', '.join(STYLE_NAMES)}; "
        f"default {PRACTICE_CPU} CPUs (or every seat --seats leaves free)",
    )
    practice.add_argument(
        "--name", default=None, help="your name at the table (default: your login name)"
    )
    practice.add_argument(
        "--humans", type=int, default=1, metavar="N", help="seats you play (default 1)"
    )
    add_cpu_think_option(practice)
    add_rules_options(practice, defaults=_seated_defaults(TableKind.PRACTICE))
    add_home_option(practice)
    practice.set_defaults(run=run_practice)

    pnp = sub.add_parser(
        "pass-and-play",
        help="several people sharing this device, with a pass screen between turns",
        description="Several people on one device: a pass screen covers the table between turns "
        "and names who takes the device next. CPU seats never ask for the device. The people "
        "sit first, in --players order, then the CPUs in the order --cpu lists them.",
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
        metavar="N[:LEVEL],...",
        help="N CPU players at LEVEL, with commas for several levels: 2, or 1:easy,2:hard "
        "(three CPUs: one easy, then two hard), seated in that order after the people; LEVEL "
        f"is {_LEVELS_HELP} or a style: {', '.join(STYLE_NAMES)}; "
        "default none (or every seat --seats leaves free)",
    )
    add_cpu_think_option(pnp)
    add_rules_options(pnp, defaults=_seated_defaults(TableKind.PASS_AND_PLAY))
    add_home_option(pnp)
    pnp.set_defaults(run=run_pass_and_play)


def _seated_defaults(kind: TableKind) -> dict[str, object]:
    """What --help says for practice and pass-and-play tables, which choose these themselves."""
    return {
        "seats": "players + CPU",
        "undo": undo_default(kind),
        "time_bank": time_bank_default(kind),
    }


def _seated_rules(
    args: argparse.Namespace, humans: int, cpu: int, kind: str, cpu_given: bool
) -> tuple[Rules, int]:
    if humans < 1:
        raise CliError("at least one person must play")
    if getattr(args, "seats", None) is None and humans + cpu < 2:
        more = "name another player" if kind == "pass_and_play" else "play more seats (--humans 2)"
        flag = "--players" if kind == "pass_and_play" else "--cpu"
        raise CliError(
            f"{flag}: a table needs at least two seats: {more} or add CPU players with --cpu N"
        )
    seats = getattr(args, "seats", None)
    if seats is None:
        seats = humans + cpu
    elif not cpu_given:
        cpu = seats - humans
    if seats != humans + cpu or cpu < 0:
        from ..core.describe import amount

        raise CliError(
            f"--seats {seats}: {amount(humans, 'player')} and {cpu} CPU make {humans + cpu}"
        )
    if getattr(args, "undo", None) is None:
        args.undo = undo_default(TableKind(kind))
    if getattr(args, "time_bank", None) is None:
        args.time_bank = time_bank_default(TableKind(kind))
    rules = rules_from_args(
        args, flag_names={"seats": "--seats (players + CPU)"}, kind=kind, seats=seats
    )
    return rules, cpu


def run_practice(args: argparse.Namespace) -> int:
    levels = parse_cpu_seats(args.cpu or str(PRACTICE_CPU))
    if args.name is not None:
        person_name_of(args.name)
    rules, cpu = _seated_rules(args, args.humans, len(levels), "practice", args.cpu is not None)
    if len(levels) != cpu:  # --seats without --cpu: every other seat a CPU of the default level
        levels = [DEFAULT_LEVEL] * cpu
    home = home_of(args)
    think = cpu_think_of(args)

    def setup(c: Controller, lobby: LobbyActions) -> None:
        async def open_() -> TableRuntime:  # imported after the first frame (aiohttp is heavy)
            from .runtime import start_practice

            return await start_practice(
                home, rules, levels, args.humans, name=args.name, cpu_think=think
            )

        lobby.open_table(open_, "opening a practice table")

    return run_screen(home, setup)


def run_pass_and_play(args: argparse.Namespace) -> int:
    from ..core.clean import clean_name, long_name_problem
    from ..core.names import same_name_problem

    too_long = long_name_problem(args.players.split(","))
    if too_long:
        raise CliError(f"--players: {too_long}")
    players = [clean_name(p) for p in args.players.split(",") if clean_name(p)]
    if not players:
        raise CliError("--players: name at least one player")
    problem = same_name_problem(players)
    if problem:
        raise CliError(f"--players: {problem}")
    for player in players:
        person_name_of(player, "--players")
    levels = parse_cpu_seats(args.cpu or "0")
    rules, cpu = _seated_rules(
        args, len(players), len(levels), "pass_and_play", args.cpu is not None
    )
    if len(levels) != cpu:  # --seats without --cpu: every other seat a CPU of the default level
        levels = [DEFAULT_LEVEL] * cpu
    home = home_of(args)
    think = cpu_think_of(args)

    def setup(c: Controller, lobby: LobbyActions) -> None:
        async def open_() -> TableRuntime:  # imported after the first frame is on screen
            from .runtime import start_pass_and_play

            return await start_pass_and_play(home, rules, players, levels, cpu_think=think)

        lobby.open_table(open_, "opening a pass-and-play table")

    return run_screen(home, setup)


def run_lobby(args: argparse.Namespace | None = None) -> int:
    """`p2pdice` with no arguments: the lobby."""
    home = home_of(args or argparse.Namespace())

    def setup(c: Controller, lobby: LobbyActions) -> None:
        c.ui.screen = "lobby"
        c.ui.from_lobby = True
        services.start_browsing(c)

    from ..ui.learn import LEARN_FROM_LOBBY
    from ..ui.record import RECORD_FROM_LOBBY

    code = 0
    for _ in range(1000):  # each pass is a person choosing `l` or `g` and coming back
        services = _services(home)
        code = run_screen(home, setup, services)
        if code == LEARN_FROM_LOBBY:
            from .learn import learn_with_defaults

            learn_with_defaults(home)
        elif code == RECORD_FROM_LOBBY:
            from ..ui.record import run_record
            from .stats import record_text

            run_record(record_text(home))
        else:
            return code
    return code


def password_hint(table: str) -> str:
    return (
        f"the table {table} needs a password: put it in a file and add --password-file FILE, "
        "or set P2PDICE_PASSWORD"
    )


def refuse_without_password(
    home: Path, target: Target, password: str | None, *, watch: bool
) -> None:
    """Before connecting: a table with a password that this join cannot enter is one line and
    exit status 2. A spectator needs no password, nor a player taking back a seat it holds
    (its key is its proof, SPEC.md 10.2)."""
    if not target.locked or password is not None or watch:
        return
    from ..store import holds_seat_at

    if target.table_id is None or not holds_seat_at(home, target.table_id.hex()):
        raise CliError(password_hint(repr(target.name)))


def run_interactive_join(args: argparse.Namespace) -> int:
    """`p2pdice join TABLE` (or `--spectate`) in the terminal client."""
    name = person_name_of(args.name) if getattr(args, "name", None) else ""
    spectate = bool(getattr(args, "spectate", False))
    password = password_of(args)
    home = home_of(args)
    timeout = getattr(args, "timeout", 5.0)
    give_up = getattr(args, "give_up", 120.0)
    _need_terminal()
    # Found before the full screen opens: a table that is not there, or that needs a password
    # we were not given, is one line and exit status 2, not a screen to quit from.
    import asyncio

    from ..net.resolve import ResolveError, resolve

    print(f"looking for {args.table}...", flush=True)
    try:
        target = asyncio.run(resolve(args.table, timeout=timeout))
    except ResolveError as err:
        raise CliError(str(err)) from None
    refuse_without_password(home, target, password, watch=spectate)

    def setup(c: Controller, lobby: LobbyActions) -> None:
        from ..ui.text import safe_text
        from .runtime import default_name, start_join

        def joining(password: str | None) -> Callable[[], Awaitable[TableRuntime]]:
            async def open_() -> TableRuntime:
                return await start_join(
                    home,
                    url=target.url,
                    name=("spectator" if spectate else name or default_name()),
                    password=password,
                    spectate=spectate,
                    table_id=target.table_id,
                    give_up_after=give_up,
                )

            return open_

        # A wrong password asks for it again, in words, as the lobby's join does.
        lobby.password_table = safe_text(target.name, 40)
        lobby.open_join(joining, password, f"joining {target.name}")

    return run_screen(home, setup)


def run_interactive_host(args: argparse.Namespace, saved: SavedTable | None = None) -> int:
    """`p2pdice host` without --headless: host the table and play at it here (`saved`: the
    table `--resume` names, read by the command before anything starts)."""

    name = name_of(args.name)
    rules = rules_from_args(args)
    cpu = parse_cpu_seats(args.cpu, seats=rules.seats)
    if len(cpu) >= rules.seats:
        from ..core.describe import amount

        most = amount(rules.seats - 1, "CPU seat")
        raise CliError(f"--cpu: at most {most}: you play one seat yourself")
    password = password_of(args)
    home = home_of(args)
    resume_lines = None
    port = getattr(args, "port", 0)
    saved_think = None
    if saved is not None:
        saved_think = saved.cpu_think
        resume_lines = saved.lines
        # The table's own password verifier is read back by the host (hostapp).
        name, cpu, password = saved.name, saved.cpu, None
        port = port or saved.port  # where the players' clients are still knocking
    player = person_name_of(args.player, "--player") if getattr(args, "player", None) else ""
    think = cpu_think_of(args, saved_think)

    def setup(c: Controller, lobby: LobbyActions) -> None:
        from .lobby import set_joining_hints
        from .runtime import default_name, start_hosting

        c.ui.resume_flags = home_flag(args)

        async def open_() -> TableRuntime:
            runtime = await start_hosting(
                home,
                name=name,
                player=player or default_name(),
                rules=rules,
                cpu=cpu,
                password=password,
                bind=getattr(args, "bind", None),
                port=port,
                advertise=not getattr(args, "no_advertise", False),
                resume_lines=resume_lines,
                port_fallback=resume_lines is not None and not getattr(args, "port", 0),
                cpu_think=think,
                fill_level=parse_fill_levels(getattr(args, "fill_cpu", None)),
                start_when=getattr(args, "start_when", None),
            )
            set_joining_hints(name, runtime)
            return runtime

        lobby.open_table(open_, "opening your table")

    return run_screen(home, setup)


def _need_terminal() -> None:
    import sys

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CliError("the terminal client needs an interactive terminal")


def _services(home: Path) -> CliLobby:
    from .lobby import CliLobby  # here: it loads the ui's modules, which --help does not need

    return CliLobby(home)


def run_screen(home: Path, setup: Setup, services: CliLobby | None = None) -> int:
    """Run the terminal client on `setup` (what it opens first) until it exits; its code."""
    _need_terminal()
    import asyncio
    from functools import partial

    from ..ui.app import leave_on_signal, quiet_logging, run_app

    quiet_logging(home)

    def opening(c: Controller, lobby: LobbyActions) -> None:
        from .stats import ratings_book

        # A closed terminal or a SIGTERM must not cut a practice game's log short (it cannot
        # be resumed) nor leave a hosted table's unpaused: each leaves as Ctrl-C does.
        on_signals(("SIGHUP", "SIGTERM"), partial(leave_on_signal, c))
        # Ratings from this device's verified games, read off the loop after the first frame.
        c.ratings_source = partial(ratings_book, home)
        c.load_ratings()
        setup(c, lobby)

    return asyncio.run(run_app(services or _services(home), opening))
