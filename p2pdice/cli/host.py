"""`p2pdice host`: open a table on this machine and advertise it on the LAN."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from ..bots.estimate import how_long_help
from ..bots.names import DEFAULT_LEVEL
from ..core.describe import ranking_line
from ..core.rules import MAX_SEATS, MIN_SEATS, OPTIONS, FirstStarter
from .common import (
    TABLE_NAME,
    add_cpu_think_option,
    add_home_option,
    add_password_option,
    check_port,
    cpu_think_of,
    home_flag,
    home_of,
    install_stop_signals,
    listen_failure,
    load_saved_table,
    name_of,
    password_of,
    refuse_what_a_resumed_table_keeps,
    saved_rules,
)
from .options import (
    CliError,
    add_rules_options,
    bots_help,
    parse_cpu_seats,
    parse_fill_levels,
    rules_from_args,
)

if TYPE_CHECKING:
    import asyncio

    from ..net.server import TableServer
    from ..store import SavedTable


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "host",
        help="host a table on this machine and advertise it on the LAN",
        description="Open a table for up to --seats players, advertise it with mDNS and run "
        "it until the game ends. The host starts the game once two or more seats are taken: "
        "s on the waiting screen, or with --headless the line start on standard input or "
        "--start-when N. People sit in the order they come, the host first; the --cpu CPUs "
        "sit down at the start, after them (their seats are kept till then). Empty seats are "
        "left out, or taken by CPUs with --fill-cpu. With --headless the host does not play.",
        epilog=how_long_help(),
        add_help=False,
    )
    parser.add_argument(
        "-h", "--help", action=_HelpWithEstimate, help="show this help message and exit"
    )
    parser.add_argument(
        "--name", default=TABLE_NAME, help="table name shown in lobbies (24 characters)"
    )
    # A host opens a table for up to six and starts with whoever is seated (SPEC.md 3.3).
    add_rules_options(parser, defaults={"seats": MAX_SEATS})
    parser.add_argument(
        "--cpu",
        metavar="N[:LEVEL],...",
        help=f"seats played by CPUs run by this host, each at its own level ({bots_help()}"
        f"; default {DEFAULT_LEVEL}): 2, or 1:easy,1:hard. Their seats are kept from the "
        "opening; they sit down at the start, after the people, in the order given. "
        "Disclosed to everyone: this machine could read their hands.",
    )
    parser.add_argument(
        "--fill-cpu",
        nargs="?",
        const=DEFAULT_LEVEL,
        metavar="LEVEL,...",
        help="when the game starts, seat a CPU run by this host in every empty seat, at the "
        "levels given in seat order, the last one for the rest: hard, or easy,hard "
        f"(default level {DEFAULT_LEVEL}); without it empty seats are left out",
    )
    parser.add_argument(
        "--start-when",
        type=int,
        metavar="N",
        help="start as soon as N seats are taken, CPUs included (at least 2; default: when "
        "every seat is). With --headless, typing start and Enter starts at once",
    )
    add_cpu_think_option(parser)
    parser.add_argument(
        "--max-connections",
        type=int,
        default=64,
        metavar="N",
        help="connections one table holds: spectators fill it less the seats, and a seated "
        "player always gets in (default 64; with --headless)",
    )
    parser.add_argument("--port", type=int, default=0, help="TCP port (default: any free port)")
    parser.add_argument(
        "--bind",
        metavar="ADDR",
        help="address to listen on and advertise (default: all LAN interfaces)",
    )
    add_password_option(parser)
    parser.add_argument(
        "--headless", action="store_true", help="run the table without playing at it"
    )
    parser.add_argument(
        "--player", metavar="NAME", help="your own name at the table (not with --headless)"
    )
    parser.add_argument(
        "--no-advertise",
        action="store_true",
        help="do not announce the table with mDNS (join by address)",
    )
    parser.add_argument(
        "--resume",
        metavar="TABLE_ID",
        help="restart a table from this machine's saved log, on its saved port when free "
        "(another if it is taken); its short id will do (the lobby's r needs no id). It "
        "keeps its rules, CPU seats and name: rules flags, --cpu or --name that differ are "
        "refused",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the table's address as one JSON line when ready (with --headless)",
    )
    add_home_option(parser)
    parser.set_defaults(run=run)


class _HelpWithEstimate(argparse.Action):
    """-h/--help: the help, its closing estimate of a game's length given for the rules
    flags that come before it (`host --challenge-penalty difference --help`), else for the
    default rules."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        parser.epilog = estimate_epilog(namespace)
        parser.print_help()
        parser.exit()


def estimate_epilog(args: argparse.Namespace) -> str:
    """`host --help`'s estimate for the rules flags in `args` (up to their --seats, else the
    most), or for the default rules when none is given or they do not make a table."""
    given = getattr(args, "preset", None) or any(
        getattr(args, option.key, None) is not None for option in OPTIONS
    )
    if not given:
        return how_long_help()
    try:
        rules = rules_from_args(args, seats=getattr(args, "seats", None) or MAX_SEATS)
    except CliError:
        return how_long_help()  # the command itself says what is wrong with them
    return how_long_help(rules)


