"""Hosting tables: the aiohttp application, CPU seats, discovery and the host's log.

`HostService` owns the web server and the zeroconf instance and may run several tables;
`HostedTable` ties one HostTable to its TableServer, its log file, its host-run CPU players
and its advertisement.

Who sits where: the host's own player (and a practice table's other people) sit first, before
the table is listed or advertised; people who join take the next seats in the order they come;
the host's CPUs (`--cpu`, and `--fill-cpu` for the seats still empty) sit down when the start
is due, after the people. Until then the seats promised to the `--cpu` CPUs are kept for them
(HostTable.free_seat) and counted as taken everywhere.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from aiohttp import web

from ..bots.names import DEFAULT_LEVEL
from ..bots.registry import load_bot
from ..core.advert import Advert, seat_name, table_path
from ..core.clean import clean_name
from ..core.client_intents import ends_a_round
from ..core.closing import Closing
from ..core.host import HostTable
from ..core.rules import Rules
from ..core.signing import SigningKey
from ..core.table import TablePhase
from ..core.table_state import TableState
from ..core.transcript import Entry
from ..store import AppendLog, HostLock, TableRecord, load_or_create_key
from .client import LocalClient, hold_the_end
from .discovery import Advertiser, lan_addresses
from .resolve import LISTING_BYTES
from .server import AcceptFailureLog, Limits, TableServer, raise_open_file_limit
from .session import ClientSession
from .tls import SocketGate, TLSSite, server_context

log = logging.getLogger("p2pdice.host")

TABLES: web.AppKey[dict[str, HostedTable]] = web.AppKey("tables", dict)


@dataclass(slots=True)
class TableConfig:
    name: str
    rules: Rules
    #: The level of each host-run CPU seat the genesis declares (`host_cpu`), in the order
    #: they sit down at the start, after the people.
    cpu: list[str] = field(default_factory=list)
    password: str | None = None  #: a new table's password (only its verifier is kept)
    cpu_think: float = 0.0  #: seconds host-run CPU seats pause before each move
    #: The levels of the host-run CPUs that fill the seats still empty at the start (the
    #: genesis `cpu_fill`, SPEC.md 3.3), one per empty seat in seat order, the last level
    #: for every seat past the list; None: empty seats are left out.
    fill_levels: list[str] | None = None
    #: Start as soon as this many seats are taken (None: when every seat is, or when the
    #: host says so: `HostedTable.start_game`).
    start_when: int | None = None


@dataclass(slots=True)
class TableFiles:
    """A table's host state with its lock and log, opened together (HostedTable.open)."""

    host: HostTable
    folder: Path
    lock: HostLock
    log: AppendLog


def _open_table_files(
    home: Path, key: SigningKey, config: TableConfig, resume_lines: list[bytes] | None, now: float
) -> TableFiles:
    """The slow part of opening a table, run on a worker thread: a new table's password
    stretched by scrypt (about 0.13 s, SPEC.md 3.4), a resumed log replayed (a signature check
    per entry), the lock taken, the log opened and a new one written and fsynced."""
    if resume_lines:
        host = HostTable.resume(
            key=key,
            lines=resume_lines,
            password_verifier=None,  # read from the table's own table.json below
            now=now,
        )
    else:
        host = HostTable(
            key=key,
            name=config.name,
            rules=config.rules,
            nonce=secrets.token_bytes(16),
            host_cpu=len(config.cpu),
            cpu_fill=config.fill_levels is not None,
            password=config.password,
            now=now,
        )
    host.start_when = config.start_when
    folder = home / "hosted" / host.table_id.hex()
    lock = HostLock(folder)  # before touching the log: one host per table
    if resume_lines:
        host.password_verifier = TableRecord.load(folder).verifier(host.table_id)
    log = AppendLog(folder / "log.jsonl")
    if not resume_lines:
        for line in host.lines():
            log.append(line)
        log.sync()
    return TableFiles(host, folder, lock, log)


