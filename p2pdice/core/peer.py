"""The player side of a table, sans-I/O: entries in, verified state and signed messages out.

A Peer holds one identity and, when seated, that seat's secrets. It checks every entry the
host posts with the same table machine the host uses (chain, signatures, commitments,
beacon, openings, result) plus what only it can know: that the commitment set holds its own
commitments unchanged, and that nothing it sent was silently dropped. A bad entry is never
applied; it raises an Alarm, and the peer stops following that host.

Randomness comes from the adapter: on `NeedSecrets` it draws 3 x 32 bytes, stores them
durably, then calls `provide_secrets`, so a crash after committing can still be opened.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .codec import encode
from .delivery import ACTED
from .errors import Reason, RemoteError
from .events import HostEvent
from .fairness import SeatContext, contrib_commitment, derive_dice, seed_commitment
from .game import Action, Challenge, ExactCall, PlaceBid, StartNextRound, Undo
from .messages import Message, MessageType, sign_message
from .signing import SigningKey
from .table import ForeignHistory, Note, Replayer, TableError, TablePhase, TableState
from .table_state import Attempt
from .transcript import Entry, host_signature_ok, messages_in, parse_entry
from .transitions import DROPPED_BY, MESSAGE_PHASE
from .view import SeatView, seat_view


@dataclass(frozen=True, slots=True)
class Secrets:
    salt: bytes
    seed: bytes
    contribution: bytes


@dataclass(frozen=True, slots=True)
class Send:
    """Send this message to the host (and keep it until it appears in the log)."""

    message: Message


@dataclass(frozen=True, slots=True)
class NeedSecrets:
    """Draw, persist, then `provide_secrets(round, attempt, ...)`."""

    round: int
    attempt: int


@dataclass(frozen=True, slots=True)
class Alarm:
    """The host did something the protocol forbids, or dropped something of ours.

    `detail` is a sentence for people; what a screen needs is in fields of its own, so no
    front end parses `detail`.
    """

    reason: Reason
    detail: str
    seq: int | None = None
    _: KW_ONLY
    #: The seats whose message, hand or place the alarm is about, in the order the check
    #: names them: the sender of a bad message entry, the seat of a tampered opening or
    #: contribution, our own seat for a dropped message; () when it is about no seat.
    seats: tuple[int, ...] = ()
    entry: str | None = None  #: the refused entry's kind (`msg:open`, `event:beacon`), if any
    dropped: str | None = None  #: MESSAGE_DROPPED: the type of our message the host never posted
    #: FORK, EQUIVOCATION: the signed items that prove it, as canonical JSON lines anyone can
    #: check offline (the host-signed entry, the player message inside it that names a head
    #: we do not hold; or the two host-signed entries with one seq)
    proof: tuple[str, ...] = ()
    #: The seq of an entry of our own chain that completes the proof (the one the host signed
    #: differently, or the one a new entry should have followed); its line is the client's.
    held: int | None = None

    @property
    def seat(self) -> int | None:
        """The first seat the alarm is about, if any."""
        return self.seats[0] if self.seats else None


@dataclass(frozen=True, slots=True)
class LostSecrets:
    """Our own records no longer hold the secrets of an attempt we committed to (a damaged or
    deleted file; they are written before the commitment leaves). Nobody else is at fault:
    we cannot contribute or show our dice for that attempt, so the table counts our seat
    absent for those steps, and the rules decide what that costs (an abort, a void as in
    RULES.md R4.2, or past the call a forfeit unless the round is decided without our dice,
    R4.1). We follow the game on, accusing nobody."""

    round: int
    attempt: int

    def describe(self) -> str:
        """Words for a person, the essential first (a message line may show no more)."""
        return (
            f"this device lost its secrets for round {self.round} (attempt {self.attempt}), so "
            "this seat cannot play that round to its end. Nobody at the table is at fault: "
            "the rules replay the round, or make the seat forfeit if its dice are needed at "
            "the call"
        )


@dataclass(frozen=True, slots=True)
class Applied:
    """An entry was verified and applied."""

    entry: Entry
    notes: tuple[Note, ...]


PeerOutput = Send | NeedSecrets | Alarm | Applied | LostSecrets


@dataclass(slots=True)
class _Pending:
    message: Message
    sent_at: float | None = None


@dataclass(slots=True)
class Peer:
    """One identity following one table; a seat once joined, a spectator otherwise."""

    key: SigningKey
    seat: int | None = None
    replayer: Replayer = field(default_factory=Replayer)
    secrets: dict[tuple[int, int], Secrets] = field(default_factory=dict)
    counter: int = 1  #: the next counter to use (a join uses 0)
    pending: dict[bytes, _Pending] = field(default_factory=dict)
    alarms: list[Alarm] = field(default_factory=list)
    halted: bool = False  #: set by the first alarm about the host's log: we stop following it
    hand: tuple[int, ...] = ()
    _hand_for: tuple[int, int] | None = None
    #: Attempts we committed to whose secrets our records lost (`LostSecrets`): we sit their
    #: steps out instead of taking the gap for the host's doing.
    lost: set[tuple[int, int]] = field(default_factory=set)
    #: While catching up with a log after a reconnect: verify only, owe nothing yet
    #: (`resume()` then does what the current phase needs).
    quiet: bool = False
    #: Player message entries applied with the player's signature and the chain checked, the
    #: host's signature not yet (SPEC.md 6.3): checked by `check_host_signatures()` before
    #: this peer signs anything, before the next host event, and at the adapter's next turn.
    unchecked: list[Entry] = field(default_factory=list)

    # ---- facts ---------------------------------------------------------------------------

    @property
    def state(self) -> TableState | None:
        return self.replayer.state

    @property
    def head(self) -> bytes:
        return self.replayer.chain.head

    @property
    def holds_seat(self) -> bool:
        """Whether our key signs for our seat now (not while a stand-in holds it)."""
        state = self.state
        return (
            self.seat is not None
            and state is not None
            and state.keys.get(self.seat) == self.key.public
        )

    def view(self) -> SeatView | None:
        state = self.state
        if state is None or state.game is None:
            return None
        return seat_view(state.game, self.seat, self.hand if self.holds_seat else ())

    # ---- joining -------------------------------------------------------------------------

    def make_join(
        self, challenge: dict[str, Any], *, name: str, cpu: bool = False, host_run: bool = False
    ) -> Message:
        """The join answering a host's challenge (the seat it offered)."""
        seat = challenge["seat"]
        return sign_message(
            self.key,
            kind=MessageType.JOIN,
            table=bytes.fromhex(challenge["table"]),
            seat=seat,
            counter=0,
            head=self.head,
            key=self.key.public.hex(),
            name=name,
            cpu=cpu,
            host_run=host_run,
            host=challenge["host"],
            nonce=challenge["nonce"],
        )

    # ---- entries -------------------------------------------------------------------------

    def receive_line(self, line: bytes) -> list[PeerOutput]:
        """Verify and apply the next transcript line; an Alarm instead if it is bad."""
        if self.halted:
            return []
        try:
            entry = parse_entry(line)
        except RemoteError as err:
            return self._alarm(err.reason, f"an unreadable entry: {err.detail}", None)
        return self.receive_entry(entry)

    def receive_entry(
        self, entry: Entry, *, defer_host_signature: bool = False
    ) -> list[PeerOutput]:
        """Verify and apply the next entry (already parsed from its canonical line).

        With `defer_host_signature`, a player message entry is applied once its place in the
        chain and the player's signature check, and its host signature joins `unchecked`
        (SPEC.md 6.3): every other entry, and anything this peer would sign in answer, waits
        until every unchecked signature has been checked."""
        if self.halted:
            return []
        defer = (
            defer_host_signature
            and self.replayer.started
            and entry.msg is not None
            and entry.seq == len(self.replayer.chain)
        )
        if not defer:
            refused = self.check_host_signatures()
            if refused:
                return refused
        if self.replayer.started and entry.seq < len(self.replayer.chain):
            if self.replayer.chain.hashes[entry.seq] == entry.hash:
                return []  # a resend of an entry we hold: harmless
            state = self.state
            if state is not None and not host_signature_ok(entry, state.host_key, state.table_id):
                return self._alarm(
                    Reason.BAD_SIGNATURE,
                    f"a different entry {entry.seq}, not signed by the host",
                    entry.seq,
                )
            return self._alarm(
                Reason.EQUIVOCATION,
                f"the host signed two different entries {entry.seq}: proof it showed two histories",
                entry.seq,
                entry=entry.kind,
                proof=(entry.line.decode(),),
                held=entry.seq,
            )
        before = self.state
        try:
            notes = self.replayer.feed(entry, host_signature=not defer)
        except RemoteError as err:
            # An entry we applied unchecked comes first: if the host never signed it, that
            # is the fault (this entry's link to it proves nothing), not what follows it.
            refused = self.check_host_signatures()
            if refused:
                return refused
            seats = err.seats if isinstance(err, TableError) else ()
            if isinstance(err, ForeignHistory):
                return self._fork(entry, err.message)
            if err.reason == Reason.CHAIN_BROKEN and self._signed_elsewhere(entry):
                return self._alarm(
                    Reason.FORK,
                    f"the host signed entry {entry.seq} on top of an entry {entry.seq - 1} we "
                    "do not hold: proof it extends another history than ours (its entry and "
                    "ours, both host-signed)",
                    entry.seq,
                    entry=entry.kind,
                    proof=(entry.line.decode(),),
                    held=entry.seq - 1,
                )
            return self._alarm(err.reason, err.detail, entry.seq, seats=seats, entry=entry.kind)
        outputs: list[PeerOutput] = [Applied(entry, notes)]
        if defer:
            self.unchecked.append(entry)
        self._clear_pending(entry)
        answer = self._react(before, entry)
        if self.unchecked and any(isinstance(o, (Send, NeedSecrets)) for o in answer):
            # An answer to this entry (our opening after a challenge, say) is signed only
            # over a history whose every host signature has been checked.
            refused = self.check_host_signatures()
            if refused:
                for sent in answer:
                    if isinstance(sent, Send):
                        self.pending.pop(sent.message.digest(), None)
                return [*outputs, *refused]
        outputs += answer
        self._prune_pending()
        return outputs

    def check_host_signatures(self) -> list[PeerOutput]:
        """Check the host signatures left for later (SPEC.md 6.3), oldest first: an alarm,
        and this peer stops following the host, at the first that does not verify."""
        state = self.state
        while self.unchecked and state is not None:
            entry = self.unchecked.pop(0)
            if not host_signature_ok(entry, state.host_key, state.table_id):
                self.unchecked.clear()
                return self._alarm(
                    Reason.BAD_SIGNATURE,
                    f"entry {entry.seq}: the host signature does not verify (checked after the "
                    "player's; the entry was applied and is kept, as received)",
                    entry.seq,
                    entry=entry.kind,
                )
        self.unchecked.clear()
        return []

    def _fork(self, entry: Entry, signed: Message) -> list[PeerOutput]:
        """The host signed an entry carrying a player's message (`signed`, its signature
        checked) that names a head our chain does not hold: the player was shown a history we
        were not. The entry (host-signed) with the message in it (player-signed) is the
        proof; nobody else could have made the pair. The table machine checks this before the
        phase and the rules (SPEC.md 7), so a forked message that also breaks our turn order
        or bid order is this alarm, with its proof."""
        state = self.state
        assert state is not None
        if not host_signature_ok(entry, state.host_key, state.table_id):
            # Offered with its host signature left for later (SPEC.md 6.3): unsigned by the
            # host, the pair proves nothing against it.
            return self._alarm(
                Reason.BAD_SIGNATURE,
                f"entry {entry.seq}: the host signature does not verify",
                entry.seq,
                entry=entry.kind,
            )
        return self._alarm(
            Reason.FORK,
            f"the host posted seat {signed.seat}'s {signed.type} (message {signed.counter}) "
            f"made on a history we were never shown (head {signed.head.hex()[:16]}...): proof "
            f"the host shows players different logs (entry {entry.seq} and the message inside "
            "it, both signed)",
            entry.seq,
            seats=(signed.seat,),
            entry=entry.kind,
            proof=(entry.line.decode(), encode(signed.to_json()).decode()),
        )

    def _signed_elsewhere(self, entry: Entry) -> bool:
        """A next entry, host-signed, whose `prev` is not our last entry: the host signed
        another entry before it than the one it showed us."""
        state = self.state
        return (
            state is not None
            and entry.seq == len(self.replayer.chain)
            and entry.prev != self.replayer.chain.head
            and host_signature_ok(entry, state.host_key, state.table_id)
        )

    def rolled_back(self, served: int) -> list[PeerOutput]:
        """The host offers a log of `served` entries, fewer than we verified (and saved): an
        alarm, and we stop following it. Our saved transcript is the proof (its entries past
        `served` are host-signed)."""
        held = len(self.replayer.chain)
        return self._alarm(
            Reason.ROLLBACK,
            f"the host now serves {served} entries, we verified and saved {held}: it lost or "
            f"took back entries {served} to {held - 1}, which it signed (our saved transcript "
            "is the proof); what it signs next at those numbers would be a second history",
            served,
        )

    def _prune_pending(self) -> None:
        """Forget messages the log has made moot (an aborted attempt's commitment, a bid from a
        turn that has passed): the host could never accept them any more."""
        state = self.state
        if state is None or state.game is None or not self.pending:
            return
        for ref, pending in list(self.pending.items()):
            body = pending.message.body
            if body["type"] == MessageType.JOIN:
                continue
            head_seq = self.replayer.chain.seq_of(pending.message.head)
            wanted = MESSAGE_PHASE.get(body["type"])
            stale = (
                state.phase != wanted
                or body.get("round") != state.game.round
                or (
                    state.attempt is not None
                    and body.get("attempt", state.attempt.attempt) != state.attempt.attempt
                )
                or head_seq is None
                or head_seq < state.step_seq
            )
            if stale:
                del self.pending[ref]

    def _alarm(
        self,
        reason: Reason,
        detail: str,
        seq: int | None,
        *,
        seats: tuple[int, ...] = (),
        entry: str | None = None,
        dropped: str | None = None,
        proof: tuple[str, ...] = (),
        held: int | None = None,
    ) -> list[PeerOutput]:
        alarm = Alarm(
            reason, detail, seq, seats=seats, entry=entry, dropped=dropped, proof=proof, held=held
        )
        self.alarms.append(alarm)
        if reason != Reason.MESSAGE_DROPPED:
            self.halted = True
        return [alarm]

    def _clear_pending(self, entry: Entry) -> None:
        if not self.pending:
            return
        for msg in messages_in(entry):
            self.pending.pop(msg.digest(), None)

    def _react(self, before: TableState | None, entry: Entry) -> list[PeerOutput]:
        state = self.state
        assert state is not None
        event = entry.host_event
        kind = None if event is None else event.type
        out: list[PeerOutput] = []
        if event is not None and event.type in DROPPED_BY:
            out += self._check_dropped(event, entry.seq)
        if self.seat is None or not self.holds_seat or self.quiet:
            return out
        attempt = state.attempt
        if kind == "round" and attempt is not None and self.seat in attempt.seats:
            known = self.secrets.get((attempt.round, attempt.attempt))
            out += (
                self.provide_secrets(attempt.round, attempt.attempt, known)
                if known
                else [NeedSecrets(attempt.round, attempt.attempt)]
            )
        elif kind == "commit_set" and attempt is not None and self.seat in attempt.seats:
            out += self._after_commit_set(state, entry.seq)
        elif kind == "beacon" and attempt is not None and self.seat in attempt.seats:
            if (attempt.round, attempt.attempt) in self.secrets:
                self._derive_hand(state)
        elif state.phase == TablePhase.SHOWDOWN and (
            before is None or before.phase != TablePhase.SHOWDOWN
        ):
            out += self._open(state)
        elif kind in ("result", "forfeit"):
            out += self._ack(state, entry)
        return out

    def _check_dropped(self, event: HostEvent, seq: int) -> list[PeerOutput]:
        """The host acted for our seat although it may hold a message of ours for that step."""
        if self.seat not in event.acted_for:
            return []
        wanted = DROPPED_BY[event.type]
        dropped = [p for p in self.pending.values() if p.message.type in wanted]
        if not dropped:
            return []
        first = dropped[0]
        return self._alarm(
            Reason.MESSAGE_DROPPED,
            f"your {first.message.type} (message {first.message.counter}) was sent and never "
            f"posted; {ACTED[event.type]} instead",
            seq,
            seats=(self.seat,) if self.seat is not None else (),
            entry=f"event:{event.type}",
            dropped=first.message.type,
        )

    # ---- the automatic steps of a round --------------------------------------------------

    def _context(self, state: TableState) -> SeatContext:
        attempt = state.attempt
        assert attempt is not None and self.seat is not None
        return attempt.context(state.table_id, self.seat, self.key.public)

    def provide_secrets(self, round_: int, attempt_no: int, secrets: Secrets) -> list[PeerOutput]:
        """Secrets for an attempt, already stored durably by the adapter: commit to them."""
        state = self.state
        if state is None or state.attempt is None or self.seat is None:
            return []
        attempt = state.attempt
        self.secrets[(round_, attempt_no)] = secrets
        if (attempt.round, attempt.attempt) != (round_, attempt_no) or (
            state.phase != TablePhase.COMMIT
        ):
            return []
        ctx = self._context(state)
        return [
            self._send(
                MessageType.COMMIT,
                round=round_,
                attempt=attempt_no,
                seed_commit=seed_commitment(ctx, salt=secrets.salt, seed=secrets.seed),
                contrib_commit=contrib_commitment(ctx, contribution=secrets.contribution),
            )
        ]

    def _after_commit_set(self, state: TableState, seq: int) -> list[PeerOutput]:
        attempt = state.attempt
        assert attempt is not None and attempt.commit_set is not None and self.seat is not None
        secrets = self.secrets.get((attempt.round, attempt.attempt))
        if secrets is None and (attempt.round, attempt.attempt) in self.lost:
            return []  # said when it was found (`LostSecrets`): nothing of ours to contribute
        if secrets is None:
            return self._alarm(
                Reason.COMMIT_SET_MISMATCH,
                "a commitment set for an attempt we never committed to",
                seq,
                seats=(self.seat,),
                entry="event:commit_set",
            )
        ctx = self._context(state)
        mine = (
            seed_commitment(ctx, salt=secrets.salt, seed=secrets.seed),
            contrib_commitment(ctx, contribution=secrets.contribution),
        )
        if attempt.commits.get(self.seat) != mine:
            return self._alarm(
                Reason.COMMIT_SET_MISMATCH,
                "the commitment set does not hold our commitment unchanged",
                seq,
                seats=(self.seat,),
                entry="event:commit_set",
            )
        return [
            self._send(
                MessageType.CONTRIBUTE,
                round=attempt.round,
                attempt=attempt.attempt,
                commit_set=attempt.commit_set,
                contribution=secrets.contribution,
            )
        ]

    def _derive_hand(self, state: TableState) -> None:
        attempt = state.attempt
        assert attempt is not None and attempt.beacon is not None and self.seat is not None
        secrets = self.secrets[(attempt.round, attempt.attempt)]
        self.hand = derive_dice(
            secrets.seed,
            table_id=state.table_id,
            round_=attempt.round,
            attempt=attempt.attempt,
            seat=self.seat,
            beacon_r=attempt.beacon,
            count=attempt.dice[self.seat],
        )
        self._hand_for = (attempt.round, attempt.attempt)

    def _open(self, state: TableState) -> list[PeerOutput]:
        attempt = state.attempt
        if attempt is None or self.seat not in attempt.seats or self.seat in attempt.openings:
            return []
        secrets = self.secrets.get((attempt.round, attempt.attempt))
        if secrets is None:
            return []
        return [
            self._send(
                MessageType.OPEN,
                round=attempt.round,
                attempt=attempt.attempt,
                salt=secrets.salt,
                seed=secrets.seed,
            )
        ]

    def _ack(self, state: TableState, entry: Entry) -> list[PeerOutput]:
        game = state.game
        assert game is not None
        self.hand = ()
        return [self._send(MessageType.ACK, round=game.round, result=entry.hash)]

    # ---- player actions ------------------------------------------------------------------

    def act(self, action: Action, *, now: float | None = None) -> Send:
        """Sign a bid, call, undo or start-next-round for our seat (checked by the host)."""
        state = self.state
        assert state is not None and state.game is not None and self.seat is not None
        round_ = state.game.round
        if isinstance(action, PlaceBid):
            return self._send(
                MessageType.BID,
                now=now,
                round=round_,
                quantity=action.bid.quantity,
                face=action.bid.face,
            )
        kinds = {
            Challenge: MessageType.CHALLENGE,
            ExactCall: MessageType.EXACT,
            Undo: MessageType.UNDO,
            StartNextRound: MessageType.NEXT_ROUND,
        }
        return self._send(kinds[type(action)], now=now, round=round_)

    def _send(self, kind: MessageType, *, now: float | None = None, **fields: Any) -> Send:
        assert self.seat is not None and self.state is not None
        msg = sign_message(
            self.key,
            kind=kind,
            table=self.state.table_id,
            seat=self.seat,
            counter=self.counter,
            head=self.head,
            **fields,
        )
        self.counter += 1
        self.pending[msg.digest()] = _Pending(msg, now)
        return Send(msg)

    def pending_messages(self) -> list[Message]:
        """What to resend after a reconnect, oldest first."""
        return [p.message for p in sorted(self.pending.values(), key=lambda p: p.message.counter)]

    def drop_pending(self, ref: bytes) -> None:
        """The host refused a message for good: stop resending it."""
        self.pending.pop(ref, None)

    def restore_sent(self, message: Message, *, sent_at: float | None = None) -> None:
        """After a restart: a message we had sent (pending until the log shows it)."""
        self.counter = max(self.counter, message.counter + 1)
        self.pending[message.digest()] = _Pending(message, sent_at)

    # ---- restart -------------------------------------------------------------------------

    def restore(self, lines: list[bytes]) -> list[Alarm]:
        """Re-verify a stored transcript after a restart, without re-sending anything."""
        alarms: list[Alarm] = []
        for line in lines:
            try:
                entry = parse_entry(line)
                self.replayer.feed(entry)
            except RemoteError as err:
                alarms += [
                    a
                    for a in self._alarm(
                        err.reason,
                        f"stored transcript: {err.detail}",
                        None,
                        seats=err.seats if isinstance(err, TableError) else (),
                    )
                    if isinstance(a, Alarm)
                ]
                break
            self._clear_pending(entry)
        state = self.state
        if state is not None:
            # Never sign with a counter the log has already seen from us.
            self.counter = max(self.counter, state.counters.get(self.key.public, -1) + 1)
        self._prune_pending()
        return alarms

    def _our_attempt(self) -> tuple[TableState, Attempt] | None:
        """The table and its attempt in play, when our key signs for a seat in it."""
        state = self.state
        if state is None or state.attempt is None or not self.holds_seat:
            return None
        return (state, state.attempt) if self.seat in state.attempt.seats else None

    def check_lost_secrets(self) -> list[PeerOutput]:
        """For a restarted seat, before it resends what it had pending: an attempt we
        committed to whose secrets our records lost is marked lost (`LostSecrets`, said
        once), and our messages of that attempt still pending are dropped. Resent, a
        commitment nobody can open would be posted and the round voided, and a contribution
        would carry the round on to a showdown we cannot open (a forfeit); held back, the
        table aborts the attempt or voids the round, which costs the seat less."""
        in_play = self._our_attempt()
        if in_play is None:
            return []
        state, attempt = in_play
        key = (attempt.round, attempt.attempt)
        if key in self.secrets or key in self.lost:
            return []
        ours = {
            digest: p
            for digest, p in self.pending.items()
            if p.message.type in (MessageType.COMMIT, MessageType.CONTRIBUTE, MessageType.OPEN)
            and (p.message.body.get("round"), p.message.body.get("attempt")) == key
        }
        committed = state.phase in (
            TablePhase.CONTRIBUTE,
            TablePhase.BIDDING,
            TablePhase.SHOWDOWN,
        ) or (state.phase == TablePhase.COMMIT and bool(ours))
        if not committed:
            return []  # nothing of ours binds this attempt yet: new secrets will do
        self.lost.add(key)
        for digest in ours:
            del self.pending[digest]
        return [LostSecrets(*key)]

    def resume(self) -> list[PeerOutput]:
        """What a restarted seat owes the current phase (pending messages are resent
        separately, after `check_lost_secrets`)."""
        in_play = self._our_attempt()
        if in_play is None:
            return []
        state, attempt = in_play
        pending = {p.message.type for p in self.pending.values()}
        secrets = self.secrets.get((attempt.round, attempt.attempt))
        if state.phase == TablePhase.COMMIT and MessageType.COMMIT not in pending:
            if (attempt.round, attempt.attempt) in self.lost:
                return []  # our commitment may still reach the set: none other may
            return (
                self.provide_secrets(attempt.round, attempt.attempt, secrets)
                if secrets
                else [NeedSecrets(attempt.round, attempt.attempt)]
            )
        if secrets is None and state.phase != TablePhase.RESULT:
            # Nothing we can send for this attempt (`check_lost_secrets` said why); the
            # result's acknowledgement below needs no secrets.
            return []
        if state.phase == TablePhase.CONTRIBUTE and MessageType.CONTRIBUTE not in pending:
            return self._after_commit_set(state, len(self.replayer.chain) - 1)
        if state.phase in (TablePhase.BIDDING, TablePhase.SHOWDOWN) and secrets is not None:
            self._derive_hand(state)
        if state.phase == TablePhase.SHOWDOWN and MessageType.OPEN not in pending:
            return self._open(state)
        if (
            state.phase == TablePhase.RESULT
            and self.seat not in state.acks
            and MessageType.ACK not in pending
        ):
            assert state.result_seq is not None
            game = state.game
            assert game is not None
            return [
                self._send(
                    MessageType.ACK,
                    round=game.round,
                    result=self.replayer.chain.hashes[state.result_seq],
                )
            ]
        return []
