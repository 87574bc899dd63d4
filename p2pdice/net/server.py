"""The host adapter: aiohttp WebSockets pumped into the sans-I/O HostTable.

One aiohttp application serves any number of tables at `/t/<table id>`; `GET /tables` lists
them (manual join by address, liveness checks). Each connection gets a bounded outgoing
queue drained by its own writer task, so one slow spectator never holds up the table. The
turn timer and every deadline come from `HostTable.next_deadline(now)`, driven by one clock
per table on the event loop's monotonic clock (deadline_clock.py).

CPU seats run by the host are full peers with their own keys and secrets, connected through
an in-process link (`LocalLink`) that carries the very same frames as a socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import math
import secrets
from collections.abc import Callable, Coroutine, Hashable
from dataclasses import dataclass, field
from typing import Any, Protocol

from aiohttp import WSMsgType, web

from ..core.advert import SPECTATE_PARAM
from ..core.client import HEARTBEAT
from ..core.closing import CLOSING_WORDS, Closing
from ..core.codec import encode
from ..core.errors import Reason, RemoteError
from ..core.host import (
    Accepted,
    HostTable,
    NeedStandIn,
    Output,
    Posted,
    Rejected,
    RetireStandIn,
    Seated,
)
from ..core.host_link import answer_challenge, challenge_frame, welcome_frame
from ..core.pake import ENTROPY_BYTES
from ..core.table import TablePhase
from ..core.transcript import Entry
from .deadline_clock import DeadlineClock
from .frames import MAX_FRAME, TO_HOST, decode_frame, encode_frame, error_frame
from .limits import (
    FRAME_UNIT,
    AddressBudget,
    AddressBudgets,
    TokenBucket,
    address_limited,
    frame_cost,
)
from .tls import MAX_SOCKETS, SOCKETS_PER_ADDRESS

log = logging.getLogger("p2pdice.host")

HANDSHAKE_TIMEOUT = 5.0
#: Seconds a TCP connection may take to send a whole HTTP request head (and to send the next
#: one after a response): half-open requests otherwise hold a file descriptor each for an hour.
HEAD_TIMEOUT = 10.0
ACCEPT_REPORT_EVERY = 10.0  #: seconds between two log lines about failing accepts
MAX_CONNECTIONS = 64
OUTBOX_LIMIT = 4096  #: frames queued for one connection before it is dropped as too slow
OUTBOX_BYTES = 8 * 1024 * 1024  #: bytes queued for one connection before it is dropped
#: A `sync` asking again for entries this connection was already sent is paid from a bucket
#: of bytes: 64 KiB at once, 8 KiB a second after that (an honest client only ever asks again
#: for the few entries in flight). Entries it was never sent are paid by its address (see
#: CATCH_UP_COPIES), and a seat's catch-up, however long the log, is never refused.
SYNC_RESEND_RATE = 8 * 1024
SYNC_RESEND_BURST = 64 * 1024
MAX_PENDING = 16  #: connections still answering their challenge, per table
PER_ADDRESS = 8  #: connections of one table from one address (players included)
RESERVE_GRACE = 3.0  #: seconds a seat stays reserved for a join that has not come
SPECTATOR_IDLE = 120.0  #: seconds a spectator may go without a `sync` (clients send one a 30 s)
#: Seconds after the game's end before a player without the end counts as away: a connected
#: client closes within its half-second linger (net/client.py), so only one still on its
#: way back is named (players_away).
AWAY_AFTER = 2.0
#: Budgets per source address, shared by its connections and kept across reconnects (SPEC.md
#: 10.3): frame units (limits.frame_cost: a move costs about 1, a 64 KiB frame 17) ...
ADDRESS_FRAME_RATE = 20.0
ADDRESS_FRAME_BURST = 50.0
ADDRESS_DEBT = 10  #: bursts an address may owe: a flood keeps it out up to 25 s after it stops
#: ... and each new connection costs its address this many units: before its first frame a
#: connection has cost the host its TLS handshake, its upgrade and, offered a seat at a table
#: with a password, the host's SPAKE2 message (about 3 ms of the loop), so connecting and
#: hanging up over and over is paid like frames (10 connections a second, 16 at once).
ADDRESS_CONNECTION_COST = 2.0
#: ... and the log sent to it while it holds no seat: two copies of the log (and 16 KiB) at
#: once, then 8 KiB a second. A seat's own catch-up is never refused, but is charged.
CATCH_UP_COPIES = 2
CATCH_UP_SLACK = 16 * 1024
CATCH_UP_RATE = 8 * 1024
#: Everything strangers (connections without a seat) cost the table together: eight copies
#: of the log (and 64 KiB) at once, then 64 KiB a second; and frames above FRAME_UNIT bytes,
#: 1 MiB at once, then 256 KiB a second (an honest stranger only sends small frames).
STRANGER_CATCH_UP_COPIES = 8
STRANGER_CATCH_UP_SLACK = 64 * 1024
STRANGER_CATCH_UP_RATE = 64 * 1024
STRANGER_BIG_FRAME_BURST = 1024 * 1024
STRANGER_BIG_FRAME_RATE = 256 * 1024
#: Seats one address may take in lobbies: 3 at once, then one every 20 s. Leaving a lobby
#: is disconnecting, so this bounds join-and-leave churn (and what it writes into the log).
LOBBY_JOIN_BURST = 3.0
LOBBY_JOIN_RATE = 1.0 / 20.0


@dataclass(slots=True)
class Limits:
    max_connections: int = MAX_CONNECTIONS
    rate: float = 20.0
    burst: float = 50.0
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    head_timeout: float = HEAD_TIMEOUT
    strikes: int = 3  #: rate-limit refusals before the connection is closed
    outbox_bytes: int = OUTBOX_BYTES
    sync_resend_rate: float = SYNC_RESEND_RATE
    sync_resend_burst: float = SYNC_RESEND_BURST
    #: Connections answering their challenge; a new one beyond this closes the oldest.
    max_pending: int = MAX_PENDING
    per_address: int = PER_ADDRESS
    #: Whether `per_address` (and one seat reservation an address) also holds for loopback:
    #: off by default, since connections from this machine are its owner's (and the tests').
    limit_loopback: bool = False
    reserve_grace: float = RESERVE_GRACE
    spectator_idle: float = SPECTATOR_IDLE
    address_frame_rate: float = ADDRESS_FRAME_RATE
    address_frame_burst: float = ADDRESS_FRAME_BURST
    address_connection_cost: float = ADDRESS_CONNECTION_COST
    catch_up_copies: int = CATCH_UP_COPIES
    catch_up_slack: int = CATCH_UP_SLACK
    catch_up_rate: float = CATCH_UP_RATE
    stranger_catch_up_copies: int = STRANGER_CATCH_UP_COPIES
    stranger_catch_up_slack: int = STRANGER_CATCH_UP_SLACK
    stranger_catch_up_rate: float = STRANGER_CATCH_UP_RATE
    stranger_big_frame_burst: float = STRANGER_BIG_FRAME_BURST
    stranger_big_frame_rate: float = STRANGER_BIG_FRAME_RATE
    lobby_join_burst: float = LOBBY_JOIN_BURST
    lobby_join_rate: float = LOBBY_JOIN_RATE
    #: Sockets open on the port at once, from one address and in all, counted before TLS
    #: (net/tls.py SocketGate; `limit_loopback` decides for loopback here too).
    sockets_per_address: int = SOCKETS_PER_ADDRESS
    max_sockets: int = MAX_SOCKETS


class DirectWriter(Protocol):
    """A socket's connection written to without its writer task."""

    def ready(self) -> bool:
        """Whether bytes may be written now (it is open, its buffer not full)."""

    def write(self, data: bytes) -> None:
        """Write WebSocket frames' bytes (dropped once the connection is closing)."""


