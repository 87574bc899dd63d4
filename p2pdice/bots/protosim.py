"""Whole games through the fairness protocol over an in-memory link (`simulate --protocol`).

Every seat is a real Peer with its own key and secrets; the host is a real HostTable; the
link delivers every frame in a deterministic order and a fake clock jumps to the host's next
deadline when nothing else is left to do. Tests use the same harness to play honest games and
to inject faults and cheats.

`Faults` makes the link and the players misbehave the way a LAN and people do, seeded: lost
commitments (aborts), lost contributions (void rounds), lost openings (partial results and
forfeits), lost moves (forced timer moves), seats that drop on their turn and come back
within or after the grace period (pauses, absences, forced blind moves, stand-ins, returns),
bids taken back (undo) and players who leave the lobby. The host stays honest, so every
such game verifies; protocol/examples holds games made this way for other implementations.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, cast

from ..core.client import ClientConnection
from ..core.client_intents import (
    DrawSecrets,
    Intent,
    OpenStore,
    RaiseAlarm,
    SendFrame,
    SendMessage,
    StretchPassword,
)
from ..core.describe import ranking_line
from ..core.game import PlaceBid, Undo
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
from ..core.messages import Message, MessageType
from ..core.pake import ENTROPY_BYTES, password_verifier
from ..core.peer import Alarm, NeedSecrets, Peer, PeerOutput, Secrets, Send
from ..core.rules import Rules
from ..core.signing import SigningKey
from ..core.table import TablePhase
from ..core.transitions import CHOSEN_MESSAGES, OWED_MESSAGES
from .driver import bot_move
from .names import DEFAULT_LEVEL
from .registry import Bot
from .sim import Summary

Conn = int

#: What the peer sends by itself and the host acts without when it is lost (commit,
#: contribute, open: an abort, a void round, a forfeit); each fault is named after its message.
_LOST_STEPS = tuple(
    kind for kinds in OWED_MESSAGES.values() for kind in kinds if kind not in CHOSEN_MESSAGES
)
#: The moves a turn timer forces when they are lost (bid, challenge, exact): the `move` fault.
_LOST_MOVES = OWED_MESSAGES[TablePhase.BIDDING]


@dataclass(slots=True)
class Seat:
    conn: Conn
    client: ClientConnection  #: the same client connection every real client runs
    bot: Bot
    name: str
    connected: bool = True
    stand_in_for: int | None = None

    @property
    def peer(self) -> Peer:
        assert self.client.peer is not None, "the client has not answered a challenge yet"
        return self.client.peer

    @peer.setter
    def peer(self, peer: Peer) -> None:
        """A test restarts a seat's client from its records: the connection follows on."""
        self.client.peer = peer


@dataclass(frozen=True, slots=True, kw_only=True)
class Faults:
    """Probabilities of each fault at each chance for it (0 = never), and a cap per game."""

    commit: float = 0.0  #: a commitment is lost on its way: the attempt aborts
    contribute: float = 0.0  #: a contribution is lost: the round is void
    open: float = 0.0  #: an opening is lost: a partial result, or a forfeit
    move: float = 0.0  #: a bid or call is lost (only with a turn timer): the host forces it
    disconnect: float = 0.0  #: a seat drops on its turn, back before or after the grace period
    undo: float = 0.0  #: a bid is taken back at once (only on tables with undo)
    lobby_leave: float = 0.0  #: a player takes a seat and leaves before the table fills
    limit: int = 3  #: at most this many faults of each kind per game

    @classmethod
    def uniform(cls, rate: float) -> Faults:
        """Every fault with the same probability."""
        if not 0.0 <= rate <= 1.0:
            raise ValueError("a fault rate is between 0 and 1")
        rates: dict[str, Any] = {f.name: rate for f in fields(cls) if f.name != "limit"}
        return cls(**rates)


@dataclass(slots=True)
class LinkStats:
    messages: int = 0  #: signed player messages sent
    rejected: list[Rejected] = field(default_factory=list)
    alarms: list[tuple[Conn, Alarm]] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)  #: faults injected, by kind


