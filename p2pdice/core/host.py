"""The host side of a table, sans-I/O: connections in, transcript entries and replies out.

Theory of operation
-------------------
The host decides *when* things happen; `table.advance` decides *whether* they may. Every
entry the host writes is first run through the table machine, so the host cannot write an
entry its own peers would refuse. The host buffers commitments and contributions and posts
each set whole, answers each bad message with a reason code and no change, and keeps the
deadlines the rules ask for as plain numbers: the adapter passes `now` in and asks for
`next_deadline(now)`; nothing here reads a clock.

Waiting rules (protocol/SPEC.md 8): a connected seat that does not commit within
`COMMIT_WAIT` gets the attempt aborted (before any secret is shown, so nothing is biased);
a seat that is disconnected, or silent where it must speak, is waited for during the grace
period, then declared absent: absent seats get blind moves for the rest of the round, a
host-run stand-in from the next attempt, and forfeit if their contribution or a deciding
opening is missing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from . import events, host_clock
from .auth import GuessThrottle, auth_parts, retry_detail
from .errors import LocalError, Reason, RemoteError
from .fairness import contribution_matches
from .hashing import Tag
from .host_clock import ACK_WAIT, COMMIT_WAIT, STRIKES_TO_ABSENT, TIMER_SLACK, HostWaits
from .host_outputs import (
    Accepted,
    Conn,
    NeedStandIn,
    Output,
    Posted,
    Rejected,
    RetireStandIn,
    Seated,
    _Waiting,
)
from .lobby_churn import LOBBY_SETTLE, LobbyChurn
from .messages import Message, MessageType, parse_message
from .pake import Binding, HostExchange, joiner_message_ok, password_verifier, work_ok
from .rules import MIN_SEATS, FirstStarter, Rules
from .signing import SigningKey, verify
from .table import (
    ChainIndex,
    Note,
    Replayer,
    TableError,
    TablePhase,
    TableState,
    advance,
    check_history,
    check_message,
    cpu_seats_owed,
    genesis_state,
    require_round,
)
from .table_state import require_next_round
from .transcript import ZERO_HASH, Entry, build_entry, messages_in, parse_entry
from .transitions import BUFFERED_MESSAGES, MESSAGE_PHASE
from .version import PROTOCOL_VERSION

__all__ = [
    "ACK_WAIT",
    "COMMIT_WAIT",
    "STRIKES_TO_ABSENT",
    "TIMER_SLACK",
    "Accepted",
    "Conn",
    "HostTable",
    "NeedStandIn",
    "Output",
    "Posted",
    "Rejected",
    "RetireStandIn",
    "Seated",
]


@dataclass(frozen=True, slots=True)
class _Attempt:
    """What a join frame carries for the password: the joiner's SPAKE2 message, its
    confirmation and its proof of work (all None at a table without a password)."""

    pake: bytes | None
    proof: bytes | None
    work: int | None


def _throttled(wait: float, where: str) -> None:
    """PASSWORD_THROTTLED when `wait` > 0; its detail starts "retry in N s" (SPEC.md 3.4),
    N rounded up, which is what a client waits before it tries again."""
    if wait > 0:
        raise RemoteError(
            Reason.PASSWORD_THROTTLED,
            f"{retry_detail(math.ceil(wait))}: the table is busy checking passwords {where}",
        )


class HostTable:
    """One table on the host. Feed it connections, frames and time; send what it returns."""

    def __init__(
        self,
        *,
        key: SigningKey,
        name: str,
        rules: Rules,
        nonce: bytes,
        host_cpu: int = 0,
        cpu_fill: bool = False,
        password: str | None = None,
        now: float = 0.0,
    ) -> None:
        """`password` is stretched into the table's verifier (pake.password_verifier) as soon
        as the table id exists; only the verifier is kept."""
        genesis = events.Genesis(
            protocol=PROTOCOL_VERSION,
            host=key.public,
            name=name,
            rules=rules.to_json(),
            nonce=nonce,
            host_cpu=host_cpu,
            cpu_fill=cpu_fill,
        )
        state = genesis_state(genesis)
        verifier = None if password is None else password_verifier(password, state.table_id)
        self._setup(key, verifier, state, now)
        self._append(build_entry(key, 0, ZERO_HASH, event=genesis))

    def _setup(
        self, key: SigningKey, password_verifier: bytes | None, state: TableState, now: float
    ) -> None:
        self.key = key
        #: The table password stretched by scrypt (SPEC.md 3.4); the password itself is not kept.
        self.password_verifier = password_verifier
        self.guesses = GuessThrottle()
        self._exchanges: dict[Conn, HostExchange] = {}  # the open password exchanges
        #: Connections that proved the password, with the key they proved it for and the
        #: host's confirmation: a join refused for another reason may be sent again.
        self._proven: dict[Conn, tuple[bytes, bytes]] = {}
        self.state = state
        self.chain = ChainIndex()
        self.entries: list[Entry] = []
        self.notes: list[Note] = []
        self._posted: dict[bytes, int] = {}  # message digest -> seq
        self._challenges: dict[Conn, tuple[bytes, int | None]] = {}
        #: The open challenges made for the host's own CPU players (`challenge(host_run=)`):
        #: only they may be offered a seat promised to those CPUs.
        self._cpu_challenges: set[Conn] = set()
        self._conn_seat: dict[Conn, int] = {}
        self._conn_source: dict[Conn, str] = {}  # where each seated connection came from
        #: The lobby's leaves so far, and by whom (lobby_churn.py, SPEC.md 3.2).
        self.lobby_churn = LobbyChurn()
        #: When each stranger's lobby join was posted: it counts towards the start only after
        #: LOBBY_SETTLE seconds still seated, so joins that leave at once never start a game.
        self._settling: dict[int, float] = {}
        self._connected: dict[int, set[Conn]] = {}
        self.waits = HostWaits(wait=_Waiting(since=now))
        #: Start as soon as this many seats are taken (None: every seat); the host's own
        #: policy, not the protocol's (SPEC.md 3.3 checks only what the start says).
        self.start_when: int | None = None
        #: The host asked to start with the seats taken (`request_start`).
        self.start_requested = False
        #: The key of the seat the host plays itself (its adapter's own player), if it plays:
        #: the start names that seat when round 1 is the host's to open (`first_starter`
        #: "host", SPEC.md 3.3).
        self.own_key: bytes | None = None

    @classmethod
    def resume(
        cls,
        *,
        key: SigningKey,
        lines: list[bytes],
        password_verifier: bytes | None,
        now: float,
    ) -> HostTable:
        """A host restarted on its own saved log picks the table up where it stopped.

        Nobody is connected yet, so every seat's grace period starts now; buffered
        commitments and contributions were never posted, and their senders resend them.
        """
        replayer = Replayer()
        entries = [parse_entry(line) for line in lines]
        for entry in entries:
            replayer.feed(entry)
        state = replayer.state
        if state is None or state.host_key != key.public:
            raise LocalError(Reason.WRONG_KEY, "this log was written by another host key")
        table = cls.__new__(cls)
        table._setup(key, password_verifier, state, now)
        for entry in entries:
            table._append(entry)
        table.lobby_churn = LobbyChurn.of_log(entries)
        table.notes = list(replayer.notes)
        for seat in range(state.rules.seats):
            if state.game is not None and state.game.dice[seat] > 0:
                table.waits.gone_since[seat] = now
                if state.phase == TablePhase.RESULT:
                    table.waits.ack_grace.add(seat)
        host_clock.after_change(table, state, now)
        return table

    # ---- facts for adapters --------------------------------------------------------------

    @property
    def table_id(self) -> bytes:
        return self.state.table_id

    @property
    def head(self) -> bytes:
        return self.chain.head

    @property
    def phase(self) -> TablePhase:
        return self.state.phase

    def lines(self, since: int = 0) -> list[bytes]:
        return [e.line for e in self.entries[since:]]

    def seat_connected(self, seat: int) -> bool:
        return bool(self._connected.get(seat))

    def free_seat(self, *, host_run: bool = False) -> int | None:
        """The lowest seat nobody holds nor was offered. People sit first, in the order they
        come; the seats promised to the host's own CPUs (`cpu_seats_promised`) are kept for
        them, so only a `host_run` connection (one of those CPUs) is offered the last ones."""
        offered = {s for _, s in self._challenges.values() if s is not None}
        free = [
            s
            for s in range(self.state.rules.seats)
            if s not in self.state.joins and s not in offered
        ]
        if not free or (not host_run and len(free) <= self.cpu_seats_promised()):
            return None
        return free[0]

    def cpu_seats_promised(self) -> int:
        """Seats still kept for the host's CPUs that no seat was offered to yet: the genesis
        `host_cpu` CPUs that have not joined (they join at the start, after the people), and
        on a `cpu_fill` table, once the start is due, every empty seat."""
        state = self.state
        if state.phase != TablePhase.LOBBY:
            return 0
        if state.cpu_fill and self.start_due():
            return state.rules.seats
        offered = sum(
            1 for c in self._cpu_challenges if self._challenges.get(c, (b"", None))[1] is not None
        )
        return max(0, cpu_seats_owed(state) - offered)

    def host_seat(self) -> int | None:
        """The seat the host plays itself, as a start names it (`host_seat`): only when round
        1 is the host's to open (`first_starter` "host") and its own player has joined."""
        if self.state.rules.first_starter != FirstStarter.HOST or self.own_key is None:
            return None
        return next((s for s, i in self.state.joins.items() if i.key == self.own_key), None)

    # ---- connections ---------------------------------------------------------------------

    def challenge(
        self,
        conn: Conn,
        nonce: bytes,
        *,
        reserve: bool = True,
        pake_entropy: bytes = b"",
        host_run: bool = False,
    ) -> dict[str, Any]:
        """What a new connection is told; it reserves a free seat while the lobby is open
        (unless the connection said it only wants to watch). `host_run`: the connection is
        one of the host's own CPU players, in-process, which may take a seat kept for them
        (`free_seat`). When a seat is offered at a table with a password, the challenge opens
        a password exchange, whose secret scalar comes from `pake_entropy`
        (pake.ENTROPY_BYTES fresh random bytes)."""
        lobby = self.state.phase == TablePhase.LOBBY
        seat = self.free_seat(host_run=host_run) if lobby and reserve else None
        self._challenges[conn] = (nonce, seat)
        if host_run:
            self._cpu_challenges.add(conn)
        pake = None
        if self.password_verifier is not None and seat is not None:
            exchange = HostExchange(self.password_verifier, pake_entropy)
            self._exchanges[conn] = exchange
            pake = exchange.message.hex()
        return {
            "table": self.table_id.hex(),
            "host": self.key.public.hex(),
            "nonce": nonce.hex(),
            "seat": seat,
            "password": self.password_verifier is not None,
            "pake": pake,
        }

    def join(
        self,
        conn: Conn,
        message: Any,
        proof: bytes | None,
        now: float,
        *,
        pake: bytes | None = None,
        work: int | None = None,
        source: str = "",
        trusted: bool = False,
    ) -> list[Output]:
        """A join answering this connection's challenge, with the joiner's password exchange
        message `pake`, confirmation `proof` and proof of work `work` at a table with a
        password. Only a `trusted`
        (in-process) connection may say its seat is run by the host. `source` (the peer's
        address) is what failed password exchanges and lobby churn are counted by, and a join
        with one counts towards the start only after LOBBY_SETTLE (an in-process link has no
        address); trusted connections are not throttled.

        The seat is checked before the password, so a refusal never tells whether a guess
        was right at a table that has no seat to give (SPEC.md 3.4)."""
        try:
            msg = parse_message(message)
            nonce, seat = self._challenge_of(conn)
            if msg.type != MessageType.JOIN:
                raise RemoteError(Reason.SCHEMA, "a join message was expected")
            if msg.body["host_run"] and not trusted:
                raise RemoteError(
                    Reason.BAD_CHALLENGE, "only the host's own CPU players are host-run"
                )
            if bytes.fromhex(msg.body["nonce"]) != nonce or msg.table != self.table_id:
                raise RemoteError(Reason.BAD_CHALLENGE, "the join answers another challenge")
            if seat is None:
                raise RemoteError(Reason.TABLE_FULL, "no seat is free")
            if msg.seat != seat:
                # As when the table refuses the seat (below): the offer is given up, so the
                # next joiner gets it now, not when this handshake ends (SPEC.md 10.2).
                self._release_seat(conn)
                raise RemoteError(Reason.SEAT_TAKEN, f"seat {seat} was offered, not {msg.seat}")
            churned = self.lobby_churn.refusal(
                msg.bytes_field("key"), source, self.state.rules.seats
            )
            if churned is not None and not trusted:
                self._release_seat(conn)  # refused for good: the seat is for the next joiner
                raise RemoteError(Reason.LOBBY_CHURN, churned)
            attempt = _Attempt(pake, proof, work)
            host_proof = self._check_password(
                conn, msg, nonce, attempt, now, source=source, trusted=trusted
            )
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail)]
        outputs = self._post_msg(conn, msg, now)
        refused = [o for o in outputs if isinstance(o, Rejected)]
        if refused and refused[0].reason in (Reason.TABLE_FULL, Reason.SEAT_TAKEN):
            # The offered seat cannot be had: do not keep it from the next joiner. (After
            # other refusals, a bad name say, the joiner may correct itself and try again.)
            self._release_seat(conn)
        elif not refused:
            del self._challenges[conn]
            self._cpu_challenges.discard(conn)
            self._proven.pop(conn, None)
            self._bind(conn, msg.seat, now, msg.bytes_field("key"))
            self._conn_source[conn] = source
            if source and not trusted:  # a socket's join: churn from the network settles
                self._settling[msg.seat] = now
            outputs.append(Seated(conn, msg.seat, host_proof))
            outputs += self._start_when_settled(now)
            outputs += self.tick(now)
        return outputs

    def _check_password(
        self,
        conn: Conn,
        msg: Message,
        nonce: bytes,
        attempt: _Attempt,
        now: float,
        *,
        source: str,
        trusted: bool,
    ) -> bytes | None:
        """The host's confirmation for the welcome (None at a table without a password), or
        RemoteError. Each connection's exchange tests one guess, and only an attempt that is
        well formed and carries its proof of work spends a guess of the table's (SPEC.md 3.4):
        anything else is a strike for its address alone."""
        if self.password_verifier is None:
            return None
        player_key = msg.bytes_field("key")
        proven = self._proven.get(conn)
        if proven is not None and proven[0] == player_key:
            return proven[1]  # this connection proved the password for this key already
        if attempt.pake is None or attempt.proof is None:
            raise RemoteError(Reason.BAD_PASSWORD, "this table needs a password")
        throttle = None if trusted else self.guesses
        if throttle is not None:
            _throttled(throttle.source_wait(source, now), "from your address")
        binding = Binding(self.table_id, self.key.public, nonce, player_key)
        if not joiner_message_ok(attempt.pake):
            if throttle is not None:
                throttle.refused(source, now)
            raise RemoteError(Reason.SCHEMA, "pake is not a joiner's SPAKE2 message")
        if attempt.work is None or not work_ok(binding, attempt.pake, attempt.work):
            if throttle is not None:
                throttle.refused(source, now)
            raise RemoteError(Reason.BAD_WORK, "the password attempt lacks its proof of work")
        if throttle is not None:
            _throttled(throttle.table_wait(source, now), "at this table")
        exchange = self._exchanges.pop(conn, None)
        if exchange is None:
            raise RemoteError(
                Reason.BAD_PASSWORD, "this connection's password exchange is used up; reconnect"
            )
        host_proof = exchange.check(attempt.pake, attempt.proof, binding)
        if host_proof is None:
            if throttle is not None:
                throttle.failed(source, now)
            raise RemoteError(Reason.BAD_PASSWORD, "wrong password")
        self.guesses.succeeded(source)
        self._proven[conn] = (player_key, host_proof)
        return host_proof

    def authenticate(self, conn: Conn, auth: Any, now: float, *, source: str = "") -> list[Output]:
        """A returning seat (or a stand-in) proves it holds the seat's key. `source` is as for
        `join`: a lobby seat whose last connection was this one is left from there."""
        try:
            nonce, _ = self._challenge_of(conn)
            body, sig = auth_parts(auth)
            key = bytes.fromhex(body["key"])
            if (
                bytes.fromhex(body["nonce"]) != nonce
                or bytes.fromhex(body["table"]) != self.table_id
            ):
                raise RemoteError(
                    Reason.BAD_CHALLENGE, "the authentication answers another challenge"
                )
            if bytes.fromhex(body["host"]) != self.key.public:
                raise RemoteError(Reason.BAD_CHALLENGE, "the authentication names another host")
            if not verify(key, Tag.SIG_AUTH, body, sig):
                raise RemoteError(
                    Reason.BAD_SIGNATURE, "the authentication signature does not verify"
                )
            seat = self._seat_for_key(key)
            if seat is None:
                raise RemoteError(Reason.NOT_SEATED, "this key holds no seat at this table")
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail)]
        del self._challenges[conn]
        self._forget_exchange(conn)
        self._bind(conn, seat, now, key)
        self._conn_source[conn] = source
        return [Seated(conn, seat), *self.tick(now)]

    def spectate(self, conn: Conn) -> list[Output]:
        self._challenges.pop(conn, None)
        self._cpu_challenges.discard(conn)
        self._forget_exchange(conn)
        return [Seated(conn, None)]

    def _forget_exchange(self, conn: Conn) -> None:
        self._exchanges.pop(conn, None)
        self._proven.pop(conn, None)

    def disconnected(self, conn: Conn, now: float) -> list[Output]:
        self._challenges.pop(conn, None)
        self._cpu_challenges.discard(conn)
        self._forget_exchange(conn)
        seat = self._conn_seat.pop(conn, None)
        source = self._conn_source.pop(conn, "")
        if seat is None:
            return []
        conns = self._connected.get(seat, set())
        conns.discard(conn)
        if not conns:
            self.waits.gone_since[seat] = now
            if self.waits.wait.turn_seat == seat and self.waits.wait.turn_left is None:
                host_clock.pause_turn(self, now)
            if self.state.phase == TablePhase.LOBBY and seat in self.state.joins:
                self.lobby_churn.left(self.state.joins[seat].key, source)
                self._settling.pop(seat, None)
                return self._post_event(events.Leave(seat=seat), now)
        return self.tick(now)

    def _release_seat(self, conn: Conn) -> None:
        if conn in self._challenges:
            nonce, _ = self._challenges[conn]
            self._challenges[conn] = (nonce, None)

    def _challenge_of(self, conn: Conn) -> tuple[bytes, int | None]:
        if conn not in self._challenges:
            raise RemoteError(Reason.BAD_CHALLENGE, "no challenge is open on this connection")
        return self._challenges[conn]

    def _seat_for_key(self, key: bytes) -> int | None:
        # The roster is made of the joins, so the joins also cover a seat given to a stand-in.
        seat = self.state.seat_of_key(key)
        if seat is None:
            seat = next((s for s, info in self.state.joins.items() if info.key == key), None)
        return seat

    def _bind(self, conn: Conn, seat: int, now: float, key: bytes) -> None:
        self._conn_seat[conn] = seat
        self._connected.setdefault(seat, set()).add(conn)
        self.waits.gone_since.pop(seat, None)
        own = self.state.roster[seat].key if self.state.roster else None
        if seat in self.state.absent and key == own:
            self.waits.returning.add(seat)  # takes the seat back when the next round opens
        if self.waits.wait.turn_seat == seat and self.waits.wait.turn_left is not None:
            host_clock.resume_turn(self, now)

    # ---- messages ------------------------------------------------------------------------

    def receive(
        self, conn: Conn, message: Any, now: float, *, raw: bytes | None = None
    ) -> list[Output]:
        """A signed player message from a seated connection; `raw`, when the adapter has
        them, are its canonical bytes as the frame spelled them (messages.parse_message)."""
        try:
            msg = parse_message(message, raw=raw)
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail)]
        ref = msg.digest()
        if ref in self._posted:
            return [Accepted(conn, ref.hex(), self._posted[ref])]
        seat = self._conn_seat.get(conn)
        if seat is None:
            return [Rejected(conn, Reason.NOT_SEATED, "this connection holds no seat", ref.hex())]
        if msg.seat != seat:
            return [
                Rejected(conn, Reason.WRONG_KEY, f"this connection holds seat {seat}", ref.hex())
            ]
        if msg.type in BUFFERED_MESSAGES:
            return self._buffer(conn, msg, now, self.waits.wait.buffer_for(msg.type))
        if msg.type == MessageType.NEXT_ROUND and self.state.phase == MESSAGE_PHASE[msg.type]:
            # Held until the acknowledgements are in (or ACK_WAIT passes), then posted.
            return self._hold_next_round(conn, msg, now)
        return [*self._post_msg(conn, msg, now), *self.tick(now)]

    def _buffer(
        self, conn: Conn, msg: Message, now: float, store: dict[int, Message]
    ) -> list[Output]:
        ref = msg.digest().hex()
        held = store.get(msg.seat)
        if held is not None and held.digest() == msg.digest():
            return [Accepted(conn, ref)]  # a resend of what we already hold: acknowledged
        try:
            self._check_buffered(msg, store)
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail, ref)]
        store[msg.seat] = msg
        return [Accepted(conn, ref), *self.tick(now)]

    def _check_buffered(self, msg: Message, store: dict[int, Message]) -> None:
        state, attempt = self.state, self.state.attempt
        check_history(state, msg, self.chain)  # first, as the table checks (SPEC.md 7)
        if state.phase != BUFFERED_MESSAGES[msg.type] or attempt is None:
            raise TableError(Reason.WRONG_PHASE, f"{msg.type} is not allowed during {state.phase}")
        require_round(state, msg.body["round"], msg.body["attempt"])
        if msg.seat not in attempt.seats:
            raise TableError(Reason.UNKNOWN_SEAT, f"seat {msg.seat} is not in this attempt")
        if msg.seat in store:
            raise TableError(Reason.DUPLICATE, f"seat {msg.seat} already sent its {msg.type}")
        check_message(state, msg, self.chain)
        if msg.type == MessageType.CONTRIBUTE:
            assert attempt.commit_set is not None
            if msg.bytes_field("commit_set") != attempt.commit_set:
                raise TableError(
                    Reason.WRONG_COMMIT_SET, "the contribution answers another commitment set"
                )
            ctx = attempt.context(state.table_id, msg.seat, state.keys[msg.seat])
            if not contribution_matches(
                ctx, attempt.commits[msg.seat][1], contribution=msg.bytes_field("contribution")
            ):
                raise TableError(
                    Reason.OPENING_MISMATCH, "the contribution does not match its commitment"
                )
        else:
            mine = {msg.bytes_field("seed_commit"), msg.bytes_field("contrib_commit")}
            if mine & state.used_commitments:
                raise TableError(
                    Reason.DUPLICATE_COMMITMENT, "this commitment was used before at this table"
                )
            others = {
                v
                for m in store.values()
                for v in (m.bytes_field("seed_commit"), m.bytes_field("contrib_commit"))
            }
            if len(mine) != 2 or mine & others:
                raise TableError(Reason.DUPLICATE_COMMITMENT, "a commitment value is used twice")

    def _hold_next_round(self, conn: Conn, msg: Message, now: float) -> list[Output]:
        ref = msg.digest().hex()
        game = self.state.game
        assert game is not None
        try:
            check_history(self.state, msg, self.chain)  # first, as the table checks (SPEC.md 7)
            require_round(self.state, msg.body["round"])
            require_next_round(game)  # as the table answers after the final round
            if msg.seat != game.next_starter:
                raise TableError(
                    Reason.NOT_YOUR_TURN, f"seat {game.next_starter} starts the next round"
                )
            check_message(self.state, msg, self.chain)
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail, ref)]
        self.waits.wait.next_round, self.waits.wait.next_round_conn = msg, conn
        return [Accepted(conn, ref), *self.tick(now)]

    def _post_msg(self, conn: Conn | None, msg: Message, now: float) -> list[Output]:
        try:
            state, notes = advance(self.state, seq=len(self.chain), chain=self.chain, msg=msg)
        except RemoteError as err:
            return (
                [Rejected(conn, err.reason, err.detail, msg.digest().hex())]
                if conn is not None
                else []
            )
        return self._commit_entry(
            state,
            notes,
            build_entry(self.key, len(self.chain), self.head, msg=msg, table=self.table_id),
            now,
        )

    def _post_event(self, event: events.HostEvent, now: float) -> list[Output]:
        """Post an event the host built. Its own table machine refusing it is our bug, not
        anything a peer sent: a LocalError, so no adapter answers a peer with its code."""
        try:
            state, notes = advance(self.state, seq=len(self.chain), chain=self.chain, event=event)
        except TableError as err:
            raise LocalError(
                Reason.INTERNAL,
                f"the host built a {event.type} event its own table refuses: "
                f"{err.reason}: {err.detail}",
            ) from err
        return self._commit_entry(
            state,
            notes,
            build_entry(self.key, len(self.chain), self.head, event=event, table=self.table_id),
            now,
        )

    def _commit_entry(
        self, state: TableState, notes: tuple[Note, ...], entry: Entry, now: float
    ) -> list[Output]:
        before = self.state
        self.state = state
        self._append(entry)
        self.notes.extend(notes)
        host_clock.after_change(self, before, now)
        return [Posted(entry)]

    def _append(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.chain.append(entry.hash)
        for msg in messages_in(entry):
            self._posted[msg.digest()] = entry.seq

    # ---- time (host_clock.py) ------------------------------------------------------------

    def tick(self, now: float) -> list[Output]:
        """Do whatever is due at `now`: post sets, decide rounds, declare absences, force moves."""
        return [*self._start_when_settled(now), *host_clock.tick(self, now)]

    def next_deadline(self, now: float) -> float | None:
        """When `tick` should next be called, after `now` (None: nothing is timed)."""
        deadline = host_clock.next_deadline(self, now)
        settled = [t + LOBBY_SETTLE for t in self._settling.values() if t + LOBBY_SETTLE > now]
        if self.state.phase == TablePhase.LOBBY and settled:
            return min(settled) if deadline is None else min(deadline, min(settled))
        return deadline

    def _start_when_settled(self, now: float) -> list[Output]:
        """The start, once every seat is taken and every stranger's join has stayed
        LOBBY_SETTLE seconds (SPEC.md 3.2)."""
        if self.state.phase != TablePhase.LOBBY:
            self._settling.clear()
            return []
        if any(now < t + LOBBY_SETTLE for t in self._settling.values()):
            return []
        return host_clock.maybe_start(self, now)

    # ---- starting ------------------------------------------------------------------------

    def start_due(self) -> bool:
        """Whether the host means to start now: it asked to, or `start_when` seats (every
        seat, by default) are taken, counting the CPU seats still to join (`cpu_seats_owed`)."""
        state = self.state
        if state.phase != TablePhase.LOBBY:
            return False
        target = self.start_when if self.start_when is not None else state.rules.seats
        return self.start_requested or len(state.joins) + cpu_seats_owed(state) >= target

    def request_start(self, now: float) -> list[Output]:
        """The host starts the game with the seats taken (SPEC.md 3.3). LocalError
        (`BAD_EVENT`, in words) when they cannot make a game; the start is posted once the
        host's CPUs (the genesis's, and on a `cpu_fill` table one per empty seat) have joined:
        the adapter seats them once `start_due`."""
        state = self.state
        if state.phase != TablePhase.LOBBY:
            raise LocalError(Reason.WRONG_PHASE, "the game has started already")
        owed = cpu_seats_owed(state)
        taken = len(state.joins) + owed
        if taken < MIN_SEATS:
            raise LocalError(
                Reason.BAD_EVENT,
                f"a game needs {MIN_SEATS} seats taken, {taken} {'is' if taken == 1 else 'are'}",
            )
        final = state.rules.seats if state.cpu_fill else taken
        named = state.rules.first_starter.seat
        if named is not None and named >= final:
            raise LocalError(
                Reason.BAD_EVENT,
                f"round 1 is opened by seat {named} (first_starter): {final} seats would play",
            )
        if state.rules.first_starter == FirstStarter.HOST and self.host_seat() is None:
            raise LocalError(
                Reason.BAD_EVENT,
                "round 1 is the host's to open (first_starter host), and the host has no seat "
                "at this table"
                + ("" if self.own_key is None else " yet: its player is still sitting down"),
            )
        if not state.cpu_fill:
            # The owed CPUs take the lowest free seats; a hole left after them stays a hole.
            free = [s for s in range(state.rules.seats) if s not in state.joins]
            after = sorted([*state.joins, *free[:owed]])
            hole = next((s for s in range(len(after)) if after[s] != s), None)
            if hole is not None:
                raise LocalError(
                    Reason.BAD_EVENT,
                    f"seat {hole} is free: the seats taken must be seats 0 to {len(after) - 1}",
                )
        self.start_requested = True
        outputs = host_clock.maybe_start(self, now)
        return outputs + self.tick(now) if outputs else outputs  # and open round 1

    def seats_to_fill(self) -> list[int]:
        """The empty seats the host's CPUs must take before a `cpu_fill` table can start:
        none until the start is due, nor on a table that leaves empty seats out."""
        state = self.state
        if not state.cpu_fill or not self.start_due():
            return []
        return [s for s in range(state.rules.seats) if s not in state.joins]

    def turn_deadline(self) -> tuple[int | None, float | None]:
        """Whose move the table waits for, and when its turn timer runs out."""
        return host_clock.turn_deadline(self)

    def low_bank_deadline(self) -> float | None:
        """When the seat on turn runs out of time, once its time bank is low (SPEC.md 8)."""
        return host_clock.low_bank_deadline(self)

    @property
    def grace(self) -> float:
        return host_clock.grace(self)

    def install_stand_in(self, seat: int, public_key: bytes, now: float) -> list[Output]:
        """The adapter created the stand-in peer the host asked for."""
        return host_clock.install_stand_in(self, seat, public_key, now)

    def abandon(self, now: float) -> list[Output]:
        """End the game early (the host is shutting down). The log says so."""
        return host_clock.abandon(self, now)

    @property
    def _wait(self) -> _Waiting:
        """The current phase's waits; tests compare them across resends."""
        return self.waits.wait