@dataclass(eq=False)
class Connection:
    """One client: a socket or an in-process link, with its own outgoing queue."""

    id: int
    deliver: Callable[[str], Any]  #: coroutine function or plain function taking a frame
    local: bool = False
    seat: int | None = None
    spectator: bool = False
    handshaken: bool = False
    bucket: TokenBucket = field(default_factory=TokenBucket)
    strikes: int = 0
    logged: set[str] = field(default_factory=set)
    outbox: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(OUTBOX_LIMIT))
    queued_bytes: int = 0  #: of the frames in `outbox`
    #: The entries [sent_from, sent_upto) were queued (or are due) on this connection: what
    #: a `sync` asks for again is costed against this range.
    sent_from: int = 0
    sent_upto: int = 0
    #: A sync answer still being fed into the queue: entries [sync_next, sync_end).
    sync_next: int = 0
    sync_end: int = 0
    resend: TokenBucket = field(default_factory=TokenBucket)  #: bytes of repeated `sync`s
    writer: asyncio.Task[None] | None = None
    closed: bool = False
    address: str | None = None  #: the peer's IP address (None for in-process links)
    opened_at: float = 0.0
    offered: int | None = None  #: the seat its challenge reserved, until it answers
    last_sync: float = 0.0  #: when a spectator last showed it is still following (a sync)
    #: Ends the socket (not for local links).
    hang_up: Callable[[], Coroutine[Any, Any, object]] | None = None
    #: Its address's budget (None for connections that are not limited: in-process, loopback).
    budget: AddressBudget | None = None
    #: Writes frames' WebSocket bytes to the socket at once, while it can (`DirectWriter`);
    #: otherwise, and for in-process links, frames wait in `outbox` for the writer task.
    direct: DirectWriter | None = None
    #: The writer task holds a frame it took from `outbox` and has not finished sending.
    sending: bool = False
    #: The client closed the WebSocket itself (a close frame), rather than the socket dying.
    said_goodbye: bool = False