def join_lines(name: str, addresses: list[str], *, advertised: bool) -> list[str]:
    """How others reach this table: by name when it is advertised, and by each LAN address
    (a join by name cannot work without the advertisement, so it is not suggested then)."""
    lines = [f"join with: p2pdice join {name!r}"] if advertised else []
    lines += [f"{'or by address' if advertised else 'join with'}: p2pdice join {addresses[0]}"]
    lines += [f"           or: p2pdice join {address}" for address in addresses[1:]]
    return lines


def run(args: argparse.Namespace) -> int:
    if args.headless and args.player is not None:
        raise CliError("--player: a --headless host does not play (leave out --headless to play)")
    if args.headless and args.first_starter == FirstStarter.HOST:
        raise CliError(
            "--first-starter host: a --headless host has no seat to open round 1 from "
            "(leave out --headless to play, or choose random or a seat)"
        )
    check_port(args.port)
    saved = None
    # `is not None`: an empty id (a script's unset variable) is refused, never a new table.
    if args.resume is not None:  # read first: a bad save or a changed rule starts nothing
        saved = load_saved_table(home_of(args), args.resume)
        refuse_what_a_resumed_table_keeps(args, saved)
        torn = saved.torn_words()
        if torn is not None:  # stderr: --json keeps stdout to its one object
            print(f"note: {torn}", file=sys.stderr, flush=True)
    if args.seats is None:
        args.seats = MAX_SEATS  # the most; the game is played by the seats taken at the start
    kept = saved_rules(saved) if saved is not None else None
    check_start_options(args, kept.seats if kept is not None else args.seats)
    if not args.headless:
        from .ui import run_interactive_host

        return run_interactive_host(args, saved)  # host and play here, in the terminal client
    import asyncio

    name = name_of(args.name)
    rules = rules_from_args(args)
    cpu = parse_cpu_seats(args.cpu, seats=rules.seats)
    return asyncio.run(_host(args, name, rules, cpu, saved))


def check_start_options(args: argparse.Namespace, seats: int) -> None:
    """--start-when within the table's seats, and --fill-cpu levels that load."""
    if args.start_when is not None and not MIN_SEATS <= args.start_when <= seats:
        raise CliError(f"--start-when: between {MIN_SEATS} and {seats} (the table's --seats)")
    opener = FirstStarter(args.first_starter).seat if args.first_starter else None
    # With --fill-cpu the fill CPUs take the seats still empty at the start, the opener's too.
    filled = getattr(args, "fill_cpu", None) is not None
    if (
        args.start_when is not None
        and opener is not None
        and args.start_when <= opener
        and not filled
    ):
        # The start is refused while the named seat is empty: the table would wait in silence.
        raise CliError(
            f"--start-when {args.start_when}: --first-starter {args.first_starter} has seat"
            f" {opener} open round 1, so the game needs {opener + 1} seats taken to start"
        )
    parse_fill_levels(args.fill_cpu)


