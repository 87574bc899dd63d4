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

import hmac
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

from .errors import LocalError, Reason, RemoteError
from .events import make_event
from .fairness import beacon, contribution_matches, draw_starter, password_proof
from .game import Phase
from .hashing import Tag
from .messages import Message, parse_message
from .rules import Rules
from .signing import SigningKey, verify
from .table import (
    ChainIndex,
    Note,
    Replayer,
    TableError,
    TablePhase,
    TableState,
    advance,
    check_message,
    expected_result,
    genesis_state,
)
from .transcript import ZERO_HASH, Entry, build_entry, parse_entry

Conn = Hashable

COMMIT_WAIT = 15.0  #: seconds a connected seat has to commit before the attempt is aborted
ACK_WAIT = 5.0  #: seconds to wait for acknowledgements before moving on
TIMER_SLACK = 2.0  #: extra seconds the host gives a client's own timer move before forcing
STRIKES_TO_ABSENT = 2  #: aborts blamed on one seat before it is declared absent


# ---- outputs ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Posted:
    """A new transcript entry: send it to every connection."""

    entry: Entry


@dataclass(frozen=True, slots=True)
class Rejected:
    conn: Conn
    reason: Reason
    detail: str
    ref: str | None = None  #: the message digest (hex) that was refused, when there was one


@dataclass(frozen=True, slots=True)
class Accepted:
    """A message is buffered (commitment, contribution) or was already posted (a resend)."""

    conn: Conn
    ref: str
    seq: int | None = None


@dataclass(frozen=True, slots=True)
class Seated:
    conn: Conn
    seat: int | None  #: None for a spectator


@dataclass(frozen=True, slots=True)
class NeedStandIn:
    """Create a host-run CPU peer for `seat` and call `install_stand_in`."""

    seat: int


@dataclass(frozen=True, slots=True)
class RetireStandIn:
    seat: int


Output = Posted | Rejected | Accepted | Seated | NeedStandIn | RetireStandIn