class HostLog:
    """The host's log (`hosted/<id>/log.jsonl`), kept without blocking the loop.

    Each entry is appended and flushed on the loop, before any reader is sent it: a write
    into the kernel's page cache (about 3 microseconds a line, measured here), after which the
    line survives the process being killed, so a restarted host never signs another entry at
    a sequence number a player has seen. The fsync that makes a round durable against a power
    cut (2 ms here, 0.1 s and more on an SD card) runs on a worker thread of the log's own,
    one after the other; the file is closed there after the last.
    """

    def __init__(self, file: AppendLog) -> None:
        self.path = file.path
        self._file = file
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="p2pdice-host-log")
        self._closed = False

    def append(self, line: bytes) -> None:
        self._file.append(line)

    def sync_soon(self) -> None:
        """Make everything appended so far durable, on the worker; `close` waits for it.

        Submitted to the worker directly, not through the loop's `run_in_executor`: nothing on
        the loop waits for an fsync, and the loop's wrapper costs about 100 us of CPU each time
        (a wake-up through the loop's self-pipe to complete a future nobody awaits)."""
        self._worker.submit(self._file.sync).add_done_callback(self._report_failure)

    def _report_failure(self, done: Future[None]) -> None:
        # Runs on the worker thread; logging is thread-safe.
        if not done.cancelled() and done.exception() is not None:
            log.error("the host log %s could not be made durable: %s", self.path, done.exception())

    async def close(self) -> None:
        """Close the file (fsynced) after the fsyncs asked for before."""
        if self._closed:
            return
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(self._worker, self._file.close)
        self._worker.shutdown(wait=False)


