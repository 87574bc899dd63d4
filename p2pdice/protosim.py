"""Whole games through the fairness protocol over an in-memory link (`simulate --protocol`).

Every seat is a real Peer with its own key and secrets; the host is a real HostTable; the
link delivers every frame in a deterministic order and a fake clock jumps to the host's next
deadline when nothing else is left to do. Tests use the same harness to play honest games and
to inject faults and cheats.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .bots.registry import Bot
from .core.host import (
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
from .core.messages import Message
from .core.pake import ENTROPY_BYTES, Binding, joiner_answer, password_verifier
from .core.peer import Alarm, NeedSecrets, Peer, PeerOutput, Secrets, Send
from .core.rules import Rules
from .core.signing import SigningKey
from .core.table import TablePhase
from .sim import Summary, bot_move

Conn = int


@dataclass(slots=True)
class Seat:
    conn: Conn
    peer: Peer
    bot: Bot
    name: str
    connected: bool = True
    stand_in_for: int | None = None


@dataclass(slots=True)
class LinkStats:
    messages: int = 0  #: signed player messages sent
    rejected: list[Rejected] = field(default_factory=list)
    alarms: list[tuple[Conn, Alarm]] = field(default_factory=list)


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
        #: Test hooks: rewrite what a peer sends, or what the host posts to one connection.
        self.on_send: Callable[[Conn, Message], Message | None] | None = None
        self.on_deliver: Callable[[Conn, bytes], bytes | None] | None = None

    # ---- setup ---------------------------------------------------------------------------

    def seat_everyone(self) -> None:
        for index, bot in enumerate(self._bots):
            host_run = index >= len(self._bots) - self._host_cpu
            self.add_player(bot, name=f"P{index}", cpu=True, host_run=host_run)
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
        conn = len(self.seats) + len(self.spectators) + 1
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
        conn = len(self.seats) + len(self.spectators) + 1
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
        from .bots.registry import load_bot

        conn = len(self.seats) + len(self.spectators) + 1
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
        for conn, seat in self.seats.items():
            if not seat.connected:
                continue
            action = bot_move(seat.peer, seat.bot, self.rng)
            if action is not None:
                self._peer_outputs(conn, [seat.peer.act(action, now=self.now)])
                return True
        return False

    def advance_clock(self) -> bool:
        deadline = self.host.next_deadline(self.now)
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
) -> Summary:
    """Like sim.simulate, but every game runs through the protocol; optionally saves each log."""
    import time
    from pathlib import Path

    from .core.verify import verify_lines

    rng = random.Random(seed)
    summary = Summary(wins=[0] * rules.seats)
    folder = Path(transcripts) if transcripts else None
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    for number in range(1, games + 1):
        table = LocalTable(rules, bots, rng=rng, name=f"simulated game {number}")
        table.seat_everyone()
        table.play()
        game = table.host.state.game
        assert game is not None
        summary.games += 1
        summary.rounds += game.round
        summary.wins[game.ranking[0]] += 1
        summary.messages += table.stats.messages
        if out:
            report = verify_lines(table.host.lines())
            out(
                f"=== Game {number} (through the protocol; comparison code {report.comparison_code}) ==="
            )
            for line in report.rounds:
                out("  " + line)
            labels = list(names or [])
            out(
                "Final ranking: "
                + ", ".join(
                    f"{i}. {labels[s] if labels else s}" for i, s in enumerate(game.ranking, 1)
                )
            )
        if folder is not None:
            (folder / f"game-{number:04d}.jsonl").write_bytes(
                b"".join(line + b"\n" for line in table.host.lines())
            )
    summary.seconds = time.perf_counter() - started
    return summary