class LocalTable:
    """A host and its peers in one process, joined by queues instead of sockets."""

    def __init__(
        self,
        rules: Rules,
        bots: Sequence[Bot],
        *,
        rng: random.Random,
        name: str = "sim table",
        host_cpu: int = 0,
        password: str | None = None,
        faults: Faults | None = None,
    ) -> None:
        self.rng = rng
        self.now = 0.0
        self.host = HostTable(
            key=SigningKey(rng.randbytes(32)),
            name=name,
            rules=rules,
            nonce=rng.randbytes(16),
            host_cpu=host_cpu,
            password=password,
            now=self.now,
        )
        self.seats: dict[Conn, Seat] = {}
        self.spectators: dict[Conn, Peer] = {}
        self._clients: dict[Conn, ClientConnection] = {}  #: every connection's client
        self._opened_at: dict[Conn, int] = {}  #: the log's length when each connection opened
        self.stats = LinkStats()
        self._queue: deque[tuple[str, Any]] = deque()
        self._bots = list(bots)
        self._host_cpu = host_cpu
        self._password = password
        self._conns = 0
        #: (time, what): reconnections the fault injector has planned, earliest first.
        self._scheduled: list[tuple[float, Callable[[], None]]] = []
        self.faults = faults
        # Its own stream, so a game without faults draws exactly what it always drew.
        self._fault_rng = random.Random(rng.random()) if faults is not None else None
        self._undo_next: set[Conn] = set()
        self._dropped_moves: dict[Conn, list[bytes]] = {}
        #: Test hooks: rewrite what a peer sends, or what the host posts to one connection.
        self.on_send: Callable[[Conn, Message], Message | None] | None = None
        self.on_deliver: Callable[[Conn, bytes], bytes | None] | None = None

    # ---- setup ---------------------------------------------------------------------------

    def _new_conn(self) -> Conn:
        self._conns += 1
        return self._conns

    def _fault(self, kind: str) -> bool:
        """Whether the fault `kind` happens at this chance (never beyond the cap)."""
        if self.faults is None or self._fault_rng is None:
            return False
        if self.stats.faults.get(kind, 0) >= self.faults.limit:
            return False
        if self._fault_rng.random() >= getattr(self.faults, kind):
            return False
        self.stats.faults[kind] = self.stats.faults.get(kind, 0) + 1
        return True

    def seat_everyone(self) -> None:
        first = 0
        leaves = self._password is None and len(self._bots) > self._host_cpu
        if leaves and self._fault("lobby_leave"):
            # P0 takes a seat, leaves the lobby and joins again with the same key (SPEC.md 4.1).
            conn = self.add_player(self._bots[0], name="P0", cpu=True)
            self.run_until_idle()
            self.disconnect(conn)
            self.run_until_idle()
            self._rejoin(conn)
            first = 1
        for index, bot in enumerate(self._bots[first:], first):
            host_run = index >= len(self._bots) - self._host_cpu
            self.add_player(bot, name=f"P{index}", cpu=True, host_run=host_run)
        self.run_until_idle()

    def _rejoin(self, conn: Conn) -> None:
        """A player whose lobby seat was freed joins afresh: same key, new challenge (a new
        client, which knows of no seat to authenticate for)."""
        seat = self.seats[conn]
        old = seat.client
        seat.client = ClientConnection(key=old.key, name=seat.name, cpu=old.cpu, in_order=True)
        seat.connected = True
        self._open(conn, seat.client)
        self._challenge(conn)
        self.run_until_idle()

    def add_player(
        self,
        bot: Bot,
        *,
        name: str,
        cpu: bool = True,
        host_run: bool = False,
        password: str | None = None,
    ) -> Conn:
        conn = self._new_conn()
        client = ClientConnection(
            key=SigningKey(self.rng.randbytes(32)),
            name=name,
            cpu=cpu,
            host_run=host_run,
            password=password if password is not None else (self._password or ""),
            in_order=True,
        )
        self.seats[conn] = Seat(conn, client, bot, name)
        self._open(conn, client)
        # Entropy for a password exchange only at a password table, so the games of the
        # other tables (and the corpora drawn from them) stay as they were.
        entropy = self.rng.randbytes(ENTROPY_BYTES) if self.host.password_verifier else b""
        self._challenge(conn, pake_entropy=entropy)
        return conn

    def add_spectator(self) -> Conn:
        conn = self._new_conn()
        client = ClientConnection(
            key=SigningKey(self.rng.randbytes(32)), name="watcher", mode="spectate", in_order=True
        )
        self._open(conn, client)
        self._challenge(conn)
        assert client.peer is not None
        self.spectators[conn] = client.peer
        return conn

    # ---- the client's side of the link -------------------------------------------------------

    def _open(self, conn: Conn, client: ClientConnection) -> None:
        """A connection opens. The host answers a sync with what its log held at this moment;
        what it posts later reaches the client as broadcasts, in order (the queue), so the
        link never delivers an entry ahead of the ones still on their way."""
        self._clients[conn] = client
        self._opened_at[conn] = len(self.host.entries)

    def _challenge(self, conn: Conn, *, pake_entropy: bytes = b"") -> None:
        frame = challenge_frame(
            self.host,
            conn,
            self.rng.randbytes(16),
            pake_entropy=pake_entropy,
            host_run=self._clients[conn].host_run,  # the host's own CPUs take their kept seats
        )
        self._client_intents(conn, self._clients[conn].receive_frame(frame, self.now))

    def _client_intents(self, conn: Conn, intents: list[Intent]) -> None:
        """What a client asks for. Its messages and secrets take their turn in the queue with
        everything else on the link (the order the host sees them in is the game's); the
        handshake (challenge, records, password, join, welcome) happens at once."""
        client = self._clients[conn]
        for intent in intents:
            if isinstance(intent, (SendMessage, DrawSecrets, RaiseAlarm)):
                self._queue.append(("client", (conn, intent)))
            elif isinstance(intent, OpenStore):  # an in-memory client keeps no records
                self._client_intents(conn, client.store_opened(None))
            elif isinstance(intent, StretchPassword):
                verifier = (
                    None
                    if intent.password is None
                    else password_verifier(intent.password, intent.table_id)
                )
                entropy = self.rng.randbytes(intent.entropy_bytes)
                self._client_intents(conn, client.password_ready(intent.attempt, verifier, entropy))
            elif isinstance(intent, SendFrame):
                self._frame_to_host(conn, intent)
            # Timers, status, progress, fatal and reconnect mean nothing on this link.

    def _frame_to_host(self, conn: Conn, frame: SendFrame) -> None:
        fields = frame.fields
        client = self._clients[conn]
        if frame.kind == "sync":
            start = fields["from"]
            for line in self.host.lines(start)[: max(0, self._opened_at[conn] - start)]:
                self._client_intents(conn, client.receive_entry_line(line, self.now))
        else:  # in-process, like the host's own CPU seats: trusted
            to_host = {"type": frame.kind, **fields}
            outputs = answer_challenge(self.host, conn, to_host, self.now, trusted=True)
            self._handshake_outputs(conn, outputs)

    def _handshake_outputs(self, conn: Conn, outputs: list[Output]) -> None:
        """The host's answer to a join, auth or spectate: queued like any output, but the
        welcome reaches the client at once (nothing of the game passes before it)."""
        self._host_outputs(outputs)
        for out in outputs:
            if isinstance(out, Seated) and out.conn == conn:
                welcome = welcome_frame(out)
                self._client_intents(conn, self._clients[conn].receive_frame(welcome, self.now))

    # ---- the link ------------------------------------------------------------------------

    def _host_outputs(self, outputs: list[Output]) -> None:
        for out in outputs:
            self._queue.append(("host", out))

    def _peer_outputs(self, conn: Conn, outputs: list[PeerOutput]) -> None:
        """Outputs of a seat's peer driven directly (tests act for a seat this way)."""
        for out in outputs:
            self._queue.append(("peer", (conn, out)))

    def _everyone(self) -> list[tuple[Conn, ClientConnection, bool]]:
        rows = [(c, s.client, s.connected) for c, s in self.seats.items()]
        rows += [(c, self._clients[c], True) for c in self.spectators]
        return rows

    def _handle_host(self, out: Output) -> None:
        if isinstance(out, Posted):
            self._after_posted(out)
            for conn, client, connected in self._everyone():
                if not connected:
                    continue
                line: bytes | None = out.entry.line
                if self.on_deliver is not None:
                    line = self.on_deliver(conn, out.entry.line)
                if line is not None:
                    self._client_intents(conn, client.receive_entry_line(line, self.now))
        elif isinstance(out, Rejected):
            self.stats.rejected.append(out)
            refused = cast(Conn, out.conn)
            told = self._clients.get(refused)
            if told is not None:
                error = {
                    "type": "error",
                    "reason": str(out.reason),
                    "detail": out.detail,
                    "ref": out.ref,
                }
                self._client_intents(refused, told.receive_frame(error, self.now))
        elif isinstance(out, NeedStandIn):
            self._create_stand_in(out.seat)
        elif isinstance(out, RetireStandIn):
            for conn, seat in list(self.seats.items()):
                if seat.stand_in_for == out.seat:
                    self.disconnect(conn)
        elif isinstance(out, (Accepted, Seated)):
            pass  # a welcome reached its client with the handshake

    def _handle_peer(self, conn: Conn, out: PeerOutput) -> None:
        if isinstance(out, Send):
            self._handle_client(conn, SendMessage(out.message))
        elif isinstance(out, NeedSecrets):
            self._handle_client(conn, DrawSecrets(out.round, out.attempt))
        elif isinstance(out, Alarm):
            self._handle_client(conn, RaiseAlarm(out))

    def _handle_client(self, conn: Conn, intent: Intent) -> None:
        if isinstance(intent, SendMessage):
            msg: Message | None = intent.message
            if self.on_send is not None:
                msg = self.on_send(conn, intent.message)
            if msg is None or self._lost(conn, msg):
                return
            self.stats.messages += 1
            self._host_outputs(self.host.receive(conn, msg.to_json(), self.now))
        elif isinstance(intent, DrawSecrets):
            secrets = Secrets(
                self.rng.randbytes(32), self.rng.randbytes(32), self.rng.randbytes(32)
            )
            client = self.seats[conn].client
            self._client_intents(
                conn, client.provide_secrets(intent.round, intent.attempt, secrets, self.now)
            )
        elif isinstance(intent, RaiseAlarm):
            self.stats.alarms.append((conn, intent.alarm))

    def _create_stand_in(self, seat_no: int) -> None:
        """A host-run CPU for an absent seat: its connection opens first, so it hears every
        entry from the stand-in's on."""
        from .registry import load_bot

        conn = self._new_conn()
        name = f"CPU for seat {seat_no}"
        client = ClientConnection(
            key=SigningKey(self.rng.randbytes(32)),
            name=name,
            cpu=True,
            host_run=True,
            seat_hint=seat_no,
            in_order=True,
        )
        self.seats[conn] = Seat(conn, client, load_bot(DEFAULT_LEVEL), name, stand_in_for=seat_no)
        self._open(conn, client)
        self._host_outputs(self.host.install_stand_in(seat_no, client.key.public, self.now))
        self._challenge(conn)

    # ---- faults ----------------------------------------------------------------------------

    def _lost(self, conn: Conn, msg: Message) -> bool:
        """Whether the fault injector loses this message on its way to the host."""
        if self.faults is None or self.seats[conn].stand_in_for is not None:
            return False
        if self.host.state.roster and self.host.state.roster[msg.seat].host_run:
            return False  # a host-run seat's messages never travel
        peer = self.seats[conn].peer
        if msg.type in _LOST_STEPS:
            if not self._fault(msg.type):
                return False
            peer.drop_pending(msg.digest())  # it gave up on it: nothing blocks its next move
            return True
        if msg.type in _LOST_MOVES and self.host.state.rules.turn_timer:
            if not self._fault("move"):
                return False
            # Kept pending (the seat waits for it) until the host forces the move instead.
            self._dropped_moves.setdefault(conn, []).append(msg.digest())
            return True
        return False

    def _after_posted(self, out: Posted) -> None:
        entry = out.entry
        event = entry.event or {}
        if event.get("type") == "forced":
            for conn, seat in self.seats.items():
                if seat.peer.seat == event["seat"]:
                    for digest in self._dropped_moves.pop(conn, []):
                        seat.peer.drop_pending(digest)
        msg = entry.msg
        if msg is not None and msg.type == MessageType.BID and self.host.state.rules.undo:
            bidder = next(
                (c for c, s in self.seats.items() if s.peer.seat == msg.seat and s.connected),
                None,
            )
            if (
                bidder is not None
                and self.seats[bidder].stand_in_for is None
                and self._fault("undo")
            ):
                self._undo_next.add(bidder)

    def _maybe_disconnect(self, conn: Conn) -> bool:
        """A seat about to move drops; it comes back before or after its grace period."""
        seat = self.seats[conn]
        if seat.stand_in_for is not None or self._fault_rng is None:
            return False
        state, seat_no = self.host.state, seat.peer.seat
        if seat_no is None or state.roster[seat_no].host_run:
            return False
        if any(not s.connected for s in self.seats.values()) or not self._fault("disconnect"):
            return False
        grace = float(state.rules.grace_period)
        away = grace / 2 if self._fault_rng.random() < 0.5 else grace * 2
        self.disconnect(conn)
        self._schedule(self.now + away, lambda: self.reconnect(conn))
        return True

    def _schedule(self, when: float, what: Callable[[], None]) -> None:
        self._scheduled.append((when, what))
        self._scheduled.sort(key=lambda item: item[0])

    def disconnect(self, conn: Conn) -> None:
        self.seats[conn].connected = False
        self.seats[conn].client.connection_lost()  # its timers: none on this link
        self._host_outputs(self.host.disconnected(conn, self.now))

    def reconnect(self, conn: Conn) -> None:
        """The same client comes back: it authenticates, and resends what is pending once
        welcomed. The link hands it what it missed first, before the challenge, as this
        harness always has: a real client catches up after its welcome, quietly, and owes
        the same, but the order in which the host then hears the seats would differ, and
        protocol/examples holds games played in this order."""
        seat = self.seats[conn]
        seat.connected = True
        client = seat.client
        for line in self.host.lines(len(seat.peer.replayer.chain)):
            self._client_intents(conn, client.receive_entry_line(line, self.now))
        self._open(conn, client)
        self._challenge(conn)

    # ---- driving -------------------------------------------------------------------------

    def run_until_idle(self, *, decide: bool = True, max_steps: int = 100_000) -> None:
        for _ in range(max_steps):
            if self._queue:
                source, item = self._queue.popleft()
                if source == "host":
                    self._handle_host(item)
                elif source == "client":
                    self._handle_client(*item)
                else:
                    self._handle_peer(*item)
                continue
            if decide and self._decide_one():
                continue
            return
        raise RuntimeError("the in-memory table did not settle")

    def _decide_one(self) -> bool:
        """Let one seated bot act if it is its move (bids, calls, starting the next round)."""
        for conn in sorted(self._undo_next):
            self._undo_next.discard(conn)
            seat = self.seats[conn]
            game = self.host.state.game
            bidder = game.standing_bidder if game is not None else None
            if seat.connected and bidder is not None and bidder == seat.peer.seat:
                self._client_intents(conn, seat.client.act(Undo(bidder), self.now))
                return True
        for conn, seat in self.seats.items():
            if not seat.connected:
                continue
            action = bot_move(seat.peer, seat.bot, self.rng)
            if action is not None:
                if isinstance(action, PlaceBid) and self._maybe_disconnect(conn):
                    return True
                self._client_intents(conn, seat.client.act(action, self.now))
                return True
        return False

    def advance_clock(self) -> bool:
        deadline = self.host.next_deadline(self.now)
        if self._scheduled and (deadline is None or self._scheduled[0][0] <= deadline):
            when, what = self._scheduled.pop(0)
            self.now = max(self.now, when)
            what()
            self._host_outputs(self.host.tick(self.now))
            return True
        if deadline is None:
            return False
        self.now = max(self.now, deadline)
        self._host_outputs(self.host.tick(self.now))
        return True

    def play(self, *, max_rounds: int = 10_000) -> None:
        """Run the game to its game-over entry (bounded)."""
        for _ in range(max_rounds * 50):
            self.run_until_idle()
            if self.host.phase == TablePhase.OVER:
                return
            if not self.advance_clock():
                raise RuntimeError(f"stuck in {self.host.phase} with nothing timed")
        raise RuntimeError("the game did not end")


