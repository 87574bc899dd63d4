"""The lobby: tables appearing and disappearing live, liveness probes, and starting tables.

Browsing runs zeroconf's browser in the background; a second task probes every listed
table with `GET /tables` (short timeout), because a crashed host sends no goodbye. The
lobby's keys open a table (join, watch, join by address), the new-table form (host,
practice, pass-and-play), and then start the chosen table through `ui.runtime`.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.advert import Advert
from ..core.clean import clean_name
from ..core.rules import TableKind
from .controller import Controller
from .hostform import HostForm
from .lobbymodel import LobbyEntry
from .state import Prompt
from .text import safe_name, safe_text

if TYPE_CHECKING:  # the runtime pulls in aiohttp and zeroconf: imported when a table opens
    from ..cli.runtime import TableRuntime

log = logging.getLogger("p2pdice.ui")

PROBE_TIMEOUT = 1.5  #: seconds a host has to answer GET /tables


def default_name() -> str:
    from ..cli.runtime import default_name as login_name

    return login_name()


def joining_hint(name: str, runtime: TableRuntime) -> str:
    """The message line after opening a table: each LAN address to join by, and the name
    only when the table is advertised (without mDNS a join by name cannot find it)."""
    service = runtime.service
    if service is None:
        return "your table is open"
    where = " or ".join(f"join {address}" for address in service.join_addresses())
    by_name = f"join {name!r} or " if service.advertise else ""
    return f"open: others type p2pdice {by_name}{where}"


class LobbyActions:
    def __init__(self, c: Controller, home: Path) -> None:
        self.c = c
        self.home = home
        c.lobby = self
        self.tasks: list[asyncio.Task[None]] = []
        self.listening = ""  #: the lobby's note once the browser runs

    @property
    def ui(self):
        return self.c.ui

    # ---- background: browse and probe ---------------------------------------------------

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks = [
            loop.create_task(self._browse(), name="lobby-browse"),
            loop.create_task(self._probe_loop(), name="lobby-probe"),
        ]

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        for task in self.tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _browse(self) -> None:
        from ..net.discovery import Browser, new_zeroconf

        try:
            azc = new_zeroconf()
        except Exception as err:
            self.ui.lobby_note = (
                f"cannot listen for tables here ({safe_text(err, 60)}): press a to join by address"
            )
            self.c.invalidate()
            return
        browser = Browser(azc)
        loop = asyncio.get_running_loop()
        self.listening = "Listening for tables on this network..."
        self.ui.lobby_note = self.listening + self.resume_note()
        try:
            await browser.start()
            async for event in browser.events():
                t = event.table
                if event.kind == "removed":
                    self.ui.book.goodbye(t.service)
                else:
                    self.ui.book.announce(
                        t.service, t.name, t.addresses, t.port, t.advert, loop.time()
                    )
                    if self._holds_seat(t.table_id, t.advert.host_key_prefix or ""):
                        self.ui.book.seated.add(t.table_id)
                self.c.invalidate()
        finally:
            with contextlib.suppress(Exception):
                await browser.stop()
            with contextlib.suppress(Exception):
                await azc.async_close()

    async def _probe_loop(self) -> None:
        import aiohttp

        loop = asyncio.get_running_loop()
        timeout = aiohttp.ClientTimeout(total=PROBE_TIMEOUT)
        async with aiohttp.ClientSession(timeout=timeout) as http:
            for rounds in itertools.count():
                if rounds % 10 == 9 and self.listening:  # a hosted game resumed or ended
                    self.ui.lobby_note = self.listening + self.resume_note()
                due = self.ui.book.due(loop.time())
                if due:
                    await asyncio.gather(*(self._probe(http, e) for e in due))
                    self.c.invalidate()
                await asyncio.sleep(0.5)

    async def _probe(self, http, entry: LobbyEntry) -> None:
        listed: bool | None
        try:
            async with http.get(entry.probe_url) as resp:
                tables = await resp.json(content_type=None)
            mine = [t for t in tables if isinstance(t, dict) and t.get("id") == entry.table_id]
            listed = bool(mine) or not entry.table_id
            if mine:  # the listing is fresher than the TXT record: seats and phase
                entry.advert = entry.advert.with_listing(Advert.from_txt(mine[0]))
        except Exception:
            listed = None
        self.ui.book.probed(entry.service, listed=listed, now=asyncio.get_running_loop().time())

    # ---- tables this machine hosted ------------------------------------------------------

    def resume_note(self) -> str:
        """The lobby's offer to resume a game this device hosted that did not end."""
        from ..store import unfinished_hosted_tables

        tables = unfinished_hosted_tables(self.home)
        if not tables:
            return ""
        if len(tables) == 1:
            return f" Press r to resume your table {safe_name(tables[0].name)!r}."
        return f" Press r to resume one of the {len(tables)} tables you hosted."

    def resume_hosted(self) -> None:
        """`r`: reopen a table this device hosted from its saved log (no id typed by hand)."""
        from ..store import unfinished_hosted_tables

        tables = unfinished_hosted_tables(self.home)
        if not tables:
            self.c.say("no unfinished table was hosted on this device", error=True)
            return
        if len(tables) == 1:
            self.resume(tables[0].table_id)
            return
        listing = ", ".join(f"{i} {safe_name(t.name)}" for i, t in enumerate(tables[:9], 1))

        def chosen(text: str) -> None:
            text = text.strip()
            if not (text.isdigit() and 1 <= int(text) <= min(len(tables), 9)):
                self.c.say(f"type a number from 1 to {min(len(tables), 9)}", error=True)
                return
            self.resume(tables[int(text) - 1].table_id)

        self.ui.prompt = Prompt(f"Resume which table? {listing}:", chosen, text="1")

    def resume(self, table_id: str) -> None:
        from ..core.errors import UserError
        from ..core.rules import Rules
        from ..store import load_saved_table

        try:
            saved = load_saved_table(self.home, table_id)
        except UserError as err:
            self.c.say(safe_text(err, 200), error=True)
            return
        player = self.ui.player_name or default_name()

        async def host() -> TableRuntime:
            from ..cli.runtime import start_hosting

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
            )
            self.c.say(joining_hint(saved.name, runtime))
            return runtime

        self.open_table(host, f"resuming {safe_name(saved.name)!r}")

    # ---- keys ---------------------------------------------------------------------------

    def enter(self, mode: str) -> None:
        if mode == "lobby":
            self.join_selected(spectate=False)
        elif mode == "form":
            form = self.ui.form
            if form is not None and form.check() is not None:
                self.ui.screen = "confirm"
            elif form is not None:
                self.c.say(form.error, error=True)
        elif mode == "confirm":
            self.open_from_form()

    def escape(self, mode: str) -> None:
        if mode == "confirm":
            self.ui.screen = "form"
        elif mode == "form":
            if self.ui.from_lobby:
                self.ui.screen = "lobby"
            else:
                self.c.exit_app(0)

    def join_selected(self, *, spectate: bool) -> None:
        entry = self.ui.book.current()
        if entry is None:
            self.c.say(
                "no table selected: wait for one to appear, or press a to join by address",
                error=True,
            )
            return
        if entry.stale:
            self.c.say("that table's host is not answering", error=True)
            return
        phase = entry.advert.phase or "lobby"
        url = entry.url
        if url is None:
            self.c.say("that table's announcement is malformed: it cannot be joined", error=True)
            return
        if not spectate and self._rejoin(entry, url):
            return
        if not spectate and phase != "lobby":
            self.c.say(f"that table is {safe_text(phase, 20)}: press s to watch it", error=True)
            return
        locked = entry.advert.locked
        self.ask_name_then_join(
            url, bytes.fromhex(entry.table_id), locked=locked, spectate=spectate
        )

    def _holds_seat(self, table_id: str, host_prefix: str) -> bool:
        """Whether this device saved a seat at that table, with the advertised host's key."""
        from ..store import saved_seat

        record = saved_seat(self.home, table_id)
        return record is not None and bool(host_prefix) and record.host.startswith(host_prefix)

    def _rejoin(self, entry: LobbyEntry, url: str) -> bool:
        """Back to the seat this device holds at that table (saved when it sat down: the
        identity key proves it, the saved secrets give back the hand), asking nothing."""
        if not self._holds_seat(entry.table_id, entry.advert.host_key_prefix or ""):
            return False
        from ..cli.runtime import start_join

        name = self.ui.player_name or default_name()  # unused: the seat keeps its name
        self.open_table(
            lambda: start_join(
                self.home,
                url=url,
                name=name,
                password=None,  # a seat is taken back by signature, without the password
                spectate=False,
                table_id=bytes.fromhex(entry.table_id),
            ),
            "back to your seat",
        )
        return True

    def ask_name_then_join(
        self, url: str, table_id: bytes | None, *, locked: bool, spectate: bool
    ) -> None:
        def with_password(name: str, password: str | None) -> None:
            from ..cli.runtime import start_join

            self.open_table(
                lambda: start_join(
                    self.home,
                    url=url,
                    name=name,
                    password=password,
                    spectate=spectate,
                    table_id=table_id,
                ),
                "joining",
            )

        def got_name(text: str) -> None:
            name = clean_name(text) or self.ui.player_name or default_name()
            self.ui.player_name = name
            if locked:
                self.ui.prompt = Prompt(
                    "Password for this table:", lambda pw: with_password(name, pw), secret=True
                )
            else:
                with_password(name, None)

        if spectate and not locked:
            with_password("spectator", None)
            return
        if spectate:
            got_name("spectator")
            return
        self.ui.prompt = Prompt(
            "Your name at the table:", got_name, text=self.ui.player_name or default_name()
        )

    def ask_address(self) -> None:
        async def got(text: str) -> None:
            from ..net.resolve import ResolveError, resolve

            text = text.strip()
            if not text:
                return
            self.c.say(f"looking for {safe_text(text, 60)}...")
            try:
                target = await resolve(text, timeout=3.0)
            except ResolveError as err:
                self.c.say(safe_text(err, 200), error=True)
                return
            self.c.say("")
            self.ask_name_then_join(
                target.url, target.table_id, locked=target.locked, spectate=False
            )

        self.ui.prompt = Prompt(
            "Table address (HOST:PORT, HOST:PORT/TABLE, or a table name):",
            got,
            hint="e.g. 192.168.1.20:8765",
        )

    def new_form(self, kind: TableKind) -> None:
        form = HostForm(kind=kind)
        form.values["my_name"] = self.ui.player_name or default_name()
        self.ui.form = form
        self.ui.screen = "form"

    # ---- opening tables -----------------------------------------------------------------

    def open_table(self, factory: Callable[[], Awaitable[TableRuntime]], what: str) -> None:
        back = self.ui.screen if self.ui.screen in ("lobby", "form", "confirm") else "lobby"
        self.ui.screen = "starting"
        busy = f"{what}..."
        self.c.say(busy)

        async def go() -> None:
            try:
                runtime = await factory()
            except BaseException:
                self.ui.screen = back if self.ui.from_lobby else "starting"
                raise
            self.c.set_runtime(runtime)
            if self.ui.message == busy:
                self.c.say("")

        self.c.spawn(go(), what)

    def open_from_form(self) -> None:
        form = self.ui.form
        if form is None:
            return
        rules = form.check()
        if rules is None:
            self.c.say(form.error, error=True)
            return
        cpu = form.cpu()
        from ..cli.runtime import start_hosting, start_pass_and_play, start_practice

        if form.kind == TableKind.PRACTICE:
            self.open_table(
                lambda: start_practice(self.home, rules, cpu, form.humans()),
                "opening a practice table",
            )
        elif form.kind == TableKind.PASS_AND_PLAY:
            self.open_table(
                lambda: start_pass_and_play(self.home, rules, form.players(), cpu),
                "opening a pass-and-play table",
            )
        else:
            name = clean_name(form.values["name"])
            player = clean_name(form.values["my_name"])
            self.ui.player_name = player
            password = form.values["password"] or None

            async def host() -> TableRuntime:
                runtime = await start_hosting(
                    self.home, name=name, player=player, rules=rules, cpu=cpu, password=password
                )
                self.c.say(joining_hint(name, runtime))
                return runtime

            self.open_table(host, "opening your table")