class TableServer:
    """One table on the network: its HostTable, its connections, its timer and its log."""

    def __init__(
        self,
        host: HostTable,
        *,
        limits: Limits | None = None,
        on_entry: Callable[[Entry], None] | None = None,
        stand_in: Callable[[int], Any] | None = None,
        retire: Callable[[int], Any] | None = None,
    ) -> None:
        self.host = host
        self.limits = limits or Limits()
        self.connections: dict[int, Connection] = {}
        self._ids = itertools.count(1)
        self._clock = DeadlineClock(
            host.next_deadline, self._tick, name=f"table {host.table_id.hex()[:8]} clock"
        )
        self._on_entry = on_entry
        self._status_key: tuple[Any, ...] | None = None
        #: Called after every change of the table (entries, seats); adapters add their own.
        self.listeners: list[Callable[[], None]] = []
        self._stand_in = stand_in
        self._retire = retire
        self.closing = False
        self.closing_reason = Closing.ENDED  #: what the last `closing` frames said
        self.frozen = False  #: paused: frames are no longer read (freeze)
        self.over = asyncio.Event()
        #: Seats whose player on another machine said it holds the finished log to its end.
        self._served: set[int] = set()
        self._over_at: float | None = None  #: loop time the game was seen over
        self._hang_ups: set[asyncio.Task[Any]] = set()  #: kept so they are not collected early
        #: Each entry's frame, made once and shared by every queue it goes into, and the
        #: bytes of all frames before it (`_frame_ends[i]`), so a sync is costed in O(1).
        self._frames: list[str] = []
        self._frame_ends: list[int] = [0]
        limits = self.limits
        self._addresses = AddressBudgets(
            frame_rate=limits.address_frame_rate,
            frame_burst=limits.address_frame_burst,
            catch_up_rate=limits.catch_up_rate,
            catch_up_burst=limits.catch_up_slack,
            join_rate=limits.lobby_join_rate,
            join_burst=limits.lobby_join_burst,
        )
        self._stranger_catch_up = TokenBucket(
            rate=limits.stranger_catch_up_rate,
            burst=limits.stranger_catch_up_slack,
            tokens=limits.stranger_catch_up_slack,
        )
        self._stranger_big_frames = TokenBucket(
            rate=limits.stranger_big_frame_rate,
            burst=limits.stranger_big_frame_burst,
            tokens=limits.stranger_big_frame_burst,
        )
        self._last_entry: Entry | None = None
        #: While `apply` runs: what it writes at once to each connection, joined into one
        #: write at its end.
        self._batch: dict[Connection, _Held] | None = None

    @property
    def loop_now(self) -> float:
        return asyncio.get_running_loop().time()

    # ---- lifecycle -----------------------------------------------------------------------

    def start(self) -> None:
        self._clock.start()
        if self.host.phase == TablePhase.OVER:  # a finished table restarted from its log
            self.over.set()

    def freeze(self) -> None:
        """Stop the table where it stands (the host pauses): no frame is read and the clock
        moves nothing from here on, so the log a resumed host reads is where play stopped,
        however long the rest of the shutdown takes. Unread messages are resent by their
        senders to the resumed host."""
        self.frozen = True
        self._clock.cancel()

    async def close(self, reason: Closing = Closing.ENDED) -> None:
        """Tell every connection why the table closes (`closing`, SPEC.md 10.3), after the
        entries already queued for it, then hang up."""
        self.closing = True
        self.closing_reason = reason
        for conn in list(self.connections.values()):
            self._queue(conn, closing_frame(reason))
            self._queue(conn, None)
        writers = [c.writer for c in self.connections.values() if c.writer is not None]
        if writers:
            await asyncio.wait(writers, timeout=2.0)
        # Hang up ourselves: a client that keeps its socket open must not hold the shutdown.
        hang_ups = [c.hang_up() for c in self.connections.values() if c.hang_up is not None]
        if hang_ups:
            await asyncio.wait([asyncio.ensure_future(h) for h in hang_ups], timeout=2.0)
        await self._clock.stop()

    def _tick(self, now: float) -> None:
        self.apply(self.host.tick(now))

    # ---- connections ---------------------------------------------------------------------

    def open(
        self,
        deliver: Callable[[str], Any],
        *,
        local: bool = False,
        reserve: bool = True,
        address: str | None = None,
        host_run: bool = False,
    ) -> Connection | None:
        """A new connection is told the challenge; None when its address has as many
        connections as it may have (SPEC.md 10.1). Who it is is not known yet, so the caps on
        spectators apply when it chooses to watch, and a seat's key always gets in.
        `host_run`: an in-process link of one of the host's own CPU players, which may take
        a seat kept for them (HostTable.free_seat)."""
        limits, now = self.limits, self.loop_now
        if not local:
            admitted = self._admit(address, reserve, now)
            if admitted is None:
                return None
            reserve = admitted
        conn = Connection(next(self._ids), deliver, local=local, address=address, opened_at=now)
        if not local and address is not None and self._limited(address):
            conn.budget = self._addresses.of(address, now)
        conn.bucket = TokenBucket(rate=limits.rate, burst=limits.burst, tokens=limits.burst)
        conn.resend = TokenBucket(
            rate=limits.sync_resend_rate,
            burst=limits.sync_resend_burst,
            tokens=limits.sync_resend_burst,
        )
        conn.writer = asyncio.get_running_loop().create_task(
            self._write(conn), name=f"writer-{conn.id}"
        )
        self.connections[conn.id] = conn
        challenge = challenge_frame(
            self.host,
            conn.id,
            secrets.token_bytes(16),
            reserve=reserve,
            pake_entropy=secrets.token_bytes(ENTROPY_BYTES),
            host_run=local and host_run,
        )
        conn.offered = challenge["seat"]
        self._queue(conn, _text(challenge))
        return conn

    def _limited(self, address: str | None) -> bool:
        return address_limited(address, limit_loopback=self.limits.limit_loopback)

    def _admit(self, address: str | None, reserve: bool, now: float) -> bool | None:
        """Make room for a new socket connection: None to refuse it, else whether its
        challenge may reserve a seat."""
        limits = self.limits
        limited = self._limited(address)
        remote = [c for c in self.connections.values() if not c.local]
        if limited and sum(1 for c in remote if c.address == address) >= limits.per_address:
            return None
        if (
            limited
            and address is not None
            and self._addresses.of(address, now).frames.level(now) < frame_cost(MAX_FRAME)
        ):
            # It spent what its connections may send lately: a new connection would only
            # start reading (and refusing) its frames again (SPEC.md 10.3).
            return None
        if limited and address is not None:
            # A connection is work before its first frame (SPEC.md 10.1): paid as frames are.
            self._addresses.of(address, now).frames.charge(now, limits.address_connection_cost)
        pending = [c for c in remote if not c.handshaken]
        if len(pending) >= limits.max_pending:
            # Handshakes take milliseconds: the one waiting longest is the likeliest to be
            # stuck, and it cannot keep a returning player out.
            self._drop(
                min(pending, key=lambda c: c.opened_at),
                Reason.HANDSHAKE_TIMEOUT,
                "too many connections are answering their challenge; this one waited longest",
            )
        if not reserve or self.host.phase != TablePhase.LOBBY:
            return reserve
        holding = [
            c for c in self.connections.values() if not c.handshaken and c.offered is not None
        ]
        if limited and any(c.address == address for c in holding):
            return False  # one seat held at a time by one address, for a join in progress
        if self.host.free_seat() is None:
            stale = [
                c for c in holding if now - c.opened_at >= limits.reserve_grace and not c.local
            ]
            if stale:
                # A join takes a moment on a LAN; a seat held longer by a connection that has
                # not joined goes to the newcomer.
                self._drop(
                    min(stale, key=lambda c: c.opened_at),
                    Reason.HANDSHAKE_TIMEOUT,
                    "the seat offered was not taken in time; it went to another connection",
                )
        return True

    def _drop(self, conn: Connection, reason: Reason, detail: str) -> None:
        """Close a connection now (its seat reservation is released at once), after telling
        it why."""
        self._refuse(conn, reason, detail)
        self._queue(conn, None)
        self.closed(conn)
        if conn.hang_up is not None:
            task = asyncio.get_running_loop().create_task(self._hang_up_after_writer(conn))
            self._hang_ups.add(task)
            task.add_done_callback(self._hang_ups.discard)

    @staticmethod
    async def _hang_up_after_writer(conn: Connection) -> None:
        if conn.writer is not None:
            with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                await asyncio.wait_for(asyncio.shield(conn.writer), 1.0)
        if conn.hang_up is not None:
            await conn.hang_up()

    def _make_room_for_a_player(self) -> None:
        """A seat's key always gets in: past the cap, the spectator quiet longest goes."""
        remote = [c for c in self.connections.values() if not c.local]
        if len(remote) <= self.limits.max_connections:
            return
        spectators = [c for c in remote if c.spectator]
        if spectators:
            self._drop(
                min(spectators, key=lambda c: c.last_sync),
                Reason.TOO_MANY_CONNECTIONS,
                "a player needed the room; the table is full of spectators",
            )

    def _spectator_room(self) -> bool:
        spectators = sum(1 for c in self.connections.values() if c.spectator and not c.local)
        return spectators < max(1, self.limits.max_connections - self.host.state.rules.seats)

    async def _write(self, conn: Connection) -> None:
        try:
            while True:
                frame = await conn.outbox.get()
                if frame is None:
                    break
                conn.sending = True  # what `_feed` queues now must not overtake this frame
                conn.queued_bytes -= len(frame)
                if conn.sync_next < conn.sync_end:
                    self._feed(conn)
                result = conn.deliver(frame)
                if asyncio.iscoroutine(result):
                    await result
                conn.sending = False
        except (ConnectionError, RuntimeError, asyncio.CancelledError):
            pass
        finally:
            conn.closed = True

    def _queue(
        self, conn: Connection, frame: str | None, wire: bytes | None = None, *, direct: bool = True
    ) -> None:
        """Send `frame` after everything sent to `conn` before it (None: then stop). `wire`,
        when given, is its WebSocket frame (`ws_text_frame(frame)`), made once for every
        connection an entry goes to; `direct` False keeps it in the queue (a sync answer)."""
        if conn.closed:
            return
        batch = self._batch
        held = batch.get(conn) if batch is not None else None
        if held is not None:
            if held.open and direct and frame is not None:  # after this apply's, one write
                if wire is None:
                    wire = ws_text_frame(frame)
                if held.size + len(wire) <= DIRECT_WRITE_LIMIT:
                    held.wires.append(wire)
                    held.size += len(wire)
                    return
            # The rest waits in its queue, which the writer task only reads after this apply
            # has written what it held: the order stays.
            held.open = False
        elif (
            direct
            and frame is not None
            and conn.direct is not None
            and not conn.sending
            and conn.outbox.empty()
            and conn.sync_next >= conn.sync_end  # no sync answer on its way to it
            and conn.direct.ready()
        ):
            # Nothing is waiting before it: written to the socket now, without waking the
            # writer task (one task step, a queue round trip and aiohttp's frame header less
            # per frame and connection; the bytes of an entry's frame are made once). Within
            # `apply`, the frames for one connection go out together in one write.
            if wire is None:
                wire = ws_text_frame(frame)
            if batch is not None:
                batch[conn] = _Held(wire)
            else:
                conn.direct.write(wire)
            return
        self._put(conn, frame)

    @staticmethod
    def _flush(batch: dict[Connection, _Held]) -> None:
        """Write what `apply` held for each connection, in one write each."""
        for conn, held in batch.items():
            wires = held.wires
            if conn.direct is not None:
                conn.direct.write(wires[0] if len(wires) == 1 else b"".join(wires))

    def _put(self, conn: Connection, frame: str | None) -> None:
        try:
            if frame is not None:
                full = conn.queued_bytes + len(frame) > self.limits.outbox_bytes
                if full and conn.queued_bytes and not conn.local:  # one frame always fits
                    raise asyncio.QueueFull
                conn.outbox.put_nowait(frame)
                conn.queued_bytes += len(frame)
            else:
                conn.outbox.put_nowait(frame)
        except asyncio.QueueFull:
            # A reader this far behind is gone in all but name; the log waits for it on reconnect.
            self._log_once(conn, "SLOW_READER", "dropped: it fell too far behind")
            conn.closed = True
            if conn.writer is not None:
                conn.writer.cancel()
            if conn.hang_up is not None:
                # Without this the socket stays open, answering pings, and the client waits
                # forever for frames that will never come; hung up, it reconnects and syncs.
                task = asyncio.get_running_loop().create_task(conn.hang_up())
                self._hang_ups.add(task)
                task.add_done_callback(self._hang_ups.discard)

    def closed(self, conn: Connection) -> None:
        if self.connections.pop(conn.id, None) is None:
            return
        self._note_served(conn)
        conn.closed = True
        if conn.writer is not None and not conn.writer.done():
            with contextlib.suppress(asyncio.QueueFull):
                conn.outbox.put_nowait(None)
        if self.frozen:
            # The table is pausing and its links are closing: the host's step on a disconnect
            # runs its clock, which would post (a forced move, a result) after the pause.
            return
        self.apply(self.host.disconnected(conn.id, self.loop_now))
        if conn.seat is not None:
            self._broadcast_status()  # everyone sees the seat go quiet

    def receive(self, conn: Connection, data: str | bytes) -> bool:
        """One frame from a client; False when the connection must be closed."""
        if self.frozen:
            return True  # the table is pausing: the sender resends it to the resumed host
        now = self.loop_now
        # Paid for by its bytes: a text frame's characters may be up to four bytes each.
        raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
        if self._refused_for_rate(conn, len(raw), now):
            return conn.strikes < self.limits.strikes
        try:
            frame = decode_frame(raw, TO_HOST)
            self._dispatch(conn, frame, now, raw)
        except RemoteError as err:
            self._refuse(conn, err.reason, err.detail)
        except Exception:  # a bug must not take the table down nor leak a traceback to a peer
            log.exception(
                "table %s: frame from connection %d failed", self.host.table_id.hex()[:8], conn.id
            )
            self._refuse(
                conn, Reason.INTERNAL, "the host could not handle that frame; nothing changed"
            )
        return True

    def control_frame(self, conn: Connection, size: int) -> bool:
        """A WebSocket ping or pong of `size` payload bytes: paid for like any frame and never
        read; False when the connection must be closed. The adapter answers a ping only when
        this lets it through, so a flood of pings costs its address, not the host."""
        if self.frozen:
            return True
        if self._refused_for_rate(conn, size, self.loop_now):
            return conn.strikes < self.limits.strikes
        return True

    def _refused_for_rate(self, conn: Connection, size: int, now: float) -> bool:
        """Whether a frame of `size` bytes is over the connection's rate or its address's
        budget; if so it is refused (`RATE_LIMITED`) and counts toward the connection's strikes."""
        if not conn.local and not conn.bucket.allow(now):
            conn.strikes += 1
            self._refuse(conn, Reason.RATE_LIMITED, "too many frames; slow down")
            return True
        if conn.budget is not None and not self._within_budget(conn, size, now):
            conn.strikes += 1
            self._refuse(
                conn, Reason.RATE_LIMITED, "too much sent from your address lately; slow down"
            )
            return True
        return False

    def _within_budget(self, conn: Connection, size: int, now: float) -> bool:
        """A frame from a limited address, before any work on it: its address pays for it by
        size, and a large one from a stranger also draws on what strangers may cost the
        table together (so many addresses cannot slow a game by flooding it)."""
        budget = conn.budget
        assert budget is not None
        cost = frame_cost(size)
        allowed = budget.frames.level(now) >= cost
        big = conn.seat is None and size > FRAME_UNIT
        if allowed and big:
            allowed = self._stranger_big_frames.take(now, float(size))
        # Read or refused, the frame was received: its address pays for it either way, into
        # debt (at most ADDRESS_DEBT bursts), which keeps its next connections out until
        # paid back (`_admit`).
        budget.frames.charge(now, cost)
        budget.frames.tokens = max(budget.frames.tokens, -ADDRESS_DEBT * budget.frames.burst)
        return allowed

    def _catch_up_allowed(self, conn: Connection, cost: int, now: float) -> bool:
        """Entries this connection was never sent, `cost` bytes: a seat's are always sent
        and charged to its address; a stranger's are paid from its address's budget and from
        the strangers' shared one, each a few copies of the log at once (SPEC.md 10.3)."""
        budget = conn.budget
        if budget is None or conn.local:
            return True
        if conn.seat is not None:
            budget.catch_up.charge(now, cost)
            return True
        limits, log_bytes = self.limits, self._frame_ends[-1]
        budget.catch_up.grow(limits.catch_up_copies * log_bytes + limits.catch_up_slack)
        shared = self._stranger_catch_up
        shared.grow(limits.stranger_catch_up_copies * log_bytes + limits.stranger_catch_up_slack)
        own, left = budget.catch_up.level(now), shared.level(now)
        if own < cost:
            return False
        # An address that was sent nothing lately (its budget is full) may take the shared
        # budget into debt, down to one burst: an attack that drains it does not keep a
        # newcomer from its first copy, and strangers together still cost at most two bursts
        # and the refill.
        fresh = own >= budget.catch_up.burst - 1.0
        if left < cost and not (fresh and left - cost >= -shared.burst):
            return False
        budget.catch_up.take(now, cost)
        shared.charge(now, cost)
        return True

    def _may_join(self, conn: Connection, now: float) -> bool:
        """A join from a limited address while it has a lobby seat left to take; otherwise
        refused (`RATE_LIMITED`, "retry in N s"), before the host spends anything on it."""
        budget = conn.budget
        if budget is None or self.host.phase != TablePhase.LOBBY:
            return True
        level = budget.joins.level(now)
        if level >= 1.0:
            return True
        wait = math.ceil((1.0 - level) / budget.joins.rate)
        self._refuse(
            conn,
            Reason.RATE_LIMITED,
            f"retry in {wait} s: your address joined this table's lobby too often lately",
        )
        return False

    def _dispatch(
        self, conn: Connection, frame: dict[str, Any], now: float, raw: bytes = b""
    ) -> None:
        kind = frame["type"]
        if kind == "sync":
            conn.last_sync = now
            self._sync(conn, frame["from"], now)
            return
        if not conn.handshaken:
            if kind == "join" and not self._may_join(conn, now):
                return
            if kind == "spectate" and not conn.local and not self._spectator_room():
                self._drop(
                    conn,
                    Reason.TOO_MANY_CONNECTIONS,
                    "this table has as many spectators as it takes",
                )
                return
            self.apply(
                answer_challenge(
                    self.host,
                    conn.id,
                    frame,
                    now,
                    source=conn.address or "",  # failed passwords are throttled per address
                    trusted=conn.local,
                )
            )
            if kind == "join" and conn.budget is not None and conn.seat is not None:
                conn.budget.joins.charge(now, 1.0)  # a lobby seat taken (`_may_join`)
            return
        if kind == "send":
            self.apply(self.host.receive(conn.id, frame["msg"], now, raw=_sent_message(raw)))
            return
        raise RemoteError(Reason.WRONG_PHASE, f"{kind} is only allowed during the handshake")

    def _entry_frames(self) -> list[str]:
        """Every entry's frame so far (made once per entry, kept in step with the log)."""
        entries, made = self.host.entries, len(self._frames)
        if made and (made > len(entries) or entries[made - 1] is not self._last_entry):
            # Not the log these frames were made from (only a test harness rolls a table
            # back): start over rather than send stale entries.
            self._frames.clear()
            del self._frame_ends[1:]
            for conn in self.connections.values():
                conn.sent_from = conn.sent_upto = conn.sync_next = conn.sync_end = 0
        for entry in entries[len(self._frames) :]:
            frame = _entry_frame(entry.line)
            self._frames.append(frame)
            self._frame_ends.append(self._frame_ends[-1] + len(frame))
            self._last_entry = entry
        return self._frames

    def _sync(self, conn: Connection, start: int, now: float) -> None:
        """Entries from `start`: the ones this connection was never sent, always; the ones it
        was sent already, only as far as its resend budget (in bytes) allows, so asking for
        the whole log over and over costs the host next to nothing (SPEC.md 10.3)."""
        frames = self._entry_frames()
        end = len(frames)
        self._note_served(conn, holds=start)
        start = min(start, end)
        again_from, again_upto = max(start, conn.sent_from), min(end, conn.sent_upto)
        if again_from < again_upto and not conn.local:
            cost = self._frame_ends[again_upto] - self._frame_ends[again_from]
            if not conn.resend.take(now, cost):
                detail = (
                    f"entries from {start} were sent on this connection already; the host sends"
                    f" them again at most {int(self.limits.sync_resend_rate)} bytes a second"
                )
                conn.strikes += 1  # as for frames: the third refusal closes the connection
                if conn.strikes >= self.limits.strikes:
                    self._drop(conn, Reason.RATE_LIMITED, detail)
                    return
                self._refuse(conn, Reason.RATE_LIMITED, detail)
                # What it was never sent still goes: the entries before those it was sent
                # (a watcher that came in mid-game), else the ones after them.
                if start < conn.sent_from:
                    end = conn.sent_from
                else:
                    start = max(start, conn.sent_upto)
        if start >= end:
            return
        fresh = self._frame_ends[end] - self._frame_ends[start]
        overlap_from, overlap_upto = max(start, conn.sent_from), min(end, conn.sent_upto)
        if overlap_from < overlap_upto:  # paid above, or by the resend budget
            fresh -= self._frame_ends[overlap_upto] - self._frame_ends[overlap_from]
        if fresh > 0 and not self._catch_up_allowed(conn, fresh, now):
            conn.strikes += 1
            detail = (
                "the log was sent to your address lately; the host sends it to connections"
                f" without a seat at most {int(self.limits.catch_up_rate)} bytes a second"
            )
            if conn.strikes >= self.limits.strikes:
                self._drop(conn, Reason.RATE_LIMITED, detail)
            else:
                self._refuse(conn, Reason.RATE_LIMITED, detail)
            return
        if conn.sync_next < conn.sync_end:  # one answer at a time, in order
            conn.sync_next, conn.sync_end = min(conn.sync_next, start), max(conn.sync_end, end)
        else:
            conn.sync_next, conn.sync_end = start, end
        self._mark_sent(conn, start, end)
        self._feed(conn)

    @staticmethod
    def _mark_sent(conn: Connection, start: int, end: int) -> None:
        if start <= conn.sent_upto and end >= conn.sent_from:  # overlapping or adjacent
            conn.sent_from, conn.sent_upto = min(conn.sent_from, start), max(conn.sent_upto, end)
        else:  # a gap: remember the newer range only (costing errs towards the client)
            conn.sent_from, conn.sent_upto = start, end

    def _feed(self, conn: Connection) -> None:
        """Queue the next entries of a sync answer while the queue is under half its byte
        cap; the writer calls again as it drains. A log of any length reaches a joiner in
        order without ever sitting whole in its queue."""
        frames, room = self._frames, self.limits.outbox_bytes // 2
        conn.sync_end = min(conn.sync_end, len(frames))
        held = self._batch.get(conn) if self._batch is not None else None
        if held is not None:
            held.open = False  # this apply's later frames to it wait behind the answer
        while conn.sync_next < conn.sync_end and not conn.closed:
            frame = frames[conn.sync_next]
            if conn.queued_bytes and conn.queued_bytes + len(frame) > room and not conn.local:
                return
            conn.sync_next += 1
            # Through the queue, never written at once: its byte and frame caps are what a
            # reader that stopped reading is measured by (SLOW_READER), and what comes after
            # the answer waits behind it there.
            self._queue(conn, frame, direct=False)

    def _refuse(
        self, conn: Connection, reason: Reason, detail: str, ref: str | None = None
    ) -> None:
        self._log_once(conn, str(reason), detail)
        self._queue(conn, error_frame(reason, detail, ref))

    def _log_once(self, conn: Connection, reason: str, detail: str) -> None:
        if reason not in conn.logged:
            conn.logged.add(reason)
            log.info("connection %d: %s: %s", conn.id, reason, detail)

    # ---- outputs of the table ------------------------------------------------------------

    def _addressee(self, conn_id: Hashable) -> Connection | None:
        """The open connection a host output is for (the core knows connections only as keys:
        ours are the ids `open` gave)."""
        return self.connections.get(conn_id) if isinstance(conn_id, int) else None

    def apply(self, outputs: list[Output]) -> None:
        if self._batch is not None:  # within another apply: its batch takes these frames too
            self._apply(outputs)
            return
        batch: dict[Connection, _Held] = {}
        self._batch = batch
        try:
            self._apply(outputs)
        finally:
            self._batch = None
            self._flush(batch)

    def _apply(self, outputs: list[Output]) -> None:
        changed = False
        for out in outputs:
            if isinstance(out, Posted):
                changed = True
                if self._on_entry is not None:
                    self._on_entry(out.entry)
                frames = self._entry_frames()
                frame = frames[out.entry.seq]
                seq = out.entry.seq
                wire = ws_text_frame(frame)
                for reader in list(self.connections.values()):
                    if not reader.handshaken:
                        continue
                    if reader.sync_next < reader.sync_end:  # behind a sync answer: after it
                        reader.sync_end = max(reader.sync_end, seq + 1)
                        self._feed(reader)
                    else:
                        self._queue(reader, frame, wire)
                    self._mark_sent(reader, seq, seq + 1)
            elif isinstance(out, Rejected):
                conn = self._addressee(out.conn)
                if conn is not None:
                    if out.reason in (Reason.TABLE_FULL, Reason.SEAT_TAKEN):
                        conn.offered = None  # the table released the reservation
                    self._refuse(conn, out.reason, out.detail, out.ref)
            elif isinstance(out, Accepted):
                conn = self._addressee(out.conn)
                if conn is not None:
                    self._queue(conn, encode_frame("accepted", ref=out.ref, seq=out.seq))
            elif isinstance(out, Seated):
                conn = self._addressee(out.conn)
                if conn is not None:
                    conn.handshaken, conn.seat, conn.spectator = True, out.seat, out.seat is None
                    conn.offered, conn.last_sync = None, self.loop_now
                    self._queue(conn, _text(welcome_frame(out)))
                    self._queue(conn, encode_frame("status", **self.status()))
                    if out.seat is not None and not conn.local:
                        self._make_room_for_a_player()
                changed = True
            elif isinstance(out, NeedStandIn) and self._stand_in is not None:
                asyncio.get_running_loop().call_soon(self._stand_in, out.seat)
            elif isinstance(out, RetireStandIn) and self._retire is not None:
                asyncio.get_running_loop().call_soon(self._retire, out.seat)
        if changed:
            self._broadcast_status()
            for listener in list(self.listeners):
                listener()
        self._clock.poke(self.loop_now)
        if self.host.phase == TablePhase.OVER:
            if self._over_at is None:
                self._over_at = self.loop_now
            self.over.set()

    def players_behind(self) -> list[int]:
        """After the game: the seats played from another machine whose player has not shown
        it holds the log to its end (SPEC.md 10.3): its client is closing, or its laptop
        dropped as the game ended and it is on its way back, or it left before the end.
        A host about to stop waits for them: the end is theirs too."""
        if self.host.phase != TablePhase.OVER:
            return []
        return [
            info.seat
            for info in self.host.state.roster
            if not info.host_run and info.key != self.host.own_key and info.seat not in self._served
        ]

    def players_away(self) -> list[int]:
        """players_behind, once the game has been over for AWAY_AFTER seconds: by then a
        connected client has closed, so those left are away, not closing."""
        if self._over_at is None or self.loop_now - self._over_at < AWAY_AFTER:
            return []
        return self.players_behind()

    def names(self, seats: list[int]) -> tuple[str, ...]:
        """The names the roster gives `seats` (those of players_behind or players_away)."""
        by_seat = {info.seat: info.name for info in self.host.state.roster}
        return tuple(by_seat[seat] for seat in seats)

    def _note_served(self, conn: Connection, holds: int | None = None) -> None:
        """Count `conn`'s seat as served once its player shows it holds the whole finished
        log: it asks for entries from the log's end (`holds`), or closes the WebSocket itself
        after the last entry was sent to it. Bytes handed to the socket prove nothing: a
        laptop that dropped leaves its socket looking open here, and what was written to it
        is lost."""
        if conn.seat is None or conn.local or self.host.phase != TablePhase.OVER:
            return  # a stand-in's link (local) is not its player's
        end = len(self._entry_frames())
        if (holds is not None and holds >= end) or (conn.said_goodbye and conn.sent_upto >= end):
            self._served.add(conn.seat)

    def status(self) -> dict[str, Any]:
        turn, deadline = self.host.turn_deadline()
        deadline_ms = None if deadline is None else max(0, int((deadline - self.loop_now) * 1000))
        out_of_time = self.host.low_bank_deadline()
        bank_ms = None if out_of_time is None else max(0, int((out_of_time - self.loop_now) * 1000))
        connected = sorted({c.seat for c in self.connections.values() if c.seat is not None})
        return {
            "phase": str(self.host.phase),
            "connected": connected,
            "turn": turn,
            "deadline_ms": deadline_ms,
            "bank_ms": bank_ms,
        }

    def _broadcast_status(self) -> None:
        """Tell everyone what the log cannot: who is connected, and the turn clock.

        Sent only when that changes (a bid on a table without a timer changes neither), so a
        busy table does not send two frames per entry.
        """
        status = self.status()
        timed = status["deadline_ms"] is not None or status["bank_ms"] is not None
        key = (
            tuple(status["connected"]),
            status["phase"] if timed else None,
            status["turn"] if timed else None,
            timed,
        )
        if key == self._status_key:
            return
        self._status_key = key
        frame = encode_frame("status", **status)
        wire = ws_text_frame(frame)
        for conn in list(self.connections.values()):
            if conn.handshaken:
                self._queue(conn, frame, wire)

    # ---- aiohttp -------------------------------------------------------------------------

    async def websocket(self, request: web.Request) -> web.StreamResponse:
        # Pings and pongs come to this loop (autoping off) so that they are paid for like any
        # frame; aiohttp's heartbeat counts any frame received as a sign of life either way.
        ws = web.WebSocketResponse(
            max_msg_size=4 * MAX_FRAME, heartbeat=HEARTBEAT, compress=False, autoping=False
        )
        await ws.prepare(request)
        if self.closing:
            await ws.send_str(closing_frame(self.closing_reason))
            await ws.close()
            return ws
        conn = self.open(
            ws.send_str, reserve=request.query.get(SPECTATE_PARAM) != "1", address=request.remote
        )
        if conn is None:
            await ws.send_str(
                error_frame(
                    Reason.TOO_MANY_CONNECTIONS, "this table has too many connections from here"
                )
            )
            await ws.close()
            return ws
        conn.hang_up = ws.close
        if isinstance(request.transport, asyncio.WriteTransport):
            conn.direct = _SocketWriter(ws, request.transport)
        loop = asyncio.get_running_loop()
        handshake_deadline = loop.time() + self.limits.handshake_timeout
        try:
            while not ws.closed and not conn.closed:
                if not conn.handshaken:
                    timeout: float | None = handshake_deadline - loop.time()
                elif conn.spectator:
                    timeout = conn.last_sync + self.limits.spectator_idle - loop.time()
                else:
                    timeout = None  # players hold a seat's key: never timed out for quiet
                if timeout is not None and timeout <= 0:
                    if conn.handshaken:
                        idle = int(self.limits.spectator_idle)
                        detail = f"no sync for {idle} s"
                        self._queue(conn, closing_frame(Closing.IDLE, detail))
                    else:
                        self._refuse(
                            conn, Reason.HANDSHAKE_TIMEOUT, "no join, auth or spectate in time"
                        )
                    break
                # A deadline, not receive(timeout=): aiohttp restarts that timer after each
                # ping or pong, so a peer sending them would never reach its deadline.
                try:
                    async with asyncio.timeout(timeout):
                        msg = await ws.receive()
                except TimeoutError:
                    continue
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    if not self.receive(conn, msg.data):
                        break
                elif msg.type in (WSMsgType.PING, WSMsgType.PONG):
                    if not self.control_frame(conn, len(msg.data)):
                        break
                    if msg.type == WSMsgType.PING and not conn.closed:
                        await ws.pong(msg.data)
                elif msg.type == WSMsgType.CLOSE:
                    conn.said_goodbye = True
                    break
                elif msg.type in (
                    WSMsgType.CLOSING,
                    WSMsgType.CLOSED,
                    WSMsgType.ERROR,
                ):
                    break
        finally:
            self.closed(conn)
            if conn.writer is not None:
                with contextlib.suppress(asyncio.TimeoutError, asyncio.CancelledError):
                    await asyncio.wait_for(asyncio.shield(conn.writer), 1.0)
            await ws.close()
        return ws