def simulate_protocol(
    rules: Rules,
    bots: Sequence[Bot],
    *,
    games: int,
    seed: int,
    names: Sequence[str] | None = None,
    out: Callable[[str], None] | None = None,
    save: Callable[[int, list[bytes]], None] | None = None,
    faults: Faults | None = None,
    host_cpu: int = 0,
) -> Summary:
    """Like sim.simulate, but every game runs through the protocol; `save(number, lines)` is
    handed each game's log (the caller decides where it goes: bots write no files).

    With `faults` the games go wrong in seeded ways (see Faults); each is still verified, and
    a game that ends without a winner counts no win."""
    import time

    from ..core.verify import verify_lines

    rng = random.Random(seed)
    summary = Summary(wins=[0] * rules.seats)
    started = time.perf_counter()
    for number in range(1, games + 1):
        table = LocalTable(
            rules,
            bots,
            rng=rng,
            name=f"simulated game {number}",
            faults=faults,
            host_cpu=host_cpu,
        )
        table.seat_everyone()
        table.play()
        game = table.host.state.game
        assert game is not None
        summary.games += 1
        summary.rounds += game.round
        if game.winner is not None:
            summary.wins[game.winner] += 1
        summary.messages += table.stats.messages
        if out or faults is not None:
            report = verify_lines(table.host.lines())
            if not report.ok:
                raise RuntimeError(f"game {number} does not verify: {report.failure}")
        if out:
            out(
                f"=== Game {number} (through the protocol; comparison code {report.comparison_code}) ==="
            )
            for line in report.rounds:
                out("  " + line)
            for line in report.host_act_lines:
                out("  host act: " + line)
            for warning in report.warnings:
                out(f"  warning (entry {warning.index}): {warning.detail}")
            ranking = ranking_line(game.ranking, list(names or []), ", ")
            out(
                ("Final ranking: " if game.winner is not None else "No winner; ranking: ") + ranking
            )
        if save is not None:
            save(number, table.host.lines())
    summary.seconds = time.perf_counter() - started
    return summary
