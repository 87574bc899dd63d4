"""`p2pdice join` and `p2pdice browse`: find tables and take a seat (or watch)."""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import sys
from collections.abc import Coroutine, Sequence
from typing import TYPE_CHECKING, Any

from ..core.closing import CLOSING_WORDS, Closing
from ..core.describe import amount, ranking_line
from ..core.errors import Reason
from .common import (
    add_home_option,
    add_password_option,
    home_of,
    install_stop_signals,
    name_of,
    password_of,
)
from .options import CliError, bots_help, seconds

if TYPE_CHECKING:
    import asyncio

    from ..net.discovery import TableAd


def add_parsers(sub: argparse._SubParsersAction) -> None:
    browse = sub.add_parser(
        "browse",
        help="list the tables on this network",
        description="Listen for tables advertised on the LAN.",
    )
    browse.add_argument(
        "--timeout", type=seconds, default=3.0, metavar="S", help="seconds to listen (default 3)"
    )
    browse.add_argument("--json", action="store_true", help="print a JSON list")
    browse.set_defaults(run=run_browse)

    join = sub.add_parser(
        "join",
        help="join a table by name or HOST:PORT",
        description="Join a table found on the LAN by name, or by address when multicast is blocked.",
    )
    join.add_argument(
        "table", metavar="TABLE|HOST:PORT", help="a table name from `browse`, or HOST:PORT[/TABLE]"
    )
    join.add_argument("--name", default=None, help="your name at the table (24 characters)")
    join.add_argument("--spectate", action="store_true", help="watch without a seat")
    join.add_argument(
        "--bot",
        metavar="LEVEL",
        help=f"let a CPU play this seat on this machine ({bots_help()})",
    )
    join.add_argument(
        "--timeout", type=seconds, default=5.0, metavar="S", help="seconds to look for the table"
    )
    join.add_argument(
        "--give-up",
        type=seconds,
        default=120.0,
        metavar="S",
        help="stop after failing to reach the host for this long, counted while this "
        "machine is awake (default 120)",
    )
    join.add_argument("--seed", type=int, help="seed the bot's random choices (reproducible play)")
    add_password_option(join)
    add_home_option(join)
    join.set_defaults(run=run_join)


def run_browse(args: argparse.Namespace) -> int:
    import asyncio

    from ..net.discovery import browse_once

    tables = asyncio.run(browse_once(args.timeout))
    if args.json:
        print(json.dumps([t.to_json() for t in tables], indent=1))
        return 0
    if not tables:
        print("no tables found (if the network blocks multicast, ask the host for its address)")
        return 0
    for t in tables:
        say(browse_line(t))  # every field is the advertiser's text: `say` cleans it
    return 0


def browse_line(t: TableAd) -> str:
    """One table as plain `browse` lists it: its name and short id (`join NAME#ID` picks it),
    its facts, its rules and where it is, each part set off from the next (the rules are
    free text, and ran into the facts before them: "empty seats left out  aces ones")."""
    from ..net.resolve import table_facts

    ad = t.advert
    cpu = f", {amount(ad.cpu, 'CPU')} run by the host" if ad.cpu else ""
    which = f"#{t.short_id}" if t.short_id else ""
    rules = f"; rules: {ad.rules}" if ad.rules else ""
    host = f", host key {ad.host_short}" if ad.host_short else ""
    return f"{t.name}{which}  {table_facts(ad)}{cpu}{rules}; at {t.addresses[0]}:{t.port}{host}"


def say(text: str, *, limit: int | None = None) -> None:
    """Print one line of a headless join. Names, the table name and the host's error details
    come from the network: they pass through the terminal client's own cleaning (escape
    sequences such as OSC 52 clipboard writes and control characters removed), so a hostile
    host cannot steer the terminal or the log file this output goes to."""
    from ..ui.text import safe_text

    print(safe_text(text, SAY_LIMIT if limit is None else limit), flush=True)


#: Longest line `say` prints; a round's outcome with six long names fits.
SAY_LIMIT = 2000
#: An alarm's proof is a whole signed entry (at most a frame, 64 KiB): never cut short.
PROOF_LIMIT = 70_000


