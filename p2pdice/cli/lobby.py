"""The lobby's work outside the screen: tables appearing and disappearing live, liveness
probes, saved tables, and starting the table the player chose (`ui.ports.LobbyServices`).

Browsing runs zeroconf's browser in the background; a second task probes every listed
table with `GET /tables` (short timeout), because a crashed host sends no goodbye. Both
report into the ui's lobby book. The table factories start tables through `cli.runtime`,
imported when a table opens (aiohttp and zeroconf load after the first frame).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import OrderedDict
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.advert import Advert
from ..core.errors import UserError
from ..core.rules import Rules
from ..store import (
    HostedTableSummary,
    SeatRecord,
    load_saved_table,
    saved_seat,
    seat_in_own_transcript,
    unfinished_hosted_tables,
)
from ..ui.controller import Controller
from ..ui.lobby import LobbyActions
from ..ui.lobbymodel import LOBBY_LIMIT, LobbyEntry, listed_players
from ..ui.ports import FoundTable, TableFactory
from ..ui.text import safe_text
from .common import CPU_THINK

if TYPE_CHECKING:
    from ..net.discovery import Browser
    from .runtime import TableRuntime

PROBE_TIMEOUT = 1.5  #: seconds a host has to answer GET /tables
PROBE_TICK = 0.5  #: seconds between looks for tables due a probe
#: Seconds a burst of announcements is gathered for before the lobby is drawn again: 500
#: fakes are a few redraws, not 500 (each one sorting every row).
REDRAW_EVERY = 0.25
#: (table id, host key) pairs the browse remembers looking for a seat at (4 per listed table).
ASKED_KEPT = 4 * LOBBY_LIMIT

#: The lobby's log (ui.log in the data home while the app runs; never the terminal).
log = logging.getLogger("p2pdice.ui")


def set_joining_hints(name: str, runtime: TableRuntime) -> None:
    """The message lines of a table this device opened: once it is open, each LAN address
    to join by, and the name only when the table is advertised (without mDNS a join by name
    cannot find it); once its game has started, the same addresses to watch it from."""
    service = runtime.service
    if service is None:
        runtime.hint = "your table is open"
        return
    where = " or ".join(f"join {address}" for address in service.join_addresses())
    by_name = f"join {name!r} or " if service.advertise else ""
    runtime.started_hint = f"started: others can watch with p2pdice {by_name}{where}"
    if not _seats_left(runtime):
        runtime.hint = f"open, every seat taken: others can watch with p2pdice {by_name}{where}"
    else:
        runtime.hint = f"open: others type p2pdice {by_name}{where}"


def _at_host(record: SeatRecord | None, host_prefix: str) -> bool:
    """A seat record of the table that host (the start of its key, as announced) runs."""
    return record is not None and bool(host_prefix) and record.host.startswith(host_prefix)


def _seats_left(runtime: TableRuntime) -> bool:
    """Whether a new table has a seat no one on this device (the host, its CPUs) takes."""
    from ..core.table import TablePhase

    service = runtime.service
    for table in service.tables.values() if service is not None else ():
        state = table.host.state
        ours = len(table.config.cpu) + len(runtime.sessions)
        # Once started (at once, when this device's seats and CPUs make the table, or a
        # resumed game whose players come back to their seats), the roster says who plays.
        seats = len(state.roster) if state.phase != TablePhase.LOBBY else state.rules.seats
        if ours < seats:
            return True
    return False


class CliLobby:
    """`LobbyServices` for the program: this device's data home and the LAN."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.tasks: list[asyncio.Task[None]] = []
        #: The unfinished tables this device hosted, as last scanned off the loop (the lobby
        #: asks for them on every note; the scan reads and locks a file of each).
        self._hosted: list[HostedTableSummary] = []
        #: Seats found only in this device's transcripts (their seat record lost or
        #: unreadable), by table id: look_for_seat writes them, from the browse's thread.
        self._seats_in_transcripts: dict[str, SeatRecord] = {}
        #: The browse's mDNS browser while it runs: told of each row the probes drop, so that
        #: a table gone without a goodbye (a copy, above all) counts toward none of its caps.
        self.browser: Browser | None = None

    # ---- background: browse and probe ---------------------------------------------------

    def start_browsing(self, c: Controller) -> None:
        """List the tables announced on the LAN in `c`'s lobby, and keep them checked."""
        assert c.lobby is not None, "the lobby's actions are made with the app"
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self._browse(c, c.lobby), name="lobby-browse"))
        self.start_probing(c)

    def start_probing(self, c: Controller) -> None:
        """Check each table in `c`'s lobby book for liveness, every PROBE_EVERY seconds."""
        assert c.lobby is not None, "the lobby's actions are made with the app"
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self._probe_loop(c, c.lobby), name="lobby-probe"))

    async def stop(self) -> None:
        tasks, self.tasks = self.tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _browse(self, c: Controller, lobby: LobbyActions) -> None:
        from ..net.discovery import Browser, new_zeroconf

        book = c.ui.book
        await self.rescan_hosted()  # before the note that offers to resume one
        try:
            azc = new_zeroconf()
        except Exception as err:
            lobby.cannot_listen(
                f"cannot listen for tables here ({safe_text(err, 60)}): press a to join by address"
            )
            return
        browser = self.browser = Browser(azc)
        loop = asyncio.get_running_loop()
        lobby.listening_on("Listening for tables on this network...")
        # (table id, host prefix) already looked up, the oldest forgotten past ASKED_KEPT (a
        # stranger's tables announcing fresh ids cannot stop the look for our own seat).
        asked: OrderedDict[tuple[str, str], None] = OrderedDict()
        try:
            await browser.start()
            async for first in browser.events():
                for event in [first, *browser.pending()]:  # a burst is applied at once
                    t = event.table
                    if event.kind == "removed":
                        book.goodbye(t.service)
                        continue
                    book.announce(t.service, t.name, t.addresses, t.port, t.advert, loop.time())
                    prefix = t.advert.host_key_prefix or ""
                    if (t.table_id, prefix) not in asked:
                        asked[(t.table_id, prefix)] = None
                        while len(asked) > ASKED_KEPT:
                            asked.popitem(last=False)
                        if await asyncio.to_thread(self.look_for_seat, t.table_id, prefix):
                            book.seated.add(t.table_id)
                if dict(browser.ignored) != book.unlisted:
                    book.unlisted = dict(browser.ignored)
                    book.changed()
                c.refresh()
                await asyncio.sleep(REDRAW_EVERY)
        finally:
            self.browser = None
            with contextlib.suppress(Exception):
                await browser.stop()
            with contextlib.suppress(Exception):
                await azc.async_close()

    async def _probe_loop(self, c: Controller, lobby: LobbyActions) -> None:
        import aiohttp

        loop = asyncio.get_running_loop()
        timeout = aiohttp.ClientTimeout(total=PROBE_TIMEOUT)
        from ..net.tls import client_context

        # The listing is a hint over TLS (the table's own connection pins the host key). Each
        # host and port has one request in flight at most, and no probe waits for another:
        # ports that accept and never answer (each holds its request for PROBE_TIMEOUT), or
        # answer only every other time, cannot stretch the check of a host that answers. The
        # book's LOBBY_LIMIT entries bound the requests in flight, so the connector's own
        # limit (100 by default) must not: LOBBY_LIMIT connections at once.
        connector = aiohttp.TCPConnector(ssl=client_context(), limit=LOBBY_LIMIT)
        flying: dict[str, asyncio.Task[None]] = {}  #: probe URL -> its request
        done: list[str] = []  #: probes finished since the screen was last refreshed

        def landed(url: str, task: asyncio.Task[None]) -> None:
            flying.pop(url, None)
            done.append(url)
            # Read, so that asyncio does not print "Task exception was never retrieved" over
            # the screen: a failure outside the request's own handling goes to the log.
            if not task.cancelled() and (err := task.exception()) is not None:
                log.error("probing %s failed", safe_text(url, 80), exc_info=err)

        async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
            try:
                for rounds in itertools.count():
                    if rounds % 10 == 9:  # a hosted game resumed or ended meanwhile
                        await self.rescan_hosted()
                        lobby.update_note()
                    # One request per host and port, whatever number of tables it announces.
                    hosts: dict[str, list[LobbyEntry]] = {}
                    for entry in c.ui.book.due(loop.time()):
                        if entry.probe_url not in flying:
                            hosts.setdefault(entry.probe_url, []).append(entry)
                    for url, group in hosts.items():
                        flying[url] = loop.create_task(self._probe(c, http, url, group))
                        flying[url].add_done_callback(partial(landed, url))
                    if done:
                        done.clear()
                        c.refresh()
                    await asyncio.sleep(PROBE_TICK)
            finally:
                for task in flying.values():
                    task.cancel()
                await asyncio.gather(*flying.values(), return_exceptions=True)

    async def _probe(
        self,
        c: Controller,
        http: Any,
        url: str,
        entries: list[LobbyEntry],
    ) -> None:
        from ..net.resolve import fetch_listing

        tables: list[dict[str, Any]] | None
        try:
            tables = await fetch_listing(http, url)
        except Exception:  # no answer, or not one a p2pdice host gives
            tables = None
        now = asyncio.get_running_loop().time()
        # A stranger's listing may hold anything: only rows that name an id can match one.
        by_id = {
            t["id"]: t for t in tables or () if isinstance(t, dict) and isinstance(t.get("id"), str)
        }
        for entry in entries:
            listed: bool | None = None
            row = by_id.get(entry.table_id)
            if tables is not None:
                listed = row is not None or not entry.table_id
            listing = Advert.from_txt(row) if row is not None else None
            players = None
            if row is not None and listing is not None:
                # Whom the host says it seats: checked whole, ignored if malformed at all.
                players = listed_players(row, listing.seats[1] if listing.seats else None)
            listed_before = entry.service in c.ui.book.entries
            c.ui.book.probed(
                entry.service, listed=listed, now=now, listing=listing, players=players
            )
            if listed_before and entry.service not in c.ui.book.entries and self.browser:
                self.browser.forget(entry.service)  # this probe dropped the row

    # ---- what the lobby's keys ask ------------------------------------------------------

    def default_name(self) -> str:
        from .runtime import default_name

        return default_name()

    def hosted_tables(self) -> Sequence[HostedTableSummary]:
        """As of the last `rescan_hosted` (at most a few seconds old while browsing)."""
        return self._hosted

    async def rescan_hosted(self) -> None:
        """Look for unfinished hosted tables again, off the loop."""
        self._hosted = await asyncio.to_thread(unfinished_hosted_tables, self.home)

    def holds_seat(self, table_id: str, host_prefix: str) -> bool:
        # Reads one small file (seat.json), never writes: the ui's port asks it on the loop,
        # once per key press. A seat the browse found only in the transcript (the seat record
        # lost or unreadable) was remembered by look_for_seat.
        record = saved_seat(self.home, table_id) or self._seats_in_transcripts.get(table_id)
        return _at_host(record, host_prefix)

    def look_for_seat(self, table_id: str, host_prefix: str) -> bool:
        """holds_seat, and where the seat record is missing or unreadable, this device's own
        verified transcript of the table (up to a second's replay): the browse asks it on a
        thread, once for each table it hears of."""
        record = saved_seat(self.home, table_id)
        if record is None:
            record = seat_in_own_transcript(self.home, table_id)
            if record is not None:
                self._seats_in_transcripts[table_id] = record
        return _at_host(record, host_prefix)

    async def find(self, address: str) -> FoundTable:
        from ..net.resolve import ResolveError, resolve

        try:
            return await resolve(address, timeout=3.0)
        except ResolveError as err:
            raise UserError(str(err)) from None

    # ---- opening tables -----------------------------------------------------------------

    def join_table(
        self, *, url: str, name: str, password: str | None, spectate: bool, table_id: bytes | None
    ) -> TableFactory:
        async def join() -> TableRuntime:
            from .runtime import start_join

            return await start_join(
                self.home,
                url=url,
                name=name,
                password=password,
                spectate=spectate,
                table_id=table_id,
            )

        return join

    def host_table(
        self,
        *,
        name: str,
        player: str,
        rules: Rules,
        cpu: list[str],
        password: str | None,
        fill_level: str | None = None,
    ) -> TableFactory:
        async def host() -> TableRuntime:
            from .runtime import start_hosting

            runtime = await start_hosting(
                self.home,
                name=name,
                player=player,
                rules=rules,
                cpu=cpu,
                password=password,
                fill_level=fill_level,
            )
            set_joining_hints(name, runtime)
            return runtime

        return host

    def resume_table(self, table_id: str, *, player: str) -> TableFactory:
        async def host() -> TableRuntime:
            from .runtime import start_hosting

            # The whole log is read (off the loop); a UserError lands on the message line.
            saved = await asyncio.to_thread(load_saved_table, self.home, table_id)
            runtime = await start_hosting(
                self.home,
                name=saved.name,
                player=player,  # only for a seat still free: a seat held before is taken back
                rules=Rules(),  # unused: a resumed table's rules are in its log
                cpu=saved.cpu,
                password=None,  # the host reads the table's verifier back from its own file
                port=saved.port,  # where the players' clients are still knocking
                port_fallback=True,  # else any port: they find the table again by its id
                resume_lines=saved.lines,
                cpu_think=CPU_THINK if saved.cpu_think is None else saved.cpu_think,
            )
            set_joining_hints(saved.name, runtime)
            return runtime

        return host

    def practice_table(self, rules: Rules, cpu: list[str], humans: int) -> TableFactory:
        async def practice() -> TableRuntime:
            from .runtime import start_practice

            return await start_practice(self.home, rules, cpu, humans)

        return practice

    def pass_and_play_table(self, rules: Rules, players: list[str], cpu: list[str]) -> TableFactory:
        async def pass_and_play() -> TableRuntime:
            from .runtime import start_pass_and_play

            return await start_pass_and_play(self.home, rules, players, cpu)

        return pass_and_play