class HostedTable:
    def __init__(self, service: HostService, config: TableConfig, files: TableFiles) -> None:
        """Use `HostedTable.open`, which opens the files off the loop."""
        self.service = service
        self.config = config
        self.host = files.host
        self.id = self.host.table_id.hex()
        self.folder = files.folder
        self.lock = files.lock
        self.log = HostLog(files.log)
        self.server = TableServer(
            self.host,
            limits=service.limits,
            on_entry=self._on_entry,
            stand_in=self._add_stand_in,
            retire=self._retire_stand_in,
        )
        self.server.listeners.append(self._on_change)
        self.cpu_clients: dict[str, LocalClient] = {}
        #: The people this machine seats itself (the host's own player first), in seat
        #: order: their owner (cli.runtime) stops them.
        self.player_clients: list[LocalClient] = []
        self._filling: set[str] = set()  #: labels of the CPUs seated to fill empty seats
        self._cpu_keys: list[SigningKey] = []  #: the genesis CPUs' keys, in `config.cpu` order
        self._genesis_seated = False  #: the genesis CPUs' clients run
        #: `start_cpu_seats` ran: the CPUs may sit down once the start is due (not before this
        #: machine's own people, who sit down first).
        self._cpus_ready = False
        #: The public key of each host-run CPU started here (genesis and fill), by label: those
        #: not seated yet are on their way to an empty seat.
        self._cpu_publics: dict[str, bytes] = {}
        self.advertiser: Advertiser | None = None
        self._txt_task: asyncio.Task[None] | None = None
        self.player_name = ""  #: the host's own player's name ("" when the host plays no seat)

    @classmethod
    async def open(
        cls,
        service: HostService,
        config: TableConfig,
        *,
        resume_lines: list[bytes] | None = None,
        player: ClientSession | None = None,
    ) -> HostedTable:
        """A new table, or one resumed from its log. Its files are opened and written on
        worker threads, so the tables already open here keep their pace. `player`: the
        host's own player, whose name the saved record keeps (the resume picker shows it)."""
        now = asyncio.get_running_loop().time()
        files = await asyncio.to_thread(
            _open_table_files, service.home, service.key, config, resume_lines, now
        )
        table = cls(service, config, files)
        if player is not None:
            # A resumed table's player sits under the name its log holds, whatever it asks.
            seated = seat_name(files.host.state, player.key.public)
            table.player_name = seated or player.name
        await asyncio.to_thread(table._save_config)  # two fsyncs: the file and its folder
        return table

    @property
    def path(self) -> str:
        return table_path(self.id)

    def _save_config(self) -> None:
        TableRecord(
            name=self.config.name,
            cpu=tuple(self.config.cpu),
            password_verifier=self.host.password_verifier,
            port=self.service.port,  # a restarted host listens here again (players wait there)
            player=self.player_name,
            cpu_think=self.config.cpu_think,
        ).save(self.folder)

    def _on_entry(self, entry: Entry) -> None:
        self.log.append(entry.line)
        if ends_a_round(entry):  # not after each acknowledgement of the result as well
            self.log.sync_soon()

    def _on_change(self) -> None:
        if self.host.phase == TablePhase.LOBBY:
            self._seat_cpus_when_due()  # once --start-when seats are taken, say
        if self.advertiser is not None and (self._txt_task is None or self._txt_task.done()):
            self._txt_task = asyncio.get_running_loop().create_task(self._publish_txt())

    async def _publish_txt(self) -> None:
        # An update takes about half a second of announcements; a change made meanwhile
        # (two seats joining together) must be published after it, not lost.
        advertiser = self.advertiser
        while advertiser is not None and advertiser.txt != self.txt():
            await advertiser.update(self.txt())

    # ---- CPU seats -----------------------------------------------------------------------

    def _cpu_home(self, label: str) -> Path:
        return self.folder / "cpu" / label

    def _cpu_session(
        self, label: str, difficulty: str, key: SigningKey, *, seat_hint: int | None = None
    ) -> ClientSession:
        home = self._cpu_home(label)
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

    def cpu_keys(self) -> list[SigningKey]:
        """The host-run CPU seats' keys, in the order of `config.cpu`, each created (a file
        written and fsynced) on first use: HostService runs this on a worker thread."""
        return [
            load_or_create_key(self._cpu_home(f"{index + 1}") / "identity.key")
            for index in range(len(self.config.cpu))
        ]

    def seat_players(self, sessions: Sequence[ClientSession]) -> None:
        """This machine's own people sit down, in order: each link's challenge reserves the
        lowest free seat at once, so, run before the table is reachable, they take the
        first seats. The first is the host's own player: the seat a start names when round 1
        is the host's to open (`first_starter` host)."""
        if sessions and self.host.own_key is None:
            self.host.own_key = sessions[0].key.public
        for session in sessions:
            client = LocalClient(session, self.server)
            self.player_clients.append(client)
            client.start()

    async def players_seated(self, timeout: float = 5.0) -> bool:
        """Wait, at most `timeout` seconds, until every person `seat_players` sat down has
        joined, so a listing or an advertisement already counts them; False when one had
        not (its seat stays reserved by its open challenge all the same)."""
        keys = {client.session.key.public for client in self.player_clients}
        seated = asyncio.Event()

        def check() -> None:
            state = self.host.state
            held = {info.key for info in state.joins.values()} | set(state.keys.values())
            if keys <= held or state.phase != TablePhase.LOBBY:
                seated.set()

        check()
        self.server.listeners.append(check)
        try:
            await asyncio.wait_for(seated.wait(), timeout)
        except TimeoutError:
            log.warning("the table opened before this machine's own seats had joined")
        finally:
            self.server.listeners.remove(check)
        return seated.is_set()

    def start_cpu_seats(self, keys: list[SigningKey]) -> None:
        """The genesis CPUs' keys. They sit down when the start is due, after the people
        (`_seat_cpus_when_due`), their seats kept for them till then; on a resumed table
        whose log holds their seats already, they come back at once."""
        self._cpu_keys = keys
        self._cpus_ready = True
        state = self.host.state
        held = {info.key for info in state.joins.values()} | set(state.keys.values())
        if state.phase != TablePhase.LOBBY or any(key.public in held for key in keys):
            self._seat_genesis_cpus()
        self._seat_cpus_when_due()

    def _seat_genesis_cpus(self) -> None:
        if self._genesis_seated:
            return
        self._genesis_seated = True
        for index, (difficulty, key) in enumerate(
            zip(self.config.cpu, self._cpu_keys, strict=True)
        ):
            label = f"{index + 1}"
            self._cpu_publics[label] = key.public
            client = LocalClient(self._cpu_session(label, difficulty, key), self.server)
            self.cpu_clients[label] = client
            client.start()

    def start_game(self) -> None:
        """The host starts the game with the seats taken now: empty seats left out, or, on a
        table opened with `fill_levels`, each taken first by a host-run CPU (SPEC.md 3.3); the
        genesis CPUs sit down first, after the people. LocalError (in words) when the seats
        cannot start a game."""
        self.server.apply(self.host.request_start(self.server.loop_now))
        self._seat_cpus_when_due()

    def _seat_cpus_when_due(self) -> None:
        """Once the start is due: the genesis CPUs, then on a `cpu_fill` table one CPU for
        each seat still empty and not already promised to a CPU on its way."""
        host = self.host
        if not self._cpus_ready or host.phase != TablePhase.LOBBY or not host.start_due():
            return
        self._seat_genesis_cpus()
        levels = self.config.fill_levels
        if not levels or not host.state.cpu_fill:
            return
        joined = {s.key for s in host.state.joins.values()}
        on_the_way = sum(1 for key in self._cpu_publics.values() if key not in joined)
        wanted = len(host.seats_to_fill()) - on_the_way  # the genesis CPUs' included
        keys: list[tuple[str, str, SigningKey]] = []
        # The keys are written and fsynced here, on the loop, as a stand-in's are: a small
        # file per seat, once per table, at the moment the host starts it.
        for _ in range(max(0, wanted)):
            # Labels go on after the genesis CPUs' (1..host_cpu), so each seat has its own
            # folder and key, and a resumed host finds them (`fill_labels`).
            filled = len(self._filling) + len(keys)
            label = str(len(self.config.cpu) + filled + 1)
            level = levels[min(filled, len(levels) - 1)]
            home = self._cpu_home(label)
            keys.append((label, level, load_or_create_key(home / "identity.key")))
            (home / "level").write_text(level + "\n", encoding="utf-8")
        for label, level, key in keys:
            self._filling.add(label)
            self._cpu_publics[label] = key.public
            client = LocalClient(self._cpu_session(label, level, key), self.server)
            self.cpu_clients[label] = client
            client.start()

    def fill_labels(self) -> list[tuple[str, str, SigningKey]]:
        """The CPUs that filled empty seats of this table before, with their levels and keys,
        for a resumed host to run again (they hold seats in the transcript)."""
        found = []
        root = self.folder / "cpu"
        for home in sorted(root.glob("*/level"), key=lambda p: int(p.parent.name)):
            label = home.parent.name
            if label.isdigit() and int(label) > len(self.config.cpu):
                level = home.read_text(encoding="utf-8").strip()
                found.append((label, level, load_or_create_key(home.parent / "identity.key")))
        return found

    def start_fill_seats(self, saved: list[tuple[str, str, SigningKey]]) -> None:
        for label, level, key in saved:
            self._filling.add(label)
            self._cpu_publics[label] = key.public
            client = LocalClient(self._cpu_session(label, level, key), self.server)
            self.cpu_clients[label] = client
            client.start()

    def stand_in_labels(self) -> list[tuple[int, str, SigningKey]]:
        """The stand-ins that play seats in the log now (a `stand_in` with no `return`
        after it), each with its seat, label and key, for a resumed host to run again:
        nobody else can move for those seats (the log names their keys; SPEC.md 8).
        Found by key among the folders `_add_stand_in` made, so each comes back with its
        records (its copy of the log, what it sent, its rounds' secrets). Reads files: a
        worker thread's job."""
        state = self.host.state
        found = []
        for seat in sorted(state.stand_ins):
            for home in sorted((self.folder / "cpu").glob(f"standin-{seat}-*")):
                path = home / "identity.key"
                key = load_or_create_key(path) if path.is_file() else None
                if key is not None and key.public == state.keys.get(seat):
                    found.append((seat, home.name, key))
                    break
            else:
                # Its folder is gone: the seat can be played by nobody, and the table will
                # wait for it until the host ends the game.
                log.error("the key of the stand-in playing seat %d is missing here", seat)
        return found

    def start_stand_ins(self, saved: list[tuple[int, str, SigningKey]]) -> None:
        for seat, label, key in saved:
            session = self._cpu_session(label, DEFAULT_LEVEL, key, seat_hint=seat)
            client = LocalClient(session, self.server)
            self.cpu_clients[label] = client
            client.start()

    def _add_stand_in(self, seat: int) -> None:
        if self.server.frozen:
            # Asked for just before the host paused: the log must stay where play stopped.
            # The resumed host asks again (the seat is absent and nobody stands in for it).
            return
        label = f"standin-{seat}-{secrets.token_hex(4)}"
        # The stand-in's new key is written and fsynced here, on the loop: one small file
        # (1 to 12 ms measured here), once per seat that left for good. Installed later, from
        # a worker thread, the stand-in could be overtaken by its seat's return (_retire).
        key = load_or_create_key(self._cpu_home(label) / "identity.key")
        session = self._cpu_session(label, DEFAULT_LEVEL, key, seat_hint=seat)
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
        return Advert.of_table(
            self.host.state,
            locked=self.host.password_verifier is not None,
            host_player=self.host.own_key,
        )

    def txt(self) -> dict[str, str]:
        return self.advert().to_txt()

    def summary(self) -> dict[str, Any]:
        """The table's `GET /tables` row: the advertisement's keys and who sits where."""
        return {
            "name": self.host.state.name,
            "url_path": self.path,
            **self.txt(),
            "players": seated_players(self.host.state),
        }

    def end_game(self) -> None:
        """End the game early, its person on this machine having chosen to (`q`, `e`; leaving
        a practice table): the signed `game_over` (`abandoned`, SPEC.md 10.3) goes to every
        log and every connection. Nothing when the game is over."""
        if self.host.phase != TablePhase.OVER:
            self.server.apply(self.host.abandon(self.server.loop_now))

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
        if end_game:
            self.end_game()
        if self.host.phase == TablePhase.OVER:
            # The CPUs' copies hold the end too, before their links close.
            await hold_the_end(self.cpu_clients.values())
        for client in list(self.cpu_clients.values()):
            await client.stop()
        if end_game or self.host.phase == TablePhase.OVER:
            await self.server.close(Closing.ENDED)  # after the signed game_over, if it ended now
        else:
            await self.server.close(Closing.PAUSED)
        await self.log.close()
        self.lock.release()
        self.service.tables.pop(self.id, None)  # a closed table no longer holds memory here
        release_memory()