def run_join(args: argparse.Namespace) -> int:
    interactive = sys.stdin.isatty() and sys.stdout.isatty()
    if args.bot is None and (interactive or not args.spectate):
        from .ui import run_interactive_join

        # The terminal client (it explains itself when there is no terminal).
        return run_interactive_join(args)
    import asyncio

    from ..bots.registry import BotLoadError, load_bot

    bot = None
    if args.bot:
        try:
            bot = load_bot(args.bot)
        except BotLoadError as err:
            raise CliError(f"--bot: {err}") from None
    name = name_of(args.name or (f"CPU {args.bot}" if args.bot else "spectator"))
    return asyncio.run(_join(args, name, bot))


async def _join(args: argparse.Namespace, name: str, bot) -> int:
    import asyncio

    from ..core.compare import history_code, stopped_at
    from ..core.table_state import TablePhase
    from ..net.client import Outcome, run_websocket
    from ..net.resolve import ResolveError, resolve
    from ..net.session import ClientSession
    from ..store import load_or_create_key

    try:
        target = await resolve(args.table, timeout=args.timeout)
    except ResolveError as err:
        raise CliError(str(err)) from None
    password = password_of(args)
    home = home_of(args)
    from .ui import refuse_without_password

    refuse_without_password(home, target, password, watch=args.spectate)
    key = load_or_create_key(home / "identity.key")
    session = ClientSession(
        key=key,
        name=name,
        home=home,
        mode="spectate" if args.spectate else "play",
        password=password,
        cpu=bot is not None,
        bot=bot,
        rng=random.Random(args.seed),
        expect_table=target.table_id,
        expect_host_prefix=target.host_key_prefix,
    )
    from .narrate import Narrator

    narrator = Narrator(out=say)
    told = 0  # the client's alarms printed so far
    noted = 0  # the client's notices (messages that did not reach the table) printed so far
    local = 0  # the client's problems with its own records printed so far
    waiting: str | None = None  # the wait for a busy password table last said
    paused = False  # whether we last said the host paused the table
    watching_late = False  # we came to play, found the game started and watch it (SPEC.md 3.3)

    def on_update() -> None:
        nonlocal told, noted, local, waiting, paused, watching_late
        state = session.peer.state if session.peer else None
        if (
            not watching_late
            and not args.spectate
            and session.connected
            and session.seat is None
            and state is not None
            and state.phase != TablePhase.LOBBY
        ):
            watching_late = True
            say(OVER_WORDS if state.phase == TablePhase.OVER else LATE_WORDS)
        notice = session.core.password_retry.notice
        if notice is not None and notice != waiting:
            say(notice)
        waiting = notice
        now_paused = session.core.host_closing == Closing.PAUSED
        if now_paused != paused:
            say(
                f"{CLOSING_WORDS[Closing.PAUSED]}: waiting for it"
                if now_paused
                else "the host is back"
            )
        paused = now_paused
        narrator.update(
            session.peer.state if session.peer else None,
            session.peer.replayer.chain.hashes if session.peer else [],
        )
        for alarm in session.alarms[told:]:  # as they are raised, not only at the end
            where = f" (entry {alarm.seq})" if alarm.seq is not None else ""
            say(f"ALARM: {alarm.reason}: {alarm.detail}{where}")
            for signed in alarm.proof:  # the signed items that prove it, for anyone to check
                say(f"proof: {signed}", limit=PROOF_LIMIT)
        told = len(session.alarms)
        for undelivered in session.core.notices[noted:]:  # information: nobody is accused
            where = f" (entry {undelivered.seq})" if undelivered.seq is not None else ""
            say(f"note: {undelivered.describe()}{where}")
        noted = len(session.core.notices)
        for problem in session.core.local_problems[local:]:  # ours: nobody is accused
            say(f"note: {problem}")
        local = len(session.core.local_problems)

    session.on_update = on_update
    stop = asyncio.Event()
    install_stop_signals(stop)
    say(f"joining {target.name!r} at {target.url}")
    outcome = await _linked(
        run_websocket(session, target.url, give_up_after=args.give_up, stop=stop), stop
    )
    await session.settled()
    session.close()
    on_update()
    path = session.store.transcript_path if session.store is not None else None
    # The client's own check once it stops (core/client_check.py): the game's final check,
    # or the same on the partial log when it stopped early.
    check = session.final_check if outcome == Outcome.OVER else session.self_check(complete=False)
    late = check.alarms if check is not None else ()
    for alarm in late:
        say(f"ALARM: {alarm.describe()}")
    said = {(n.kind, n.counter) for n in session.core.notices}
    for note in check.notes if check is not None else ():
        if note.message is None or note.message not in said:  # not told during play already
            say(f"note: {note.describe()}")
    alarmed = bool(session.alarms or late)
    watched = " of the game you watched" if watching_late else ""
    if outcome == Outcome.OVER:
        state = session.peer.state if session.peer else None
        if state is not None and state.game is not None:
            names = [s.name for s in state.roster]
            ending = json.loads(session.core.lines[-1]).get("event") or {}
            if ending.get("type") == "game_over" and ending.get("reason") == "abandoned":
                say("the host ended the game early (abandoned): nobody won it")
            game = state.game
            say("ranking: " + ranking_line(game.ranking, names, shared=len(game.survivors)))
            assert session.peer is not None
            last = history_code(state, session.peer.replayer.chain)
            if last is not None:
                say(f"code at entry {last[0]}: {last[1]} (read it aloud: same code, same game)")
        if alarmed:
            # The log verified, but something in it (or missing from it) was not fair to us:
            # a script reading the exit status must not take this for a clean game.
            say(f"the game ended with the alarms above; the transcript: {path}")
            return 1
        say(f"verified transcript{watched}: {path}")
        return 0
    if outcome == Outcome.FATAL and session.fatal is not None:
        say(refusal_words(session.fatal, session.errors, repr(target.name)))
        return 2
    if outcome == Outcome.ALARM:
        say("the host's log failed verification: we stopped following it (alarms above)")
        say(f"your verified partial transcript: {path}")
        return 1
    # Information, not an alarm: where this seat's record of the game stops, and how to
    # check it (a log cut short verifies as partial; plain `verify` calls it incomplete).
    where = stopped_at(session.core.lines).describe() if session.core.lines else "the start"
    if outcome == Outcome.GAVE_UP:
        say(f"the host stopped answering; you hold the game {where.removeprefix('verified ')}")
        say(f"your verified partial transcript: {path} (check it: p2pdice verify --partial FILE)")
        return 3
    if watching_late:
        say(f"you stopped watching (you held no seat); the transcript you followed is {where}")
        say(f"it is at {path}: check it with p2pdice verify --partial FILE")
        return 130
    say(f"you left the table; your transcript is {where}: {path}")
    say("nothing is wrong with it: check it with p2pdice verify --partial FILE")
    return 130