#: Bytes a socket may hold unsent before frames wait in the connection's queue instead.
DIRECT_WRITE_LIMIT = 64 * 1024


def ws_text_frame(frame: str) -> bytes:
    """A frame as one unmasked, uncompressed WebSocket text message (RFC 6455 5.2): what
    aiohttp's `send_str` writes for it on a server's connection opened with `compress=False`."""
    payload = frame.encode("utf-8")
    size = len(payload)
    if size < 126:
        return bytes((0x81, size)) + payload
    if size < 65536:
        return bytes((0x81, 126)) + size.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + size.to_bytes(8, "big") + payload


class _Held:
    """The frames one `apply` writes to a connection at once: their bytes, until a stop
    marker or DIRECT_WRITE_LIMIT bytes (`open` False: the rest went to its queue)."""

    __slots__ = ("open", "size", "wires")

    def __init__(self, wire: bytes) -> None:
        self.wires, self.size, self.open = [wire], len(wire), True


class _SocketWriter:
    """`Connection.direct` for an aiohttp WebSocket: frames' bytes straight to its transport,
    between whole frames of aiohttp's own (pings, pongs, the close frame), which it writes
    without yielding. Not ready once the WebSocket closes or the transport holds
    DIRECT_WRITE_LIMIT bytes: then the writer task waits for it to drain."""

    __slots__ = ("transport", "ws")

    def __init__(self, ws: web.WebSocketResponse, transport: asyncio.WriteTransport) -> None:
        self.ws, self.transport = ws, transport

    def ready(self) -> bool:
        transport = self.transport
        return (
            not (self.ws.closed or transport.is_closing())
            and transport.get_write_buffer_size() <= DIRECT_WRITE_LIMIT
        )

    def write(self, data: bytes) -> None:
        if not (self.ws.closed or self.transport.is_closing()):
            self.transport.write(data)


