"""Core client connections against the core HostTable, with no asyncio and no sockets.

`Link` plays the part of net/server.py and net/session.py at once, as plainly as possible:
it turns each client intent into a host call (the handshake through core/host_link.py, as the
server does; send, sync) and each host output into the frame a real host would send (welcome,
entry, error, accepted), and it answers
the client's requests (records, secrets, the password) from seeded randomness. Frames a test
wants to hold, rewrite or forge go through `deliver` by hand.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import (
    DrawSecrets,
    Intent,
    OpenStore,
    SavedSeat,
    SendFrame,
    SendMessage,
    StartTimer,
    StretchPassword,
)
from p2pdice.core.codec import decode, encode
from p2pdice.core.host import Accepted, HostTable, Output, Posted, Rejected, Seated
from p2pdice.core.host_link import answer_challenge, challenge_frame, welcome_frame
from p2pdice.core.pake import password_verifier
from p2pdice.core.peer import Secrets
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey


@dataclass
class Link:
    """One host table and the clients connected to it."""

    host: HostTable
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    now: float = 1_000.0
    clients: dict[int, ClientConnection] = field(default_factory=dict)
    #: Every intent each connection's client emitted, in order.
    intents: dict[int, list[Intent]] = field(default_factory=dict)
    #: Records a connection's client answers OpenStore with (default: keeps none).
    saved: dict[int, SavedSeat | None] = field(default_factory=dict)
    #: Rewrites frames to one client before they reach it (None: the frame is lost).
    rewrite: Callable[[int, dict[str, Any]], dict[str, Any] | None] | None = None
    #: Frames held back from clients while `holding` (delivered by `release`).
    holding: bool = False
    held: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    #: Fire a client's 0 s timers (its later host-signature check) once its intents for an
    #: input are done, as the session's loop does at its next turn; False leaves them to the
    #: test.
    next_turn: bool = True

    @classmethod
    def table(cls, rules: Rules, *, password: str | None = None, seed: int = 7) -> Link:
        rng = random.Random(seed)
        host = HostTable(
            key=SigningKey(rng.randbytes(32)),
            name="core table",
            rules=rules,
            nonce=rng.randbytes(16),
            password=password,
            now=1_000.0,
        )
        return cls(host, rng)

    # ---- connections -----------------------------------------------------------------------

    def connect(self, conn: int, client: ClientConnection, *, reserve: bool = True) -> None:
        """A connection opens: the host's challenge goes to the client."""
        self.clients[conn] = client
        entropy = self.rng.randbytes(64) if self.host.password_verifier else b""
        self.deliver(
            conn,
            challenge_frame(
                self.host, conn, self.rng.randbytes(16), reserve=reserve, pake_entropy=entropy
            ),
        )

    def drop(self, conn: int) -> None:
        self.run(conn, self.clients[conn].connection_lost())
        self.host_outputs(self.host.disconnected(conn, self.now))

    def deliver(self, conn: int, frame: dict[str, Any]) -> None:
        if self.rewrite is not None:
            changed = self.rewrite(conn, frame)
            if changed is None:
                return
            frame = changed
        if self.holding:
            self.held.append((conn, frame))
            return
        client = self.clients[conn]
        if frame["type"] == "entry":
            self.run(conn, client.receive_entry_line(encode(frame["entry"]), self.now))
        else:
            self.run(conn, client.receive_frame(frame, self.now))

    def release(self) -> None:
        self.holding = False
        held, self.held = self.held, []
        for conn, frame in held:
            self.deliver(conn, frame)

    # ---- intents -----------------------------------------------------------------------------

    def run(self, conn: int, intents: list[Intent]) -> None:
        self.intents.setdefault(conn, []).extend(intents)
        client = self.clients[conn]
        self._execute(conn, client, intents)
        if self.next_turn and not client.stopped:
            for intent in intents:
                if isinstance(intent, StartTimer) and intent.seconds == 0:
                    self.run(conn, client.timer_fired(intent.timer))

    def _execute(self, conn: int, client: ClientConnection, intents: list[Intent]) -> None:
        for intent in intents:
            if client.stopped:
                return
            if isinstance(intent, OpenStore):
                self.run(conn, client.store_opened(self.saved.get(conn)))
            elif isinstance(intent, StretchPassword):
                verifier = (
                    None
                    if intent.password is None
                    else password_verifier(intent.password, intent.table_id)
                )
                entropy = self.rng.randbytes(intent.entropy_bytes)
                self.run(conn, client.password_ready(intent.attempt, verifier, entropy))
            elif isinstance(intent, DrawSecrets):
                drawn = Secrets(
                    self.rng.randbytes(32), self.rng.randbytes(32), self.rng.randbytes(32)
                )
                self.run(
                    conn, client.provide_secrets(intent.round, intent.attempt, drawn, self.now)
                )
            elif isinstance(intent, SendMessage):
                self.host_outputs(self.host.receive(conn, intent.message.to_json(), self.now))
            elif isinstance(intent, SendFrame):
                self.frame_to_host(conn, intent)

    def frame_to_host(self, conn: int, frame: SendFrame) -> None:
        fields = frame.fields
        if frame.kind == "sync":
            for line in self.host.lines(fields["from"]):
                self.deliver(conn, {"type": "entry", "entry": decode(line)})
        else:
            to_host = {"type": frame.kind, **fields}
            self.host_outputs(answer_challenge(self.host, conn, to_host, self.now))

    def host_outputs(self, outputs: list[Output]) -> None:
        """What a host sends for its outputs: entries to everyone, replies to one."""
        for out in outputs:
            if isinstance(out, Posted):
                for conn in list(self.clients):
                    self.deliver(conn, {"type": "entry", "entry": decode(out.entry.line)})
            elif isinstance(out, Seated) and out.conn in self.clients:
                self.deliver(out.conn, welcome_frame(out))
            elif isinstance(out, Rejected) and out.conn in self.clients:
                error = {"type": "error", "reason": str(out.reason), "detail": out.detail}
                self.deliver(out.conn, {**error, "ref": out.ref})
            elif isinstance(out, Accepted) and out.conn in self.clients:
                self.deliver(out.conn, {"type": "accepted", "ref": out.ref, "seq": out.seq})

    def tick(self) -> bool:
        """Jump to the host's next deadline; False when nothing is timed."""
        deadline = self.host.next_deadline(self.now)
        if deadline is None:
            return False
        self.now = max(self.now, deadline)
        self.host_outputs(self.host.tick(self.now))
        return True

    def sent(self, conn: int, kind: str | None = None) -> list[SendFrame | SendMessage]:
        """The frames (and messages) a connection's client asked to send."""
        out: list[SendFrame | SendMessage] = [
            i for i in self.intents.get(conn, []) if isinstance(i, (SendFrame, SendMessage))
        ]
        if kind is None:
            return out
        return [i for i in out if (i.kind if isinstance(i, SendFrame) else "send") == kind]