#: Seconds a stopped `join` lets its link finish by itself before it cuts it.
STOP_GRACE = 1.0


async def _linked(link: Coroutine[Any, Any, str], stop: asyncio.Event) -> str:
    """Run the table link until it ends, or until `stop` (Ctrl-C, SIGTERM). The link notices
    the stop only when a frame arrives, and a table waiting in its lobby can send none for
    minutes: after STOP_GRACE it is cut, as the terminal client cuts its own, and the join
    stops (its records are written as they come, so nothing is lost)."""
    import asyncio

    from ..net.client import Outcome

    running = asyncio.ensure_future(link)
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not running.done():
            await asyncio.wait({running}, timeout=STOP_GRACE)
        if not running.done():
            running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running
            return Outcome.STOPPED
        return running.result()
    finally:
        stopping.cancel()


#: What a `join` that came to play says on finding the game started: the start fixed the
#: seats (SPEC.md 3.3), so the host offered none, and the client watches instead.
LATE_WORDS = (
    "the game had started before you arrived, so there was no seat for you: "
    "you are watching it (dice stay hidden until each reveal)"
)
OVER_WORDS = (
    "the game was over before you arrived, so there was no seat for you: its record follows"
)


def refusal_words(fatal: tuple[str, str], errors: Sequence[tuple[str, str]], table: str) -> str:
    """A refusal for good, in words: a wrong password says so and what to do (not the
    `BAD_PASSWORD` code); any other says the host's own words, with its code for reference."""
    reason, detail = fatal
    if reason == Reason.BAD_PASSWORD and fatal in errors:  # the host's refusal, not our alarm
        return (
            f"the host refused the password: it is not right for the table {table}. Check "
            "the file given with --password-file (or P2PDICE_PASSWORD) and join again"
        )
    if reason in (Reason.INTERNAL, Reason.MISSING_GAME_OVER):
        # Not a refusal: our own records could not be used, or the table closed for good.
        return f"stopped: {detail}"
    return f"the host refused us: {reason}: {detail}"