def seated_players(state: TableState) -> list[dict[str, Any]]:
    """The `players` field of a `/tables` row (SPEC.md 10.1): each taken seat's name and the
    key signing for it now, in seat order, `cpu` on a CPU's seat (a stand-in's too). Every
    seated peer and spectator sees these keys in the log, so listing them tells no one more;
    a lobby shows the ratings it knows of them."""
    infos = state.roster or tuple(state.joins[seat] for seat in sorted(state.joins))
    players: list[dict[str, Any]] = []
    for info in infos:
        row: dict[str, Any] = {
            "name": info.name,
            "key": state.keys.get(info.seat, info.key).hex(),
        }
        if info.cpu or info.seat in state.stand_ins:
            row["cpu"] = True
        players.append(row)
    return players


#: Bytes of `players` lists one `/tables` answer carries: a full table's is 0.7 to 1.5 KB
#: (measured), so a host serving hundreds of tables would otherwise outgrow what a reader
#: takes (LISTING_BYTES) and be refused whole. Past it, rows leave the field out.
PLAYERS_BUDGET = LISTING_BYTES // 4


def within_players_budget(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`rows` (summaries, in listing order) with `players` left out of those past the first
    PLAYERS_BUDGET bytes of such lists."""
    spent = 0
    for row in rows:
        spent += len(json.dumps(row.get("players", [])))
        if spent > PLAYERS_BUDGET:
            row.pop("players", None)
    return rows


def release_memory() -> None:
    """Hand freed memory back to the system after a table closes.

    A host runs for hours, table after table; glibc keeps freed blocks in its arenas, so
    without this the resident size creeps up although Python's own heap stays flat (the
    soak measures it).

    On the loop, measured: a full collection holds the interpreter lock wherever it runs, so
    a worker thread would not spare the loop; it takes about 20 ms in a host process (44,000
    objects here), once per table closed, and Python makes such collections on its own during
    play anyway. malloc_trim takes under a millisecond.
    """
    import gc

    gc.collect()
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, found among the symbols the process already has loaded; None
    where the C library has none (musl, macOS). Not by ctypes.util.find_library: that runs
    `ldconfig -p` in a subprocess, and forking a large process on the loop stalled it for over
    0.1 s on a loaded machine."""
    import ctypes

    try:
        process = ctypes.CDLL(None)
    except OSError:  # pragma: no cover - no dynamic loader to ask
        return None
    trim = getattr(process, "malloc_trim", None)
    if trim is None:
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return cast("Callable[[int], int]", trim)


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
        # On the loop, and may fsync (a new key, once per machine): before any table is
        # served, so no player waits on it.
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
        #: The sockets open on the port (net/tls.py), made with the site in `start`.
        self.gate = SocketGate()
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
        # Everything is served over TLS 1.3 with the identity key's certificate (net/tls.py):
        # clients pin the key, so a copied advertisement gets nobody.
        tls = server_context(self.key)
        wait = self.limits.head_timeout  # the TLS handshake is bounded as the request head is
        self.gate = gate = SocketGate(
            per_address=self.limits.sockets_per_address,
            total=self.limits.max_sockets,
            limit_loopback=self.limits.limit_loopback,
        )
        site = TLSSite(
            self.runner,
            self.bind or "0.0.0.0",
            self.port,
            ssl_context=tls,
            handshake_timeout=wait,
            gate=gate,
        )
        try:
            await site.start()
        except OSError as err:
            if not (self.port_fallback and self.port):
                raise
            log.warning("port %d is taken (%s): listening on another one", self.port, err)
            await site.stop()  # unregisters the site that never listened
            self.port = 0
            site = TLSSite(
                self.runner,
                self.bind or "0.0.0.0",
                0,
                ssl_context=tls,
                handshake_timeout=wait,
                gate=gate,
            )
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
        self,
        config: TableConfig,
        *,
        resume_lines: list[bytes] | None = None,
        players: Sequence[ClientSession] = (),
    ) -> HostedTable:
        """Open a table and serve it. `players`: the people this machine seats itself, the
        host's own player first; they sit down before the table is listed or advertised, so
        nobody who joins can take the first seat from the host."""
        table = await HostedTable.open(
            self, config, resume_lines=resume_lines, player=players[0] if players else None
        )
        cpu_keys = await asyncio.to_thread(table.cpu_keys)
        fill = await asyncio.to_thread(table.fill_labels) if resume_lines else []
        stand_ins = await asyncio.to_thread(table.stand_in_labels) if resume_lines else []
        if table.host.state.cpu_fill and not config.fill_levels:
            # A resumed table's: the levels its fill CPUs had, else the default.
            config.fill_levels = [level for _, level, _ in fill] or [DEFAULT_LEVEL]
        table.server.start()
        table.seat_players(players)
        if players and not resume_lines:
            await table.players_seated()
        self.tables[table.id] = table  # reachable and listed from here on
        table.start_fill_seats(fill)
        table.start_cpu_seats(cpu_keys)
        table.start_stand_ins(stand_ins)
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
        if request.transport is not None and web.WebSocketResponse().can_prepare(request).ok:
            # A WebSocket now: never closed to make room (a plain GET of the path stays an
            # HTTP socket the gate may close).
            self.gate.in_use(request.transport.get_extra_info("peername"))
        return await table.server.websocket(request)

    async def _list(self, request: web.Request) -> web.Response:
        return web.json_response(within_players_budget([t.summary() for t in self.tables.values()]))

    async def stop(self, *, end_games: bool = True) -> None:
        for table in list(self.tables.values()):
            await table.close(end_game=end_games)
        if self.azc is not None:
            await self.azc.async_close()
        if self.runner is not None:
            await self.runner.cleanup()