def _text(frame: dict[str, Any]) -> str:
    return encode(frame).decode("utf-8")


_SEND_START, _SEND_END = b'{"msg":', b',"type":"send"}'


def _sent_message(frame: bytes) -> bytes | None:
    """canonical(msg) inside a canonical `send` frame, which holds only `msg` and `type`:
    keys sort, so the frame is `{"msg":` MSG `,"type":"send"}`."""
    if frame.startswith(_SEND_START) and frame.endswith(_SEND_END):
        return frame[len(_SEND_START) : len(frame) - len(_SEND_END)]
    return None


def _entry_frame(line: bytes) -> str:
    # Keys sort as "entry" < "type", so this is the canonical encoding without re-encoding.
    return '{"entry":' + line.decode("utf-8") + ',"type":"entry"}'


class LocalLink:
    """An in-process connection to a TableServer carrying the same frames as a socket."""

    def __init__(self, server: TableServer, on_frame: Callable[[str], Any]) -> None:
        self.server = server
        self._on_frame = on_frame
        self.conn: Connection | None = None

    @property
    def host_key(self) -> bytes:
        """The key at the other end: the table's own host key (nothing to prove in-process)."""
        return self.server.host.key.public

    def open(self, *, host_run: bool = False) -> None:
        self.conn = self.server.open(self._deliver, local=True, host_run=host_run)

    async def _deliver(self, frame: str) -> None:
        result = self._on_frame(frame)
        if asyncio.iscoroutine(result):
            await result

    def send(self, frame: str) -> None:
        if self.conn is not None and not self.conn.closed:
            self.server.receive(self.conn, frame)

    def close(self) -> None:
        if self.conn is not None:
            self.server.closed(self.conn)
            self.conn = None


