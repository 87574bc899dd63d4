"""Hosting tables: the aiohttp application, CPU seats, discovery and the host's log.

`HostService` owns the web server and the zeroconf instance and may run several tables;
`HostedTable` ties one HostTable to its TableServer, its log file, its host-run CPU players
and its advertisement.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aiohttp import web

from ..bots.registry import load_bot
from ..core.advert import Advert
from ..core.codec import encode
from ..core.fairness import rules_hash
from ..core.host import HostTable
from ..core.rules import Rules
from ..core.signing import SigningKey
from ..core.table import TablePhase
from ..core.transcript import Entry
from ..store import AppendLog, HostLock, TableRecord, ends_a_round, load_or_create_key
from .client import LocalClient
from .discovery import Advertiser, lan_addresses
from .limits import clean_name
from .server import AcceptFailureLog, Limits, TableServer, raise_open_file_limit
from .session import ClientSession

log = logging.getLogger("p2pdice.host")

#: What players are told when the host stops without ending the game (their clients keep
#: reconnecting, and find the table again by its id when it is resumed).
PAUSED = "the host paused the table: it can resume it, stay here"

TABLES: web.AppKey[dict[str, HostedTable]] = web.AppKey("tables", dict)


@dataclass(slots=True)
class TableConfig:
    name: str
    rules: Rules
    cpu: list[str] = field(default_factory=list)  #: difficulties of host-run CPU seats
    password: str | None = None  #: a new table's password (only its verifier is kept)
    cpu_think: float = 0.0  #: seconds host-run CPU seats pause before each move


class HostedTable:
    def __init__(
        self, service: HostService, config: TableConfig, *, resume_lines: list[bytes] | None = None
    ) -> None:
        self.service = service
        self.config = config
        loop_now = asyncio.get_running_loop().time()
        if resume_lines:
            self.host = HostTable.resume(
                key=service.key,
                lines=resume_lines,
                password_verifier=None,  # read from the table's own table.json below
                now=loop_now,
            )
        else:
            self.host = HostTable(
                key=service.key,
                name=config.name,
                rules=config.rules,
                nonce=secrets.token_bytes(16),
                host_cpu=len(config.cpu),
                password=config.password,
                now=loop_now,
            )
        self.id = self.host.table_id.hex()
        self.folder = service.home / "hosted" / self.id
        self.lock = HostLock(self.folder)  # before touching the log: one host per table
        if resume_lines:
            saved = TableRecord.load(self.folder)
            self.host.password_verifier = saved.verifier(self.host.table_id)
        self.log = AppendLog(self.folder / "log.jsonl")
        if not resume_lines:
            for line in self.host.lines():
                self.log.append(line)
            self.log.sync()
        self._save_config()
        self.server = TableServer(
            self.host,
            limits=service.limits,
            on_entry=self._on_entry,
            stand_in=self._add_stand_in,
            retire=self._retire_stand_in,
        )
        self.server.listeners.append(self._on_change)
        self.cpu_clients: dict[str, LocalClient] = {}
        self.advertiser: Advertiser | None = None
        self._txt_task: asyncio.Task[None] | None = None

    @property
    def path(self) -> str:
        return f"/t/{self.id}"

    def _save_config(self) -> None:
        TableRecord(
            name=self.config.name,
            cpu=tuple(self.config.cpu),
            password_verifier=self.host.password_verifier,
            port=self.service.port,  # a restarted host listens here again (players wait there)
        ).save(self.folder)

    def _on_entry(self, entry: Entry) -> None:
        self.log.append(entry.line)
        if ends_a_round(entry):  # not after each acknowledgement of the result as well
            self.log.sync()

    def _on_change(self) -> None:
        if self.advertiser is not None and (self._txt_task is None or self._txt_task.done()):
            self._txt_task = asyncio.get_running_loop().create_task(self._publish_txt())

    async def _publish_txt(self) -> None:
        # An update takes about half a second of announcements; a change made meanwhile
        # (two seats joining together) must be published after it, not lost.
        advertiser = self.advertiser
        while advertiser is not None and advertiser.txt != self.txt():
            await advertiser.update(self.txt())

    # ---- CPU seats -----------------------------------------------------------------------

    def _cpu_session(
        self, label: str, difficulty: str, *, seat_hint: int | None = None
    ) -> ClientSession:
        home = self.folder / "cpu" / label
        key = load_or_create_key(home / "identity.key")
        return ClientSession(
            key=key,
            name=clean_name(f"CPU {difficulty} {label}"),
            home=home,
            cpu=True,
            host_run=True,
            bot=load_bot(difficulty),
            rng=random.Random(),
            seat_hint=seat_hint,
            # CPU seats join like anyone, password exchange included, from the verifier.
            password_verifier=self.host.password_verifier,
            think=self.config.cpu_think,
        )

    def start_cpu_seats(self) -> None:
        for index, difficulty in enumerate(self.config.cpu):
            label = f"{index + 1}"
            client = LocalClient(self._cpu_session(label, difficulty), self.server)
            self.cpu_clients[label] = client
            client.start()

    def _add_stand_in(self, seat: int) -> None:
        label = f"standin-{seat}-{secrets.token_hex(4)}"
        session = self._cpu_session(label, "medium", seat_hint=seat)
        self.server.apply(
            self.host.install_stand_in(seat, session.key.public, self.server.loop_now)
        )
        client = LocalClient(session, self.server)
        self.cpu_clients[label] = client
        client.start()

    def _retire_stand_in(self, seat: int) -> None:
        for label, client in list(self.cpu_clients.items()):
            if label.startswith(f"standin-{seat}-"):
                del self.cpu_clients[label]
                asyncio.get_running_loop().create_task(client.stop())

    # ---- discovery -----------------------------------------------------------------------

    def advert(self) -> Advert:
        state = self.host.state
        rules = state.rules
        taken = len(state.joins) if state.phase == TablePhase.LOBBY else rules.seats
        phase = {TablePhase.LOBBY: "lobby", TablePhase.OVER: "finished"}.get(state.phase, "playing")
        return Advert(
            name=state.name,
            table_id=self.id,
            path=self.path,
            rules=rules.summary(),
            rules_hash=rules_hash(encode(rules.to_json()))[:8].hex(),
            seats=(taken, rules.seats),
            phase=phase,
            host_key_prefix=self.host.key.public[:8].hex(),
            locked=self.host.password_verifier is not None,
            cpu=state.host_cpu,
        )

    def txt(self) -> dict[str, str]:
        return self.advert().to_txt()

    def summary(self) -> dict[str, Any]:
        return {"name": self.host.state.name, "url_path": self.path, **self.txt()}

    async def close(self, *, end_game: bool = True) -> None:
        """Close the table; with `end_game` False (the host paused: SIGTERM, a shutdown) the
        game is left as it stands, resumable from the log, instead of ended early."""
        if not end_game:
            # Before anything slow (the mDNS goodbye, stopping CPU seats): a table left
            # running would play on, host-run CPUs at full speed, while it says it paused.
            self.server.freeze()
        if self._txt_task is not None:
            self._txt_task.cancel()
            await asyncio.gather(self._txt_task, return_exceptions=True)
        if self.advertiser is not None:
            await self.advertiser.stop()
        if end_game and self.host.phase != TablePhase.OVER:
            self.server.apply(self.host.abandon(self.server.loop_now))
        for client in list(self.cpu_clients.values()):
            await client.stop()
        if end_game or self.host.phase == TablePhase.OVER:
            await self.server.close()
        else:
            await self.server.close(PAUSED)
        self.log.close()
        self.lock.release()
        self.service.tables.pop(self.id, None)  # a closed table no longer holds memory here
        release_memory()


def release_memory() -> None:
    """Hand freed memory back to the system after a table closes.

    A host runs for hours, table after table; glibc keeps freed blocks in its arenas, so
    without this the resident size creeps up although Python's own heap stays flat (the
    soak measures it).
    """
    import ctypes
    import ctypes.util
    import gc

    gc.collect()
    name = ctypes.util.find_library("c")
    if name:
        libc = ctypes.CDLL(name)
        if hasattr(libc, "malloc_trim"):
            libc.malloc_trim(0)


class HostService:
    """The web server (and zeroconf) on this machine, serving one or more tables."""

    def __init__(
        self,
        *,
        home: Path,
        bind: str | None = None,
        port: int = 0,
        advertise: bool = True,
        limits: Limits | None = None,
        port_fallback: bool = False,
    ) -> None:
        """`port_fallback`: when `port` is taken, listen on any free port instead of failing
        (a resumed table's saved port; the new one is advertised)."""
        self.home = home
        self.port_fallback = port_fallback
        self.key: SigningKey = load_or_create_key(home / "identity.key")
        self.bind = bind
        self.port = port
        self.advertise = advertise
        self.limits = limits or Limits()
        self.tables: dict[str, HostedTable] = {}
        self.app = web.Application()
        self.app[TABLES] = self.tables
        self.app.router.add_get("/t/{table_id}", self._websocket)
        self.app.router.add_get("/tables", self._list)
        self.runner: web.AppRunner | None = None
        self.azc: Any = None

    async def start(self) -> None:
        raise_open_file_limit()
        AcceptFailureLog.install(asyncio.get_running_loop())
        self.runner = web.AppRunner(
            self.app,
            handle_signals=False,
            access_log=None,
            keepalive_timeout=self.limits.head_timeout,  # also the deadline of the first head
        )
        await self.runner.setup()
        site = web.TCPSite(self.runner, self.bind or "0.0.0.0", self.port)
        try:
            await site.start()
        except OSError as err:
            if not (self.port_fallback and self.port):
                raise
            log.warning("port %d is taken (%s): listening on another one", self.port, err)
            await site.stop()  # unregisters the site that never listened
            self.port = 0
            site = web.TCPSite(self.runner, self.bind or "0.0.0.0", 0)
            await site.start()
        if self.runner.addresses:  # the port the system chose when asked for 0
            self.port = self.runner.addresses[0][1]
        if self.advertise:
            from .discovery import new_zeroconf

            self.azc = new_zeroconf(self.bind)

    def join_addresses(self) -> list[str]:
        """`HOST:PORT` for each LAN address this machine can be reached at (what players type
        when multicast is blocked or the table is not advertised)."""
        return [f"{address}:{self.port}" for address in lan_addresses(self.bind)]

    async def open_table(
        self, config: TableConfig, *, resume_lines: list[bytes] | None = None
    ) -> HostedTable:
        table = HostedTable(self, config, resume_lines=resume_lines)
        self.tables[table.id] = table
        table.server.start()
        table.start_cpu_seats()
        if self.advertise and self.azc is not None:
            table.advertiser = Advertiser(
                self.azc,
                name=config.name,
                port=self.port,
                addresses=lan_addresses(self.bind),
                txt=table.txt(),
            )
            await table.advertiser.start()
        return table

    async def _websocket(self, request: web.Request) -> web.StreamResponse:
        table = self.tables.get(request.match_info["table_id"])
        if table is None:
            raise web.HTTPNotFound(text="no such table here")
        return await table.server.websocket(request)

    async def _list(self, request: web.Request) -> web.Response:
        return web.json_response([t.summary() for t in self.tables.values()])

    async def stop(self, *, end_games: bool = True) -> None:
        for table in list(self.tables.values()):
            await table.close(end_game=end_games)
        if self.azc is not None:
            await self.azc.async_close()
        if self.runner is not None:
            await self.runner.cleanup()