@dataclass(slots=True)
class _Waiting:
    """Per-phase bookkeeping that never reaches the log."""

    since: float = 0.0
    commits: dict[int, Message] = field(default_factory=dict)
    contributions: dict[int, Message] = field(default_factory=dict)
    next_round: Message | None = None
    next_round_conn: Conn | None = None
    turn_seat: int | None = None
    turn_left: float | None = None  #: seconds left on the turn timer when paused
    turn_since: float = 0.0


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
        password: str | None = None,
        now: float = 0.0,
    ) -> None:
        genesis = make_event(
            "genesis",
            protocol=1,
            host=key.public,
            name=name,
            rules=rules.to_json(),
            nonce=nonce,
            host_cpu=host_cpu,
        )
        self._setup(key, password, genesis_state(genesis), now)
        self._append(build_entry(key, 0, ZERO_HASH, event=genesis))

    def _setup(self, key: SigningKey, password: str | None, state: TableState, now: float) -> None:
        self.key = key
        self.password = password
        self.state = state
        self.chain = ChainIndex()
        self.entries: list[Entry] = []
        self.notes: list[Note] = []
        self._posted: dict[bytes, int] = {}  # message digest -> seq
        self._challenges: dict[Conn, tuple[bytes, int | None]] = {}
        self._conn_seat: dict[Conn, int] = {}
        self._connected: dict[int, set[Conn]] = {}
        self._gone_since: dict[int, float] = {}
        self._strikes: dict[int, int] = {}
        self._returning: set[int] = set()
        self._awaiting_stand_in: set[int] = set()
        self._wait = _Waiting(since=now)

    @classmethod
    def resume(
        cls, *, key: SigningKey, lines: list[bytes], password: str | None, now: float
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
        table._setup(key, password, state, now)
        for entry in entries:
            table._append(entry)
        table.notes = list(replayer.notes)
        for seat in range(state.rules.seats):
            if state.game is not None and state.game.dice[seat] > 0:
                table._gone_since[seat] = now
        table._after_change(state, now)
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

    def free_seat(self) -> int | None:
        reserved = {s for _, s in self._challenges.values() if s is not None}
        for seat in range(self.state.rules.seats):
            if seat not in self.state.joins and seat not in reserved:
                return seat
        return None

    # ---- connections ---------------------------------------------------------------------

    def challenge(self, conn: Conn, nonce: bytes) -> dict[str, Any]:
        """What a new connection is told; it reserves a free seat while the lobby is open."""
        seat = self.free_seat() if self.state.phase == TablePhase.LOBBY else None
        self._challenges[conn] = (nonce, seat)
        return {
            "table": self.table_id.hex(),
            "host": self.key.public.hex(),
            "nonce": nonce.hex(),
            "seat": seat,
            "password": self.password is not None,
        }

    def join(self, conn: Conn, message: Any, proof: bytes | None, now: float) -> list[Output]:
        """A join answering this connection's challenge."""
        try:
            msg = parse_message(message)
            nonce, seat = self._challenge_of(conn)
            if msg.type != "join":
                raise RemoteError(Reason.SCHEMA, "a join message was expected")
            if bytes.fromhex(msg.body["nonce"]) != nonce or msg.table != self.table_id:
                raise RemoteError(Reason.BAD_CHALLENGE, "the join answers another challenge")
            if self.password is not None:
                want = password_proof(
                    self.password,
                    table_id=self.table_id,
                    host_key=self.key.public,
                    nonce=nonce,
                    player_key=msg.bytes_field("key"),
                )
                if proof is None or not hmac.compare_digest(want, proof):
                    raise RemoteError(Reason.BAD_PASSWORD, "wrong password")
            if seat is None:
                raise RemoteError(Reason.TABLE_FULL, "no seat is free")
            if msg.seat != seat:
                raise RemoteError(Reason.SEAT_TAKEN, f"seat {seat} was offered, not {msg.seat}")
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail)]
        outputs = self._post_msg(conn, msg, now)
        if any(isinstance(o, Posted) for o in outputs):
            del self._challenges[conn]
            self._bind(conn, msg.seat, now, msg.bytes_field("key"))
            outputs.append(Seated(conn, msg.seat))
            outputs += self._maybe_start(now)
            outputs += self.tick(now)
        return outputs

    def authenticate(self, conn: Conn, auth: Any, now: float) -> list[Output]:
        """A returning seat (or a stand-in) proves it holds the seat's key."""
        try:
            nonce, _ = self._challenge_of(conn)
            body, sig = _auth_parts(auth)
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
        self._bind(conn, seat, now, key)
        return [Seated(conn, seat), *self.tick(now)]

    def spectate(self, conn: Conn) -> list[Output]:
        self._challenges.pop(conn, None)
        return [Seated(conn, None)]

    def disconnected(self, conn: Conn, now: float) -> list[Output]:
        self._challenges.pop(conn, None)
        seat = self._conn_seat.pop(conn, None)
        if seat is None:
            return []
        conns = self._connected.get(seat, set())
        conns.discard(conn)
        if not conns:
            self._gone_since[seat] = now
            if self._wait.turn_seat == seat and self._wait.turn_left is None:
                self._pause_turn(now)
            if self.state.phase == TablePhase.LOBBY and seat in self.state.joins:
                return self._post_event(make_event("leave", seat=seat), now)
        return self.tick(now)

    def _challenge_of(self, conn: Conn) -> tuple[bytes, int | None]:
        if conn not in self._challenges:
            raise RemoteError(Reason.BAD_CHALLENGE, "no challenge is open on this connection")
        return self._challenges[conn]

    def _seat_for_key(self, key: bytes) -> int | None:
        for seat, k in self.state.keys.items():
            if k == key:
                return seat
        for seat, info in self.state.joins.items():
            if info.key == key:
                return seat
        if self.state.roster:
            for info in self.state.roster:
                if info.key == key:
                    return info.seat
        return None

    def _bind(self, conn: Conn, seat: int, now: float, key: bytes) -> None:
        self._conn_seat[conn] = seat
        self._connected.setdefault(seat, set()).add(conn)
        self._gone_since.pop(seat, None)
        own = self.state.roster[seat].key if self.state.roster else None
        if seat in self.state.absent and key == own:
            self._returning.add(seat)  # takes the seat back when the next round opens
        if self._wait.turn_seat == seat and self._wait.turn_left is not None:
            self._resume_turn(now)

    # ---- messages ------------------------------------------------------------------------

    def receive(self, conn: Conn, message: Any, now: float) -> list[Output]:
        """A signed player message from a seated connection."""
        try:
            msg = parse_message(message)
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
        if msg.type == "commit":
            return self._buffer(conn, msg, now, self._wait.commits, TablePhase.COMMIT)
        if msg.type == "contribute":
            return self._buffer(conn, msg, now, self._wait.contributions, TablePhase.CONTRIBUTE)
        if msg.type == "next_round" and self.state.phase == TablePhase.RESULT:
            return self._hold_next_round(conn, msg, now)
        return [*self._post_msg(conn, msg, now), *self.tick(now)]

    def _buffer(
        self, conn: Conn, msg: Message, now: float, store: dict[int, Message], phase: TablePhase
    ) -> list[Output]:
        ref = msg.digest().hex()
        held = store.get(msg.seat)
        if held is not None and held.digest() == msg.digest():
            return [Accepted(conn, ref)]  # a resend of what we already hold: acknowledged
        try:
            self._check_buffered(msg, phase, store)
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail, ref)]
        store[msg.seat] = msg
        return [Accepted(conn, ref), *self.tick(now)]

    def _check_buffered(self, msg: Message, phase: TablePhase, store: dict[int, Message]) -> None:
        state, attempt = self.state, self.state.attempt
        if state.phase != phase or attempt is None:
            raise TableError(Reason.WRONG_PHASE, f"{msg.type} is not allowed during {state.phase}")
        if (msg.body["round"], msg.body["attempt"]) != (attempt.round, attempt.attempt):
            raise TableError(Reason.WRONG_ROUND, "the message names another round or attempt")
        if msg.seat not in attempt.seats:
            raise TableError(Reason.UNKNOWN_SEAT, f"seat {msg.seat} is not in this attempt")
        if msg.seat in store:
            raise TableError(Reason.DUPLICATE, f"seat {msg.seat} already sent its {msg.type}")
        check_message(state, msg, self.chain)
        if msg.type == "contribute":
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
            if msg.body["round"] != game.round:
                raise TableError(Reason.WRONG_ROUND, f"round {msg.body['round']}, not {game.round}")
            if game.phase == Phase.GAME_OVER or msg.seat != game.next_starter:
                raise TableError(
                    Reason.NOT_YOUR_TURN, f"seat {game.next_starter} starts the next round"
                )
            check_message(self.state, msg, self.chain)
        except RemoteError as err:
            return [Rejected(conn, err.reason, err.detail, ref)]
        self._wait.next_round, self._wait.next_round_conn = msg, conn
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
            state, notes, build_entry(self.key, len(self.chain), self.head, msg=msg), now
        )

    def _post_event(self, event: dict[str, Any], now: float) -> list[Output]:
        state, notes = advance(self.state, seq=len(self.chain), chain=self.chain, event=event)
        return self._commit_entry(
            state, notes, build_entry(self.key, len(self.chain), self.head, event=event), now
        )

    def _commit_entry(
        self, state: TableState, notes: tuple[Note, ...], entry: Entry, now: float
    ) -> list[Output]:
        before = self.state
        self.state = state
        self._append(entry)
        self.notes.extend(notes)
        self._after_change(before, now)
        return [Posted(entry)]

    def _append(self, entry: Entry) -> None:
        self.entries.append(entry)
        self.chain.append(entry.hash)
        if entry.msg is not None:
            self._posted[entry.msg.digest()] = entry.seq
        elif entry.event is not None:
            for key in ("commits", "contributions"):
                for raw in entry.event.get(key, ()):
                    self._posted[parse_message(raw).digest()] = entry.seq

    def _after_change(self, before: TableState, now: float) -> None:
        state = self.state
        if state.phase != before.phase:
            self._wait = _Waiting(since=now)
        game = state.game
        turn = game.turn if game is not None and state.phase == TablePhase.BIDDING else None
        if state.phase == TablePhase.RESULT and game is not None and game.phase != Phase.GAME_OVER:
            turn = game.next_starter
        if turn != self._wait.turn_seat or state.phase != before.phase:
            self._wait.turn_seat = turn
            self._wait.turn_since = now
            self._wait.turn_left = None
            if turn is not None and not self.seat_connected(turn):
                self._pause_turn(now)

    def _pause_turn(self, now: float) -> None:
        timer = self.state.rules.turn_timer
        if timer:
            used = now - self._wait.turn_since
            self._wait.turn_left = max(timer - used, 0.0)
        else:
            self._wait.turn_left = 0.0

    def _resume_turn(self, now: float) -> None:
        timer = self.state.rules.turn_timer
        left = self._wait.turn_left or 0.0
        self._wait.turn_since = now - (timer - left) if timer else now
        self._wait.turn_left = None

    # ---- the clock -----------------------------------------------------------------------

    def next_deadline(self, now: float) -> float | None:
        """When `tick` should next be called, after `now` (None: nothing is timed).

        Deadlines at or before `now` were dealt with by the last `tick(now)` or wait on
        something else (another deadline, a reconnection); returning them would make the
        adapter's clock spin.
        """
        candidates = [
            self._gone_since[s] + self.grace for s in self._gone_since if self._matters(s)
        ]
        phase, wait = self.state.phase, self._wait
        if phase == TablePhase.COMMIT:
            candidates.append(wait.since + COMMIT_WAIT)
        elif phase in (TablePhase.CONTRIBUTE, TablePhase.SHOWDOWN):
            candidates.append(wait.since + self.grace)
        elif phase == TablePhase.RESULT:
            candidates.append(wait.since + ACK_WAIT)
        if wait.turn_seat is not None and wait.turn_left is None and self.state.rules.turn_timer:
            candidates.append(wait.turn_since + self.state.rules.turn_timer + TIMER_SLACK)
        future = [c for c in candidates if c > now]
        return min(future) if future else None

    def turn_deadline(self) -> tuple[int | None, float | None]:
        """Whose move the table waits for, and when its turn timer runs out (None: no timer or paused)."""
        wait = self._wait
        timer = self.state.rules.turn_timer
        if wait.turn_seat is None or not timer or wait.turn_left is not None:
            return wait.turn_seat, None
        return wait.turn_seat, wait.turn_since + timer

    @property
    def grace(self) -> float:
        return float(self.state.rules.grace_period)

    def _matters(self, seat: int) -> bool:
        game = self.state.game
        return (
            game is not None
            and seat < len(game.dice)
            and game.dice[seat] > 0
            and seat not in self.state.absent
        )

    def tick(self, now: float) -> list[Output]:
        """Do whatever is due at `now`: post sets, decide rounds, declare absences, force moves."""
        outputs: list[Output] = []
        for _ in range(64):  # each step posts at most one entry; the loop ends when nothing is due
            step = self._step(now)
            if not step:
                break
            outputs += step
        return outputs

    def _gone_too_long(self, seat: int, now: float) -> bool:
        since = self._gone_since.get(seat)
        return since is not None and now >= since + self.grace

    def _declare_absent(self, now: float) -> list[Output] | None:
        state, game = self.state, self.state.game
        if game is None or state.phase in (TablePhase.LOBBY, TablePhase.OVER):
            return None
        for seat in game.survivors:
            if seat not in state.absent and self._gone_too_long(seat, now):
                return self._post_event(
                    make_event("absent", round=game.round, seat=seat, reason="grace_expired"), now
                )
        return None

    def _step(self, now: float) -> list[Output]:
        absent = self._declare_absent(now)
        if absent:
            return absent
        handler = {
            TablePhase.BETWEEN: self._step_between,
            TablePhase.COMMIT: self._step_commit,
            TablePhase.CONTRIBUTE: self._step_contribute,
            TablePhase.BIDDING: self._step_bidding,
            TablePhase.SHOWDOWN: self._step_showdown,
            TablePhase.RESULT: self._step_result,
        }.get(self.state.phase)
        return handler(now) if handler else []

    def _maybe_start(self, now: float) -> list[Output]:
        state = self.state
        if state.phase != TablePhase.LOBBY or len(state.joins) != state.rules.seats:
            return []
        roster = [state.joins[s].to_json() for s in sorted(state.joins)]
        return self._post_event(make_event("start", roster=roster), now)

    def _step_between(self, now: float) -> list[Output]:
        state, game = self.state, self.state.game
        assert game is not None
        for seat in sorted(self._returning):
            self._returning.discard(seat)
            if seat in state.absent:
                outputs = self._post_event(make_event("return", round=game.round, seat=seat), now)
                if seat in self._awaiting_stand_in or seat in state.stand_ins:
                    self._awaiting_stand_in.discard(seat)
                    outputs.append(RetireStandIn(seat))
                return outputs
        for seat in game.survivors:
            if seat in state.absent and seat not in state.stand_ins:
                if seat not in self._awaiting_stand_in:
                    self._awaiting_stand_in.add(seat)
                    return [NeedStandIn(seat)]
                return []  # the adapter has not installed it yet
        return self._post_event(
            make_event(
                "round",
                round=game.round,
                attempt=state.attempt.attempt + 1 if state.after_abort and state.attempt else 1,
                seats=list(game.survivors),
                dice=list(game.dice),
                starter=game.starter,
                palifico=game.palifico_round,
            ),
            now,
        )

    def install_stand_in(self, seat: int, public_key: bytes, now: float) -> list[Output]:
        """The adapter created the stand-in peer the host asked for."""
        state, game = self.state, self.state.game
        if seat not in self._awaiting_stand_in or game is None or state.phase != TablePhase.BETWEEN:
            return []
        self._awaiting_stand_in.discard(seat)
        event = make_event("stand_in", round=game.round, seat=seat, key=public_key)
        return [*self._post_event(event, now), *self.tick(now)]

    def _step_commit(self, now: float) -> list[Output]:
        attempt = self.state.attempt
        assert attempt is not None
        commits = self._wait.commits
        if all(s in commits for s in attempt.seats):
            raws = [commits[s].to_json() for s in attempt.seats]
            return self._post_event(
                make_event(
                    "commit_set", round=attempt.round, attempt=attempt.attempt, commits=raws
                ),
                now,
            )
        missing = [s for s in attempt.seats if s not in commits]
        waiting_for_return = any(
            s in self._gone_since and not self._gone_too_long(s, now) for s in missing
        )
        if now < self._wait.since + COMMIT_WAIT or waiting_for_return:
            return []
        for seat in missing:
            self._strikes[seat] = self._strikes.get(seat, 0) + 1
        outputs = self._post_event(
            make_event(
                "abort",
                round=attempt.round,
                attempt=attempt.attempt,
                missing=missing,
                reason="commit_timeout",
            ),
            now,
        )
        game = self.state.game
        assert game is not None
        for seat in missing:
            if self._strikes[seat] >= STRIKES_TO_ABSENT and seat not in self.state.absent:
                self._strikes[seat] = 0
                outputs += self._post_event(
                    make_event("absent", round=game.round, seat=seat, reason="no_reply"), now
                )
        return outputs

    def _step_contribute(self, now: float) -> list[Output]:
        state, attempt = self.state, self.state.attempt
        assert attempt is not None and attempt.commit_set is not None
        got = self._wait.contributions
        if all(s in got for s in attempt.seats):
            ts = [got[s].bytes_field("contribution") for s in attempt.seats]
            r = beacon(state.table_id, attempt.round, attempt.attempt, attempt.commit_set, ts)
            starter = attempt.starter
            if starter is None:
                starter = draw_starter(r, table_id=state.table_id, seats=attempt.seats)
            return self._post_event(
                make_event(
                    "beacon",
                    round=attempt.round,
                    attempt=attempt.attempt,
                    contributions=[got[s].to_json() for s in attempt.seats],
                    beacon=r,
                    starter=starter,
                ),
                now,
            )
        missing = [s for s in attempt.seats if s not in got]
        if now < self._wait.since + self.grace:
            return []
        game = state.game
        assert game is not None
        for seat in missing:
            if seat not in state.absent:
                return self._post_event(
                    make_event("absent", round=game.round, seat=seat, reason="no_reply"), now
                )
        return self._forfeit(missing, "no_contribution", now)

    def _forfeit(self, seats: list[int], reason: str, now: float) -> list[Output]:
        from .game import Forfeit, apply

        attempt, game = self.state.attempt, self.state.game
        assert attempt is not None and game is not None
        after = apply(game, Forfeit(tuple(seats)))
        result = after.last_result
        assert result is not None
        return self._post_event(
            make_event(
                "forfeit",
                round=attempt.round,
                attempt=attempt.attempt,
                seats=seats,
                reason=reason,
                dice_after=list(result.dice_after),
                next_starter=result.next_starter,
            ),
            now,
        )

    def _step_bidding(self, now: float) -> list[Output]:
        game = self.state.game
        assert game is not None and game.turn is not None
        seat = game.turn
        if seat in self.state.absent and seat not in self.state.stand_ins:
            return self._force(seat, "absent", now)
        if self._timer_expired(now):
            return self._force(seat, "timer", now)
        return []

    def _timer_expired(self, now: float) -> bool:
        timer = self.state.rules.turn_timer
        wait = self._wait
        return (
            bool(timer) and wait.turn_left is None and now >= wait.turn_since + timer + TIMER_SLACK
        )

    def _force(self, seat: int, reason: str, now: float) -> list[Output]:
        from .game import blind_action
        from .table import _action_json

        game = self.state.game
        assert game is not None
        if self.state.phase == TablePhase.RESULT:
            action: dict[str, Any] = {"type": "next_round"}
        else:
            action = _action_json(blind_action(game, seat))
        return self._post_event(
            make_event("forced", round=game.round, seat=seat, reason=reason, action=action), now
        )

    def _step_showdown(self, now: float) -> list[Output]:
        state, attempt = self.state, self.state.attempt
        assert attempt is not None
        missing = [s for s in attempt.seats if s not in attempt.openings]
        if not missing:
            return self._post_event(make_event("result", **expected_result(state)), now)
        if all(s in state.absent and s not in state.stand_ins for s in missing):
            try:
                return self._post_event(make_event("result", **expected_result(state)), now)
            except TableError:
                return self._forfeit(missing, "no_opening", now)
        if now < self._wait.since + self.grace:
            return []
        game = state.game
        assert game is not None
        for seat in missing:
            if seat not in state.absent:
                return self._post_event(
                    make_event("absent", round=game.round, seat=seat, reason="no_reply"), now
                )
        return []

    def _step_result(self, now: float) -> list[Output]:
        state, game = self.state, self.state.game
        assert game is not None
        acked = all(s in state.acks or not self.seat_connected(s) for s in range(len(game.dice)))
        settled = acked or now >= self._wait.since + ACK_WAIT
        if game.phase == Phase.GAME_OVER:
            if settled:
                return self._post_event(
                    make_event("game_over", ranking=list(game.ranking), reason="finished"), now
                )
            return []
        if not settled:
            return []
        held = self._wait.next_round
        if held is not None:
            self._wait.next_round = None
            return self._post_msg(self._wait.next_round_conn, held, now)
        starter = game.next_starter
        assert starter is not None
        if starter in state.absent and starter not in state.stand_ins:
            return self._force(starter, "absent", now)
        if self._timer_expired(now):
            return self._force(starter, "timer", now)
        return []

    def abandon(self, now: float) -> list[Output]:
        """End the game early (the host is shutting down). The log says so."""
        if self.state.phase == TablePhase.OVER:
            return []
        game = self.state.game
        ranking = list(game.ranking) if game is not None else []
        return self._post_event(make_event("game_over", ranking=ranking, reason="abandoned"), now)


def _auth_parts(auth: Any) -> tuple[dict[str, Any], bytes]:
    from . import shape

    shape.check_object(auth, {"body": lambda v: isinstance(v, dict), "sig": shape.HEX64}, "auth")
    body = auth["body"]
    shape.check_object(
        body,
        {
            "type": shape.one_of("auth"),
            "table": shape.HEX32,
            "host": shape.HEX32,
            "key": shape.HEX32,
            "nonce": shape.HEX16,
        },
        "auth",
    )
    return body, bytes.fromhex(auth["sig"])


def sign_auth(key: SigningKey, *, table: bytes, host: bytes, nonce: bytes) -> dict[str, Any]:
    """The answer to a challenge by a key that already holds a seat (SPEC.md 10.2)."""
    body = {
        "type": "auth",
        "table": table.hex(),
        "host": host.hex(),
        "key": key.public.hex(),
        "nonce": nonce.hex(),
    }
    return {"body": body, "sig": key.sign(Tag.SIG_AUTH, body).hex()}