async def _host(
    args: argparse.Namespace, name: str, rules, cpu: list[str], saved: SavedTable | None = None
) -> int:
    import asyncio
    import logging

    from ..core.advert import socket_url
    from ..net.hostapp import HostService, TableConfig

    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    home = home_of(args)
    if args.max_connections < 1:
        raise CliError("--max-connections: at least 1")
    resume_lines = None
    password = password_of(args)
    port = args.port
    saved_think = None
    if saved is not None:  # read by run(), before the service starts
        saved_think = saved.cpu_think
        resume_lines = saved.lines
        # The table's own password verifier is read back by the host (hostapp).
        name, cpu, password = saved.name, saved.cpu, None
        # Players' clients keep retrying the old address: listen there again if it is free.
        port = port or saved.port
    from ..net.server import Limits

    service = HostService(
        home=home,
        bind=args.bind,
        port=port,
        advertise=not args.no_advertise,
        limits=Limits(max_connections=args.max_connections),
        port_fallback=saved is not None and not args.port,
    )
    try:
        await service.start()
    except (OSError, OverflowError) as err:
        raise CliError(listen_failure(err, port=port, bind=args.bind)) from None
    table = await service.open_table(
        TableConfig(
            name=name,
            rules=rules,
            cpu=cpu,
            password=password,
            cpu_think=cpu_think_of(args, saved_think),
            fill_levels=parse_fill_levels(args.fill_cpu),
            start_when=args.start_when,
        ),
        resume_lines=resume_lines,
    )
    addresses = service.join_addresses()
    if args.json:
        print(
            json.dumps(
                {
                    "name": name,
                    "table_id": table.id,
                    "port": service.port,
                    "path": table.path,
                    "url": socket_url(addresses[0], table.path),
                    "join": addresses,
                    "advertised": service.advertise,
                }
            ),
            flush=True,
        )
    else:
        seats = table.host.state.rules.seats  # on --resume: the saved table's, not the flags'
        free = seats - len(cpu)
        print(
            f"table {name!r} open on port {service.port} ({table.host.state.rules.summary()})",
            flush=True,
        )
        for line in join_lines(name, addresses, advertised=service.advertise):
            print(f"  {line}", flush=True)
        print(
            f"  seats: up to {seats}, CPU seats run here: {len(cpu)}"
            + (f" ({', '.join(cpu)}, seated at the start after the players)" if cpu else "")
            + f", room for {free} player(s)",
            flush=True,
        )
        fill = table.config.fill_levels if table.host.state.cpu_fill else None
        print(f"  {start_line(fill, args.start_when, seats)}", flush=True)
    stop = asyncio.Event()
    install_stop_signals(stop)
    read_start_commands(table, asyncio.get_running_loop())
    from .narrate import Narrator

    narrator = Narrator()
    table.server.listeners.append(
        lambda: narrator.update(table.host.state, table.host.chain.hashes)
    )
    done = asyncio.create_task(table.server.over.wait())
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({done, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if table.server.over.is_set():
        await wait_for_players_behind(table.server, stop)
        await asyncio.sleep(0.5)  # let the last entry reach everyone
        game = table.host.state.game
        names = [s.name for s in table.host.state.roster]
        if game is not None and names:
            print("ranking: " + ranking_line(game.ranking, names, shared=len(game.survivors)))
    print(f"transcript: {table.folder / 'log.jsonl'}")
    if not table.server.over.is_set():
        # Stopped by a signal (a shutdown, a closed laptop): the game is paused, not ended,
        # and the players' clients wait for it to come back.
        print(
            f"table paused: resume it with p2pdice host --resume {table.id} --headless"
            f"{home_flag(args)} (or r in the lobby of p2pdice{home_flag(args)})",
            flush=True,
        )
    await service.stop(end_games=False)
    return 0


async def wait_for_players_behind(server: TableServer, stop: asyncio.Event) -> None:
    """Keep a finished table up while a player on another machine does not have its end (its
    laptop dropped as the game ended and it is on its way back), for as long as the table
    gives a dropped player to come back (SPEC.md 10.3): its transcript then verifies whole,
    instead of stopping short of the result. A stop signal ends the wait at once."""
    import asyncio

    if not server.players_behind():
        return
    loop = asyncio.get_running_loop()
    began, wait = loop.time(), float(server.host.state.rules.grace_period)
    stopping = asyncio.ensure_future(stop.wait())
    told = False
    try:
        while (behind := server.players_behind()) and not stopping.done():
            waited = loop.time() - began
            if waited >= wait:
                print(
                    f"{', '.join(server.names(behind))} did not come back: their copies stop before the"
                    " end; this host's log holds the whole game",
                    flush=True,
                )
                return
            away = server.players_away()  # none in the first seconds: clients closing
            if away and not told:
                told = True
                print(
                    f"the game is over; waiting up to {wait - waited:.0f} s more for"
                    f" {', '.join(server.names(away))} to come back for its end (Ctrl-C stops now)",
                    flush=True,
                )
            await asyncio.wait({stopping}, timeout=min(0.1, wait - waited))
    finally:
        stopping.cancel()


def start_line(fill: list[str] | None, start_when: int | None, seats: int) -> str:
    """What a headless host says about starting: when it starts and what empty seats become
    (`fill`: the levels of the CPUs that take them, None: left out)."""
    when = (
        f"starts when {start_when} seats are taken"
        if start_when is not None and start_when < seats
        else "starts when every seat is taken"
    )
    empty = (
        "empty seats are left out"
        if fill is None
        else f"empty seats get CPU players: {fill_words(fill)}"
    )
    return f"{when}, or type start and Enter once 2 are ({empty})"


def fill_words(levels: list[str]) -> str:
    """The fill CPUs' levels as the screens say them: "easy" (every empty seat), or
    "easy, then hard" (the first empty seat easy, every one after it hard)."""
    return levels[0] if len(levels) == 1 else ", ".join(levels[:-1]) + ", then " + levels[-1]


def read_start_commands(table: Any, loop: asyncio.AbstractEventLoop) -> None:
    """`start` on standard input starts the game with the seats taken (a headless host's
    start key). Read on a daemon thread: a closed or absent input just ends it."""
    import sys
    import threading

    def answer(line: str) -> None:
        from ..core.errors import P2PDiceError

        if line.strip().lower() != "start":
            if line.strip():
                print("commands: start (start the game with the seats taken)", flush=True)
            return
        try:
            table.start_game()
        except P2PDiceError as err:
            print(f"cannot start yet: {err.detail}", flush=True)
        else:
            print("starting the game", flush=True)

    def read() -> None:
        try:
            for line in sys.stdin:
                loop.call_soon_threadsafe(answer, line)
        except (OSError, ValueError, RuntimeError):
            return  # input closed, or the loop ended first

    if sys.stdin is not None and not sys.stdin.closed:
        threading.Thread(target=read, name="p2pdice-host-commands", daemon=True).start()