# ---- the process: file descriptors and failing accepts -----------------------------------------


def raise_open_file_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (1,024 is a common
    soft default, far below what a host with a few hundred sockets and logs needs); returns
    the soft limit now in force."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError) as err:
            log.warning("could not raise the open-file limit from %d to %d: %s", soft, want, err)
    return soft


class AcceptFailureLog:
    """The loop's exception handler for failing accepts (no file descriptor left, say).

    asyncio logs each failed accept with a traceback and retries a second later, for as long
    as the cause lasts; this says it in one line, at most once every `every` seconds, with
    the number of failures in between. Any other report goes to the previous handler.
    """

    MESSAGE = "socket.accept() out of system resource"

    def __init__(self, loop: asyncio.AbstractEventLoop, every: float = ACCEPT_REPORT_EVERY) -> None:
        self.every = every
        self.previous = loop.get_exception_handler()
        self.reported_at: float | None = None
        self.unreported = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != self.MESSAGE:
            if self.previous is not None:
                self.previous(loop, context)
            else:
                loop.default_exception_handler(context)
            return
        now = loop.time()
        if self.reported_at is not None and now - self.reported_at < self.every:
            self.unreported += 1
            return
        log.error(
            "cannot accept connections: %s (%d more failures since the last report)",
            context.get("exception"),
            self.unreported,
        )
        self.reported_at, self.unreported = now, 0

    @classmethod
    def install(cls, loop: asyncio.AbstractEventLoop) -> AcceptFailureLog:
        handler = cls(loop)
        loop.set_exception_handler(handler)
        return handler


def closing_frame(reason: Closing, detail: str | None = None) -> str:
    """The `closing` frame: its code, and words for a client that shows them."""
    return encode_frame("closing", reason=str(reason), detail=detail or CLOSING_WORDS[reason])
