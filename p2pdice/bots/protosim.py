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
from typing import Any

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
    sign_auth,
)
from ..core.messages import Message
from ..core.pake import ENTROPY_BYTES, Binding, joiner_answer, password_verifier
from ..core.peer import Alarm, NeedSecrets, Peer, PeerOutput, Secrets, Send
from ..core.rules import Rules
from ..core.signing import SigningKey
from ..core.table import TablePhase
from .registry import Bot
from .driver import bot_move
from .sim import Summary

Conn = int


@dataclass(slots=True)
class Seat:
    conn: Conn
    peer: Peer
    bot: Bot
    name: str
    connected: bool = True
    stand_in_for: int | None = None


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
        return cls(**{f.name: rate for f in fields(cls) if f.name != "limit"})


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
        """A player whose lobby seat was freed joins afresh: same key, new challenge."""
        seat = self.seats[conn]
        seat.connected = True
        for line in self.host.lines(len(seat.peer.replayer.chain)):
            seat.peer.receive_line(line)
        challenge = self.host.challenge(conn, self.rng.randbytes(16))
        join = seat.peer.make_join(challenge, name=seat.name, cpu=True)
        seat.peer.seat = challenge["seat"]
        self._host_outputs(self.host.join(conn, join.to_json(), None, self.now, trusted=True))
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
        peer = Peer(key=SigningKey(self.rng.randbytes(32)))
        self._follow(peer)
        # Entropy for a password exchange only at a password table, so the games of the
        # other tables (and the corpora drawn from them) stay as they were.
        entropy = self.rng.randbytes(ENTROPY_BYTES) if self.host.password_verifier else b""
        challenge = self.host.challenge(conn, self.rng.randbytes(16), pake_entropy=entropy)
        join = peer.make_join(challenge, name=name, cpu=cpu, host_run=host_run)
        pake = proof = None
        if challenge["password"]:
            table = self.host.table_id
            answer = joiner_answer(
                password_verifier(
                    password if password is not None else (self._password or ""), table
                ),
                self.rng.randbytes(ENTROPY_BYTES),
                bytes.fromhex(challenge["pake"]),
                Binding(
                    table, self.host.key.public, bytes.fromhex(challenge["nonce"]), peer.key.public
                ),
            )
            pake, proof = answer.message, answer.proof
        peer.seat = challenge["seat"]
        self.seats[conn] = Seat(conn, peer, bot, name)
        self._host_outputs(
            self.host.join(conn, join.to_json(), proof, self.now, pake=pake, trusted=True)
        )
        return conn

    def add_spectator(self) -> Conn:
        conn = self._new_conn()
        peer = Peer(key=SigningKey(self.rng.randbytes(32)))
        self._follow(peer)
        self.spectators[conn] = peer
        self.host.challenge(conn, self.rng.randbytes(16))
        self._host_outputs(self.host.spectate(conn))
        return conn

    def _follow(self, peer: Peer) -> None:
        """A new follower first receives the whole log so far."""
        for line in self.host.lines():
            peer.receive_line(line)

    # ---- the link ------------------------------------------------------------------------

    def _host_outputs(self, outputs: list[Output]) -> None:
        for out in outputs:
            self._queue.append(("host", out))

    def _peer_outputs(self, conn: Conn, outputs: list[PeerOutput]) -> None:
        for out in outputs:
            self._queue.append(("peer", (conn, out)))

    def _everyone(self) -> list[tuple[Conn, Peer, bool]]:
        rows = [(c, s.peer, s.connected) for c, s in self.seats.items()]
        rows += [(c, p, True) for c, p in self.spectators.items()]
        return rows

    def _handle_host(self, out: Output) -> None:
        if isinstance(out, Posted):
            self._after_posted(out)
            for conn, peer, connected in self._everyone():
                if not connected:
                    continue
                line = out.entry.line
                if self.on_deliver is not None:
                    line = self.on_deliver(conn, line)
                    if line is None:
                        continue
                self._peer_outputs(conn, peer.receive_line(line))
        elif isinstance(out, Rejected):
            self.stats.rejected.append(out)
            seat = self.seats.get(out.conn)
            if seat is not None and out.ref is not None:
                seat.peer.drop_pending(bytes.fromhex(out.ref))
        elif isinstance(out, NeedStandIn):
            self._create_stand_in(out.seat)
        elif isinstance(out, RetireStandIn):
            for conn, seat in list(self.seats.items()):
                if seat.stand_in_for == out.seat:
                    seat.connected = False
                    self._host_outputs(self.host.disconnected(conn, self.now))
        elif isinstance(out, (Accepted, Seated)):
            pass

    def _handle_peer(self, conn: Conn, out: PeerOutput) -> None:
        if isinstance(out, Send):
            msg = out.message
            if self.on_send is not None:
                msg = self.on_send(conn, msg)
                if msg is None:
                    return
            if self._lost(conn, msg):
                return
            self.stats.messages += 1
            self._host_outputs(self.host.receive(conn, msg.to_json(), self.now))
        elif isinstance(out, NeedSecrets):
            seat = self.seats[conn]
            secrets = Secrets(
                self.rng.randbytes(32), self.rng.randbytes(32), self.rng.randbytes(32)
            )
            self._peer_outputs(conn, seat.peer.provide_secrets(out.round, out.attempt, secrets))
        elif isinstance(out, Alarm):
            self.stats.alarms.append((conn, out))

    def _create_stand_in(self, seat_no: int) -> None:
        """A host-run CPU for an absent seat: registered first, so it hears every entry."""
        from .registry import load_bot

        conn = self._new_conn()
        peer = Peer(key=SigningKey(self.rng.randbytes(32)), seat=seat_no)
        self._follow(peer)
        self.seats[conn] = Seat(
            conn, peer, load_bot("medium"), f"CPU for seat {seat_no}", stand_in_for=seat_no
        )
        self._host_outputs(self.host.install_stand_in(seat_no, peer.key.public, self.now))
        challenge = self.host.challenge(conn, self.rng.randbytes(16))
        auth = sign_auth(
            peer.key,
            table=self.host.table_id,
            host=self.host.key.public,
            nonce=bytes.fromhex(challenge["nonce"]),
        )
        self._host_outputs(self.host.authenticate(conn, auth, self.now))

    # ---- faults ----------------------------------------------------------------------------

    def _lost(self, conn: Conn, msg: Message) -> bool:
        """Whether the fault injector loses this message on its way to the host."""
        if self.faults is None or self.seats[conn].stand_in_for is not None:
            return False
        if self.host.state.roster and self.host.state.roster[msg.seat].host_run:
            return False  # a host-run seat's messages never travel
        peer = self.seats[conn].peer
        if msg.type in ("commit", "contribute", "open"):
            if not self._fault(msg.type):
                return False
            peer.drop_pending(msg.digest())  # it gave up on it: nothing blocks its next move
            return True
        if msg.type in ("bid", "challenge", "exact") and self.host.state.rules.turn_timer:
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
        if msg is not None and msg.type == "bid" and self.host.state.rules.undo:
            conn = next(
                (c for c, s in self.seats.items() if s.peer.seat == msg.seat and s.connected),
                None,
            )
            if conn is not None and self.seats[conn].stand_in_for is None and self._fault("undo"):
                self._undo_next.add(conn)

    def _maybe_disconnect(self, conn: Conn) -> bool:
        """A seat about to move drops; it comes back before or after its grace period."""
        seat = self.seats[conn]
        if seat.stand_in_for is not None or self._fault_rng is None:
            return False
        state = self.host.state
        if state.roster[seat.peer.seat].host_run:
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
        self._host_outputs(self.host.disconnected(conn, self.now))

    def reconnect(self, conn: Conn) -> None:
        """The same peer comes back: catches up on the log, authenticates, resends what is pending."""
        seat = self.seats[conn]
        seat.connected = True
        have = len(seat.peer.replayer.chain)
        for line in self.host.lines(have):
            self._peer_outputs(conn, seat.peer.receive_line(line))
        challenge = self.host.challenge(conn, self.rng.randbytes(16))
        auth = sign_auth(
            seat.peer.key,
            table=self.host.table_id,
            host=self.host.key.public,
            nonce=bytes.fromhex(challenge["nonce"]),
        )
        self._host_outputs(self.host.authenticate(conn, auth, self.now))
        for msg in seat.peer.pending_messages():
            self._peer_outputs(conn, [Send(msg)])

    # ---- driving -------------------------------------------------------------------------

    def run_until_idle(self, *, decide: bool = True, max_steps: int = 100_000) -> None:
        for _ in range(max_steps):
            if self._queue:
                source, item = self._queue.popleft()
                if source == "host":
                    self._handle_host(item)
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
            if seat.connected and game is not None and game.standing_bidder == seat.peer.seat:
                self._peer_outputs(conn, [seat.peer.act(Undo(seat.peer.seat), now=self.now)])
                return True
        for conn, seat in self.seats.items():
            if not seat.connected:
                continue
            action = bot_move(seat.peer, seat.bot, self.rng)
            if action is not None:
                if isinstance(action, PlaceBid) and self._maybe_disconnect(conn):
                    return True
                self._peer_outputs(conn, [seat.peer.act(action, now=self.now)])
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
    transcripts: str | None = None,
    faults: Faults | None = None,
    host_cpu: int = 0,
) -> Summary:
    """Like sim.simulate, but every game runs through the protocol; optionally saves each log.

    With `faults` the games go wrong in seeded ways (see Faults); each is still verified, and
    a game that ends without a winner counts no win."""
    import time
    from pathlib import Path

    from ..core.verify import verify_lines

    rng = random.Random(seed)
    summary = Summary(wins=[0] * rules.seats)
    folder = Path(transcripts) if transcripts else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
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
            labels = list(names or [])
            ranking = ", ".join(
                f"{i}. {labels[s] if labels else s}" for i, s in enumerate(game.ranking, 1)
            )
            out(
                ("Final ranking: " if game.winner is not None else "No winner; ranking: ") + ranking
            )
        if folder is not None:
            (folder / f"game-{number:04d}.jsonl").write_bytes(
                b"".join(line + b"\n" for line in table.host.lines())
            )
    summary.seconds = time.perf_counter() - started
    return summary
