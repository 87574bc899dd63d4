"""The client side of one connection to a host, sans-I/O (in the manner of h11).

A `ClientConnection` is one identity at one table. It owns every decision a client makes:
whether the host's challenge is the table it meant (table id, host key, the advertised key
prefix), whether to authenticate a seat it holds, join, or watch, the password exchange
(SPAKE2: the joiner's answer, and the host's proof in the welcome), another name after
NAME_TAKEN, names kept for CPU players, catching up with the log (holding back entries that
overtook the answer to a sync), resuming what a restarted seat owes, resending after
RATE_LIMITED, a spectator's keepalive, which refusals are fatal, giving up a seat the host
no longer holds, when our seat may move (a bot plays only then), after which entries the
records are made durable, the end-of-game check (asked of the adapter, which runs it off its
loop), and whether a refusal at an address found by discovery is passed over.

Inputs are method calls: a decoded frame from the host, the seat's saved records, a timer
that fired, fresh secrets or a stretched password, a write that failed, our own action, the
connection lost. Each returns the intents (core/client_intents.py) the adapter must execute
in order: frames to send, records to write before what depends on them, secrets or a
password to derive, timers. Time is an input (`now`, wall-clock seconds); nothing here reads
a clock, draws randomness or touches a file.

Every frame handler validates what it relies on: a frame that does not fit the connection's
state is recorded in `errors` and changes nothing. An exception escaping from here is a bug.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .advert import SPECTATE_QUERY, key_prefix
from .auth import retry_after, sign_auth
from .client_check import FinalCheck, check_client, judge
from .client_intents import (
    AppendEntry,
    CancelTimer,
    CheckGame,
    DrawSecrets,
    Fatal,
    ForgetSeat,
    Intent,
    OpenStore,
    Progressed,
    RaiseAlarm,
    Reconnect,
    RecordDelivery,
    RecordRefused,
    RecordSent,
    SavedSeat,
    SaveSeat,
    SaveSecrets,
    SendFrame,
    SendMessage,
    ShowStatus,
    StartTimer,
    Stopped,
    StretchPassword,
    Timer,
    ends_a_round,
)
from .client_restore import restore_seat
from .closing import Closing
from .codec import encode
from .delivery import ACTED, Delivery, Undelivered
from .errors import Reason, RemoteError, UserError
from .fairness import comparison_code
from .game import Action
from .messages import Message
from .names import free_name, reserved_for_cpu
from .pake import ENTROPY_BYTES, Binding, JoinerAnswer, joiner_answer
from .password_retry import PasswordRetry
from .peer import Alarm, Applied, LostSecrets, NeedSecrets, Peer, PeerOutput, Secrets, Send
from .signing import SigningKey
from .table import TablePhase
from .table_state import genesis_state
from .transcript import (
    ZERO_HASH,
    Entry,
    check_link,
    host_signature_ok,
    messages_in,
    parse_entry,
)
from .transitions import CHOSEN_MESSAGES, DROPPED_BY, GOES_ON_WITHOUT
from .verify import Report
from .view import SeatView

#: Seconds between two `sync`s of a spectator that is up to date: the host closes a spectator
#: that sends none for two minutes (SPEC.md 10.3), so a quiet table does not lose its watchers.
SPECTATOR_KEEPALIVE = 30.0

#: Seconds to wait after a RATE_LIMITED refusal before resending what is unconfirmed.
RESEND_AFTER = 1.0

#: Entries held back while a gap before them is filled (more is a host flooding us).
MAX_EARLY = 4096

# Bounded waits on every state of a connection (SPEC.md 10.1). A state that outlasts its wait
# is a transport fault: the connection is dropped and the table looked for again, so nobody
# that accepts a socket and then stalls can hold a client.
#: Seconds for the TCP connection and the TLS handshake together (the adapter's to enforce).
CONNECT_WAIT = 5.0
#: Seconds from the connection's opening (TLS done) to the host's challenge.
CHALLENGE_WAIT = 10.0
#: Seconds from the challenge to the welcome: reading the log as of the challenge, the
#: password exchange and the host's answer (a host closes a handshake after 5 s unanswered).
WELCOME_WAIT = 30.0
#: Seconds after the welcome without a verified entry while catching up with the log.
CATCH_UP_WAIT = 30.0
#: Seconds between the adapter's pings; a peer that answers none within half of it is gone
#: (an idle table sends nothing for minutes, so a silent socket is found by its pings).
HEARTBEAT = 15.0


#: Refusals after which retrying cannot help.
FATAL = frozenset(
    {
        Reason.BAD_PASSWORD,
        Reason.BAD_WORK,
        Reason.PASSWORD_THROTTLED,  # once the bounded retries (password_retry.py) are spent
        Reason.TABLE_FULL,
        Reason.LOBBY_CHURN,  # the table spent its lobby budget (SPEC.md 3.2): a new table is needed
        Reason.BAD_CHALLENGE,
        Reason.NOT_SEATED,
        Reason.BAD_NAME,
        Reason.NAME_RESERVED,
    }
)


@dataclass(slots=True)
class _PendingJoin:
    """A join that waits for the log as of its challenge (and for the password's answer)."""

    challenge: Mapping[str, Any]
    pake: tuple[bytes, bytes] | None = None  #: (our SPAKE2 message, our confirmation)
    work: int | None = None  #: the proof of work of our password attempt
    needs_password: bool = False  #: the password exchange is still being computed


@dataclass(slots=True)
class _Link:
    """What one connection to the host knows. A new connection starts from these defaults
    (`connection_lost`), so what is per connection is said here, once."""

    connected: bool = False  #: welcomed by the host
    reconnect_requested: bool = False
    waiting_store: Mapping[str, Any] | None = None  #: a challenge that waits for the records
    catch_up_to: int = 0  #: the log's length as of the challenge
    answered: bool = False  #: we answered the challenge (auth, join, spectate): a welcome is due
    authing: bool = False
    seatless: bool = False  #: no seat offered: reading the log, then watching or asking again
    resumed: bool = False  #: caught up and owing nothing from before
    pending_join: _PendingJoin | None = None
    join_sent: _PendingJoin | None = None  #: the join we sent, signed again after NAME_TAKEN
    host_proof: bytes | None = None  #: what the welcome must carry after a password join
    early: dict[int, Entry] = field(default_factory=dict)  #: entries ahead of a gap
    #: A second, different entry for a seq held in `early`: fed after the first, so that the
    #: two make the equivocation alarm's proof instead of the second silently replacing it.
    early_rivals: dict[int, Entry] = field(default_factory=dict)
    resend_armed: bool = False
    #: Whether the peer proved it holds the host key (its TLS certificate, checked by
    #: `connection_opened`); None: the adapter said nothing (an in-memory link that carries
    #: only the host's own frames). Until it is True or the host welcomed us, nothing the
    #: peer sends can stop this client: whatever is wrong is a transport fault.
    pinned: bool | None = None
    pinned_key: bytes | None = None  #: the key the transport authenticated
    faulted: bool = False  #: this connection ended in a transport fault (see `transport_fault`)
    wrong_host: bool = False  #: ... because its peer holds another key (see `wrong_host`)
    deadline: float | None = None  #: when the current state's wait runs out (`deadline`)
    challenged: bool = False  #: a challenge came on this connection (the welcome wait runs)


#: Refusals that say a message came after its step (SPEC.md 4.1, 7).
_TOO_LATE = frozenset({Reason.WRONG_PHASE, Reason.WRONG_ROUND, Reason.REPLAY})
#: Sent messages whose type a refusal is read by: a refusal answers one of the last few.
_SENT_KINDS_KEPT = 64
#: Errors a session keeps to show (the most recent): a host can send error or junk frames as
#: fast as it likes, and each one kept would cost memory and a line on every screen redraw.
ERRORS_KEPT = 200


class RecentErrors(list[tuple[Reason, str]]):
    """The session's errors, the most recent ERRORS_KEPT of them; `total` counts every one."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def append(self, error: tuple[Reason, str]) -> None:
        self.total += 1
        super().append(error)
        if len(self) > ERRORS_KEPT:
            del self[0]

    def extend(self, errors: Iterable[tuple[Reason, str]]) -> None:
        for error in errors:
            self.append(error)


class ClientConnection:
    """One identity's connection to one table. See the module docstring."""

    def __init__(
        self,
        *,
        key: SigningKey,
        name: str,
        mode: str = "play",  # "play" or "spectate"
        password: str | None = None,
        password_verifier: bytes | None = None,
        cpu: bool = False,
        host_run: bool = False,
        expect_table: bytes | None = None,
        expect_host: bytes | None = None,
        expect_host_prefix: str | None = None,
        seat_hint: int | None = None,
        in_order: bool = False,
        defer_host_signatures: bool = True,
    ) -> None:
        self.key = key
        self.name = name  #: may become "Name 2" when the name is taken
        self.mode = mode
        self.password = password
        #: The table's stretched password, once known (host-run seats get it from their host,
        #: which keeps no plain password); kept for reconnects.
        self.password_verifier = password_verifier
        self.cpu = cpu
        self.host_run = host_run
        self.expect_table = expect_table
        self.expect_host = expect_host
        self.expect_host_prefix = expect_host_prefix  #: from the advertisement (TXT `hk`)
        self.seat_hint = seat_hint
        #: The link delivers every entry in order (an in-memory one): an entry ahead of a gap
        #: is the host skipping one, not a broadcast that overtook the answer to a sync (a
        #: host feeds a long answer in parts while it broadcasts new entries).
        self.in_order = in_order
        #: Apply a player's entry once the player's signature and the chain check, and check
        #: the host's signature on it at the adapter's next turn, always before we sign or
        #: send anything and before the next host event (SPEC.md 6.3): one Ed25519 check on
        #: a bid's critical path instead of two.
        self.defer_host_signatures = defer_host_signatures
        self._host_check_armed = False
        self.peer: Peer | None = None
        self.errors = RecentErrors()
        self.fatal: tuple[Reason, str] | None = None
        #: Why the host last closed our connection (the `closing` frame), until it welcomes us
        #: again: a paused table is waited for, an ended one is not.
        self.host_closing: Closing | None = None
        self.stopped = False  #: a local failure: nothing more is read, sent or stored
        #: Whether this client keeps records (a seat folder); without, no writes are asked for.
        self.keeps_records = False
        #: Every applied transcript line and sent-log record, for the end-of-game self-check.
        self.lines: list[bytes] = []
        self.sent_log: list[Mapping[str, Any]] = []
        self._seat_record: tuple[int, str] | None = None  #: (seat, host hex) as saved
        self._attempt = 0  #: counts challenges, so a late password answer is recognised
        self._names_refused: set[str] = set()
        self._link = _Link()  #: what this connection knows (a new one starts afresh)
        self._check_asked = False  #: CheckGame was asked of the adapter
        #: The log's length when our seat was declared absent (None: it is not absent).
        self._absent_from: int | None = None
        #: Digest -> type of the messages we sent lately, to read the host's refusals by.
        self._sent_kinds: dict[bytes, str] = {}
        self.password_retry = PasswordRetry()  #: waits out a busy password table
        #: Seconds the adapter waits before the reconnect it was asked for (then 0 again).
        self.reconnect_delay = 0.0
        self._final_check: FinalCheck | None = None
        #: Our messages on their way to the log: which connection each left on, what the
        #: host answered there (core/delivery.py): whether the host read one it never posted.
        self.delivery = Delivery()
        #: Messages of ours the host acted without and never showed it read, as the player
        #: is told of them: information about the link, not alarms (SPEC.md 7.1).
        self.notices: list[Undelivered] = []
        #: Problems with this device's own records that the game goes on through (lost
        #: secrets), in words: nobody at the table is accused.
        self.local_problems: list[str] = []
        #: Our unposted messages of the step a host act in our place is about (see `_feed`).
        self._act_candidates: list[Message] = []
        self._now = 0.0  #: the latest `now` an input brought (for records made on a loss)

    # ---- facts ---------------------------------------------------------------------------

    @property
    def table_id(self) -> bytes | None:
        state = self.peer.state if self.peer is not None else None
        return state.table_id if state is not None else None

    @property
    def seat(self) -> int | None:
        return self.peer.seat if self.peer is not None else None

    @property
    def alarms(self) -> list[Alarm]:
        return self.peer.alarms if self.peer is not None else []

    @property
    def finished(self) -> bool:
        state = self.peer.state if self.peer is not None else None
        return state is not None and state.phase == TablePhase.OVER

    @property
    def connected(self) -> bool:
        """The host welcomed this connection."""
        return self._link.connected

    @property
    def reconnect_requested(self) -> bool:
        """This connection should be dropped and another opened (seats may be free soon)."""
        return self._link.reconnect_requested

    @property
    def transport_fault(self) -> bool:
        """This connection should be dropped as a failed attempt (a peer that is not the
        table's host, or a wait that ran out): the adapter counts it towards looking for the
        table again, and nothing about the table is concluded from it."""
        return self._link.faulted

    @property
    def wrong_host(self) -> bool:
        """This connection's peer proved it holds a key other than the table's host key:
        whatever address it is at serves someone else (a copied advertisement, say)."""
        return self._link.wrong_host

    @property
    def _trusted(self) -> bool:
        """Whether what the peer sends is the host's to answer for: it proved it holds the
        host key, or the host welcomed us (or the adapter vouches for the link)."""
        return self._link.pinned is not False or self._link.connected

    @property
    def resumed(self) -> bool:
        """Caught up with the log and owing nothing from before: our seat may act."""
        return self._link.resumed

    @property
    def may_move(self) -> bool:
        """Whether our seat may act now (a bot plays its seat only then): welcomed, caught up
        with the log, owing nothing from before, and not stopped by a local failure."""
        return not self.stopped and self._link.connected and self._link.resumed

    @property
    def url_query(self) -> str:
        """The query this client's connection carries: a watcher's says so (SPEC.md 10.1), and
        the host reserves no seat for it."""
        return SPECTATE_QUERY if self.mode == "spectate" else ""

    def sought_advert(self) -> tuple[str, str | None] | None:
        """What to look for when the table may have moved (its host back on another port or
        address): the table id (hex) and the start of its host key as the advertisement shows
        it (`hk`); None before the table is known."""
        if self.expect_table is None:
            return None
        host = self.expect_host
        prefix = key_prefix(host) if host is not None else None
        return self.expect_table.hex(), prefix

    def refused_at_advertised_address(self) -> bool:
        """The adapter followed an advertisement of our table to another address and stopped
        there: whether that says nothing about the table (whoever answered named another
        table or host key, as a copied advertisement would), so that address is passed over
        and the one we were given tried again. The refusal is then forgotten."""
        if self.fatal is None or self.fatal[0] != Reason.BAD_CHALLENGE:
            return False
        self.fatal = None
        return True

    def view(self) -> SeatView | None:
        return self.peer.view() if self.peer is not None else None

    @property
    def names(self) -> list[str]:
        """Display names by seat (roster after the start, joins before)."""
        state = self.peer.state if self.peer is not None else None
        if state is None:
            return []
        if state.roster:
            return [s.name for s in state.roster]
        return [
            state.joins[s].name if s in state.joins else "(free)" for s in range(state.rules.seats)
        ]

    @property
    def comparison_code(self) -> str | None:
        peer = self.peer
        state = peer.state if peer is not None else None
        if peer is None or state is None or state.start_seq is None:
            return None
        return comparison_code(peer.replayer.chain.hashes[state.start_seq])

    def self_check(self, *, complete: bool) -> FinalCheck | None:
        """The end-of-game check (core/client_check.py) of what we verified and sent, as
        partial when the game is not `complete`; None before we followed any table."""
        peer = self.peer
        if peer is None:
            return None
        return check_client(
            peer, self.lines, self.sent_log, seated=self._seated(), complete=complete
        )

    @property
    def final_check(self) -> FinalCheck | None:
        """The check once the game is over (None before): the adapter's answer to
        `CheckGame`, or, for a driver that runs none (the protocol simulation), computed here
        when first asked, once. An adapter on an event loop reads `final_check_ready`."""
        if not self.finished:
            return None
        if self._final_check is None:
            self._final_check = self.self_check(complete=True)
        return self._final_check

    @property
    def final_check_ready(self) -> FinalCheck | None:
        """The end-of-game check once the adapter answered `CheckGame` (None until then):
        reading it never runs the check."""
        return self._final_check

    def _seated(self) -> bool:
        return self.peer is not None and self.peer.seat is not None and self.mode != "spectate"

    def _maybe_check(self) -> list[Intent]:
        """Once the game is over, its check is asked of the adapter, once. A host-run seat is
        the host's own, whose check would tell the host about itself: none is asked."""
        if not self.finished or self._check_asked or self.host_run or self._final_check is not None:
            return []
        self._check_asked = True
        return [CheckGame(tuple(self.lines), tuple(self.sent_log), seated=self._seated())]

    def game_checked(self, asked: CheckGame, report: Report) -> list[Intent]:
        """The answer to CheckGame: `asked.check()`'s report."""
        if self.peer is not None and self._final_check is None:
            self._final_check = judge(self.peer, report, seated=asked.seated, complete=True)
        return []

    def pending_kinds(self) -> set[str]:
        if self.peer is None:
            return set()
        return {p.message.type for p in self.peer.pending.values()}

    # ---- inputs: the connection -----------------------------------------------------------

    def connection_opened(self, peer_key: bytes | None, now: float) -> list[Intent]:
        """A new connection is up; `peer_key` is the public key its transport authenticated
        (the TLS certificate's, SPEC.md 10.1), None when the transport authenticates nothing.
        It must be the host key we expect (from our records, the challenge we answered
        before, or the advertisement's prefix); otherwise this is a transport fault, before
        anything that matters is sent. With nothing expected yet (a first join by address)
        the key is pinned, and the challenge must name it."""
        self._link.pinned = False
        if peer_key is not None:
            wrong = self._not_our_hosts(peer_key)
            if wrong is not None:
                self._link.wrong_host = True
                return self._transport_fault(Reason.BAD_CHALLENGE, wrong)
            self._link.pinned, self._link.pinned_key = True, peer_key
        self._wait(now, CHALLENGE_WAIT)
        return []

    def _not_our_hosts(self, peer_key: bytes) -> str | None:
        """Why a peer holding `peer_key` is not the host we expect (None: it may be)."""
        if self.expect_host is not None:
            if peer_key != self.expect_host:
                return "the peer does not hold the table's host key (TLS certificate): not our host"
        elif self.expect_host_prefix and key_prefix(peer_key) != self.expect_host_prefix:
            return "the peer's key does not start as the advertisement says: not our host"
        return None

    def _transport_fault(self, reason: Reason, detail: str) -> list[Intent]:
        """Drop this connection as a failed attempt: nothing from this peer stops us."""
        self.errors.append((reason, detail))
        self._link.faulted = True
        self._link.reconnect_requested = True
        self._link.deadline = None
        return [Reconnect()]

    def _wait(self, now: float, seconds: float) -> None:
        """The connection's current state may last `seconds` from `now` (see `deadline`)."""
        self._link.deadline = now + seconds

    @property
    def deadline(self) -> float | None:
        """When the connection's current state (challenge, welcome, catch-up) must be over,
        in the clock the inputs' `now` is given in; None once caught up, or before
        `connection_opened`. The adapter calls `time_passed` at that time."""
        return self._link.deadline if self._link.pinned is not None else None

    def time_passed(self, now: float) -> list[Intent]:
        """The clock reached `now`: a state that outlasted its wait is a transport fault
        (`HANDSHAKE_TIMEOUT`): the connection is dropped and the table looked for again."""
        deadline = self.deadline
        if self.stopped or self._link.faulted or deadline is None or now < deadline:
            return []
        return self._transport_fault(
            Reason.HANDSHAKE_TIMEOUT, "the host did not answer in time: trying again"
        )

    # ---- inputs: frames --------------------------------------------------------------------

    def receive_frame(self, frame: Mapping[str, Any], now: float) -> list[Intent]:
        """A frame from the host, already decoded and shape-checked (net/frames.TO_CLIENT)."""
        if self.stopped or self._link.faulted:
            return []
        kind = frame["type"]
        if kind == "challenge":
            if not self._link.challenged:
                # From the first challenge only: a host sending its challenge again and again
                # must not hold us on a connection that never welcomes us (SPEC.md 10.1).
                self._link.challenged = True
                self._wait(now, WELCOME_WAIT)
            return self._on_challenge(frame)
        if kind == "welcome":
            return self._on_welcome(frame, now)
        if kind == "entry":
            return self.receive_entry_line(encode(frame["entry"]), now)
        if kind == "error":
            return self._on_error(frame, now)
        if kind == "status":
            return self._on_status(frame)
        if kind == "closing":
            self.host_closing = Closing(frame["reason"])
            if self.host_closing == Closing.IDLE:  # our own silence: a refusal of sorts
                self.errors.append((Reason.INTERNAL, f"the host closed: {frame['detail']}"))
            if self.host_closing == Closing.ENDED and not self.finished:
                # Closed for good (SPEC.md 10.3): nothing to resume, nothing to wait for. The
                # host posts game_over first, so either it did not, or it did while we were
                # away (an ended table serves no log): stop and say which we know.
                return self._fail(
                    Reason.MISSING_GAME_OVER,
                    "the host has closed the table for good; our copy of the log ends before "
                    "the end of the game",
                )
            return []
        if kind == "accepted":
            # The message shows up in the log in due course; meanwhile the answer shows the
            # host read it, and what we sent before it on this connection.
            if not self._trusted:
                return []
            return self._delivered(self.delivery.answered(frame["ref"], _ms(now)))
        self.errors.append((Reason.UNKNOWN_TYPE, f"a frame of unknown type {kind!r}"))
        return []

    def unreadable_frame(self, raw: str | bytes, reason: Reason, detail: str) -> list[Intent]:
        """A frame the adapter could not decode (net/frames.decode_frame's refusal)."""
        if self.stopped or self._link.faulted:
            return []
        if not self._trusted:
            return self._transport_fault(reason, f"an unreadable frame: {detail}")
        self.errors.append((reason, f"unreadable frame from the host: {detail}"))
        if isinstance(raw, str) and '"type":"challenge"' in raw:
            # Without a challenge we answer we can never sit down: stop, say why.
            return self._fail(
                reason, "the host's challenge is unreadable (another protocol version?)"
            )
        return []

    def _fail(self, reason: Reason, detail: str) -> list[Intent]:
        if not self._trusted:
            # Whoever said so has not proved it is the host: not a reason to stop.
            return self._transport_fault(reason, detail)
        self.fatal = (reason, detail)
        return [Fatal(reason, detail)]

    def _on_challenge(self, frame: Mapping[str, Any]) -> list[Intent]:
        table, host = bytes.fromhex(frame["table"]), bytes.fromhex(frame["host"])
        if self._link.pinned_key is not None and host != self._link.pinned_key:
            self._link.wrong_host = True
            return self._transport_fault(
                Reason.BAD_CHALLENGE,
                "the challenge names a host key the peer does not hold: not our host",
            )
        if self.expect_table is not None and table != self.expect_table:
            return self._fail(Reason.BAD_CHALLENGE, "this address now serves another table")
        if self.expect_host_prefix and not frame["host"].startswith(self.expect_host_prefix):
            return self._fail(
                Reason.BAD_CHALLENGE, "the host key differs from the one it advertised"
            )
        if self.expect_host is not None and host != self.expect_host:
            return self._fail(
                Reason.BAD_CHALLENGE, "the host key changed: this may not be the same table"
            )
        self.expect_table, self.expect_host = table, host
        self._attempt += 1
        if self.peer is None:
            self._link.waiting_store = frame
            return [OpenStore(table)]
        return self._answer_challenge(frame)

    def store_opened(self, saved: SavedSeat | None) -> list[Intent]:
        """The answer to OpenStore: the seat's records (None: this client keeps none)."""
        frame, self._link.waiting_store = self._link.waiting_store, None
        if self.peer is not None or frame is None:
            return []  # the records are read once per connection object
        self.keeps_records = saved is not None
        self.peer = self._restored(saved) if saved is not None else Peer(key=self.key)
        return [*self._answer_challenge(frame), *self._maybe_check()]

    def store_unavailable(self, detail: str) -> list[Intent]:
        """The records could not be opened (an unwritable folder, say). Unanswered, the
        challenge times out and every retry fails the same way: a local problem is said,
        not retried forever."""
        self._link.waiting_store = None
        self.errors.append((Reason.INTERNAL, f"could not handle the host's challenge: {detail}"))
        return self._fail(Reason.INTERNAL, f"could not answer the host's challenge: {detail}")

    def _restored(self, saved: SavedSeat) -> Peer:
        restored = restore_seat(self.key, saved)
        self.sent_log.extend(saved.sent)
        self.delivery.restore(saved.sent, [ref.hex() for ref in restored.peer.pending])
        self.lines.extend(restored.lines)
        self.errors.extend(restored.errors)
        self._seat_record = restored.seat_record
        if self._seat_record is None and self.seat_hint is None:
            # The seat record is gone or unreadable, but our own verified transcript shows
            # the seat our key holds: authenticate for it (and save the record again once
            # welcomed) rather than come back as a stranger.
            self.seat_hint = restored.transcript_seat
        return restored.peer

    def _answer_challenge(self, frame: Mapping[str, Any]) -> list[Intent]:
        peer = self.peer
        assert peer is not None  # store_opened made it
        if (
            peer.state is not None
            and not peer.halted
            and frame["entries"] < len(peer.replayer.chain)
        ):
            # The host lost or took back entries we verified and saved (SPEC.md 8): whatever
            # it signs next at those numbers is a second history; we stop, never sign on it.
            return self._handle(peer.rolled_back(frame["entries"]), 0.0)
        self._link.catch_up_to = frame["entries"]
        self._link.resumed = False
        self._link.answered = True
        peer.quiet = len(peer.replayer.chain) < self._link.catch_up_to
        record = self._seat_record
        seat = record[0] if record is not None and record[1] == frame["host"] else self.seat_hint
        if self.mode == "spectate":
            seat = None  # a watcher never holds a seat, even one this identity owns
        self._link.authing = seat is not None
        if seat is not None:
            table, host = bytes.fromhex(frame["table"]), bytes.fromhex(frame["host"])
            auth = sign_auth(self.key, table=table, host=host, nonce=bytes.fromhex(frame["nonce"]))
            peer.seat = seat
            return [SendFrame("auth", {"auth": auth})]
        if self.mode == "spectate":
            return [SendFrame("spectate", {})]
        if frame["seat"] is None:
            # No seat offered: the game has started, or every free seat is held by someone
            # still answering their challenge. Read the log first, then watch or try again.
            self._link.answered = False
            self._link.seatless = True
            return [self._sync(), *self._settle_seatless()]
        return self._join(frame)

    def _sync(self) -> SendFrame:
        assert self.peer is not None
        return SendFrame("sync", {"from": len(self.peer.replayer.chain)})

    def _settle_seatless(self) -> list[Intent]:
        peer = self.peer
        if not self._link.seatless or peer is None:
            return []
        if len(peer.replayer.chain) < max(1, self._link.catch_up_to):
            return []
        self._link.seatless = False
        state = peer.state
        if state is not None and state.phase == TablePhase.LOBBY:
            self._link.reconnect_requested = True  # seats may free up in a moment: ask again
            return [Reconnect()]
        self._link.answered = True
        return [SendFrame("spectate", {})]

    def _join(self, frame: Mapping[str, Any]) -> list[Intent]:
        out: list[Intent] = [self._sync()]
        self._link.host_proof = None
        join = _PendingJoin(frame)
        if frame["password"]:
            if self.password is None and self.password_verifier is None:
                return [*out, *self._fail(Reason.BAD_PASSWORD, "this table needs a password")]
            if frame["pake"] is None:
                return [
                    *out,
                    *self._fail(
                        Reason.BAD_CHALLENGE,
                        "the host asks for a password but opened no password exchange",
                    ),
                ]
            join.needs_password = True
            stretch = self.password if self.password_verifier is None else None
            out.append(
                StretchPassword(
                    self._attempt,
                    bytes.fromhex(frame["table"]),
                    stretch,
                    ENTROPY_BYTES,
                    known_verifier=self.password_verifier,
                    host_message=bytes.fromhex(frame["pake"]),
                    binding=self._binding(frame),
                )
            )
        self._link.pending_join = join
        return [*out, *self._try_join()]

    def password_ready(
        self,
        attempt: int,
        verifier: bytes | None,
        entropy: bytes,
        *,
        answer: JoinerAnswer | ValueError | None = None,
    ) -> list[Intent]:
        """The answer to StretchPassword: the verifier (None when it was known) and entropy,
        and the SPAKE2 answer when the adapter computed it (`StretchPassword.answer`)."""
        join = self._link.pending_join
        if self.stopped or attempt != self._attempt or join is None or not join.needs_password:
            return []  # the connection this was for is gone
        if verifier is not None:
            self.password_verifier = verifier  # once per table, kept for reconnects
        assert self.password_verifier is not None
        if answer is None:
            try:
                answer = joiner_answer(
                    self.password_verifier,
                    entropy,
                    bytes.fromhex(join.challenge["pake"]),
                    self._binding(join.challenge),
                )
            except ValueError as err:
                answer = err
        if isinstance(answer, ValueError):
            self._link.pending_join = None
            return self._fail(Reason.BAD_CHALLENGE, str(answer))
        join.pake, join.needs_password = (answer.message, answer.proof), False
        join.work = answer.work
        self._link.host_proof = answer.host_proof
        return self._try_join()

    def _binding(self, challenge: Mapping[str, Any]) -> Binding:
        """What the password exchange's confirmations bind: this challenge and our key."""
        return Binding(
            bytes.fromhex(challenge["table"]),
            bytes.fromhex(challenge["host"]),
            bytes.fromhex(challenge["nonce"]),
            self.key.public,
        )

    def _try_join(self) -> list[Intent]:
        """Send the join once we hold the whole log as of the challenge (its head must be ours)."""
        peer, join = self.peer, self._link.pending_join
        # A join names an entry we verified, so we need at least the genesis (whatever the
        # challenge claims about the log's length).
        if peer is None or join is None or join.needs_password:
            return []
        if len(peer.replayer.chain) < max(1, self._link.catch_up_to):
            return []
        self._link.pending_join = None
        if not self.cpu and reserved_for_cpu(self.name):
            return self._fail(
                Reason.NAME_RESERVED,
                f"names starting with CPU are kept for computer players: {self.name!r} "
                "needs another name (--name)",
            )
        # One seat per name (SPEC.md 10.5): "Hana" joins as "Hana 2" if a Hana is seated.
        state = peer.state
        taken = [s.name for s in state.joins.values()] if state is not None else []
        self.name = free_name(self.name, [*taken, *self._names_refused])
        self._link.join_sent = join
        challenge = dict(join.challenge)
        message = peer.make_join(challenge, name=self.name, cpu=self.cpu, host_run=self.host_run)
        peer.seat = challenge["seat"]
        pake, proof = join.pake if join.pake is not None else (None, None)
        return [
            SendFrame(
                "join",
                {
                    "msg": message.to_json(),
                    "pake": pake.hex() if pake else None,
                    "proof": proof.hex() if proof else None,
                    "work": join.work,
                },
            )
        ]

    def _on_welcome(self, frame: Mapping[str, Any], now: float) -> list[Intent]:
        peer = self.peer
        if peer is None or not self._link.answered:
            self.errors.append((Reason.BAD_CHALLENGE, "a welcome we did not ask for"))
            return []
        self._link.answered = False
        self._link.authing = False
        self._link.join_sent = None
        expected, self._link.host_proof = self._link.host_proof, None
        if expected is not None and (
            frame["proof"] is None
            or not hmac.compare_digest(bytes.fromhex(frame["proof"]), expected)
        ):
            # The host let us in without proving it knows the password: whoever answered is
            # not the table's host (or not only), so nothing we play here can be trusted.
            return self._fail(
                Reason.BAD_PASSWORD,
                "the host did not prove it knows the table password: it may be an impostor",
            )
        self._link.connected = True
        self.host_closing = None  # back: a paused table was resumed
        self.password_retry.welcomed()
        self._wait(now, CATCH_UP_WAIT)
        out: list[Intent] = [Progressed()]
        seat = frame["seat"]
        if seat is None:
            out.append(StartTimer(Timer.KEEPALIVE, SPECTATOR_KEEPALIVE))
        else:
            peer.seat = seat
            host = self.expect_host
            if host is not None and self._seat_record is None:
                # Remembered for the next challenge (a reconnect authenticates), and saved
                # when this client keeps records (a restart does too).
                self._seat_record = (seat, host.hex())
                if self.keeps_records:
                    out.append(SaveSeat(seat, host.hex()))
            self._note_absence(peer)
        # Entries posted while we were joining: ask again from what we hold (duplicates are ignored).
        out.append(self._sync())
        return [*out, *self._maybe_resume(now)]

    def receive_entry_line(self, line: bytes, now: float) -> list[Intent]:
        """One transcript entry from the host, as its canonical line."""
        peer = self.peer
        if self.stopped or self._link.faulted:
            return []
        if peer is None:
            if not self._trusted:
                return self._transport_fault(Reason.BAD_SEQ, "an entry before the challenge")
            self.errors.append((Reason.BAD_SEQ, "an entry before the host's challenge"))
            return []
        try:
            entry = parse_entry(line)
        except RemoteError as err:
            if not self._trusted:
                return self._transport_fault(err.reason, f"an unreadable entry: {err.detail}")
            recorded = self.errors.total
            out = self._handle(peer.receive_line(line), now)  # the peer raises the alarm and stops
            if self.errors.total == recorded:  # one frame, one error: the alarm's, if it made one
                self.errors.append((err.reason, f"unreadable entry from the host: {err.detail}"))
            return out
        if entry.seq > len(peer.replayer.chain) and not self.in_order:
            # A broadcast overtook the answer to our sync: hold it until the gap is filled.
            held = self._link.early.get(entry.seq)
            if held is not None and held.line != entry.line:
                if len(self._link.early_rivals) < MAX_EARLY:
                    self._link.early_rivals.setdefault(entry.seq, entry)
            elif len(self._link.early) < MAX_EARLY:
                self._link.early[entry.seq] = entry
            return []
        started = peer.state is not None
        length = len(peer.replayer.chain)
        refused = self._not_the_hosts(peer, entry)
        if refused is not None:
            return self._transport_fault(*refused)
        defer = self.defer_host_signatures and self._trusted
        out = self._handle(self._feed(peer, entry, defer), now)
        self._note_absence(peer)
        state = peer.state
        if not started and state is not None and state.table_id != self.expect_table:
            # The challenge named one table and the log is another's: not the table we chose.
            peer.halted = True
            return [
                *out,
                *self._fail(
                    Reason.BAD_CHALLENGE, "the log does not belong to the table the host named"
                ),
            ]
        out.append(Progressed())
        if self._link.connected and not self._link.resumed and len(peer.replayer.chain) > length:
            # Catching up, and making progress: only a new entry is progress (an entry we
            # hold already, sent again and again, must not hold the wait open for ever).
            self._wait(now, CATCH_UP_WAIT)
        while len(peer.replayer.chain) in self._link.early and not peer.halted:
            seq = len(peer.replayer.chain)
            for held in (self._link.early.pop(seq), self._link.early_rivals.pop(seq, None)):
                if held is None or peer.halted:
                    continue
                refused = self._not_the_hosts(peer, held)
                if refused is not None:
                    return [*out, *self._transport_fault(*refused)]
                out += self._handle(self._feed(peer, held, defer), now)
                self._note_absence(peer)
        return [
            *out,
            *self._try_join(),
            *self._settle_seatless(),
            *self._maybe_resume(now),
            *self._maybe_check(),
            *self._host_signatures_later(),
        ]

    def _host_signatures_later(self) -> list[Intent]:
        """Arm the 0 s timer that checks the host signatures left for later, once."""
        if self.peer is None or not self.peer.unchecked or self._host_check_armed:
            return []
        self._host_check_armed = True
        return [StartTimer(Timer.HOST_SIGNATURES, 0.0)]

    def _check_host_signatures(self) -> list[Intent]:
        """The host signatures left for later, checked now: an alarm at the first that fails."""
        if self.peer is None or not self.peer.unchecked:
            return []
        return self._handle(self.peer.check_host_signatures(), 0.0)  # alarms only: no sends

    def _not_the_hosts(self, peer: Peer, entry: Entry) -> tuple[Reason, str] | None:
        """Why `entry`, from a peer not yet trusted, cannot be the host's (None: it is the
        host's, or the link is trusted): a stranger's entry must not make us raise an alarm
        about the host, or stop. An entry that is the host's own, signed for this table, is
        the host's to answer for whoever relayed it: a different one at a seq we hold is
        still proof of equivocation."""
        if self._trusted:
            return None
        state = peer.state
        if state is None:
            if entry.event is None:
                return Reason.BAD_EVENT, "the log starts without a genesis"
            try:
                genesis = genesis_state(entry.host_event or entry.event)
                check_link(
                    entry,
                    seq=0,
                    prev=ZERO_HASH,
                    host_key=genesis.host_key,
                    table=genesis.table_id,
                )
            except RemoteError as err:
                return err.reason, f"a first entry that is not a genesis: {err.detail}"
            if self.expect_table is not None and genesis.table_id != self.expect_table:
                return Reason.BAD_CHALLENGE, "the log belongs to another table"
            if self.expect_host is not None and genesis.host_key != self.expect_host:
                return Reason.BAD_CHALLENGE, "the log's host key is not the table's"
            return None
        if entry.seq < len(peer.replayer.chain):
            if host_signature_ok(entry, state.host_key, state.table_id):
                return None
            return Reason.BAD_SIGNATURE, f"an entry {entry.seq} the host did not sign"
        try:
            check_link(
                entry,
                seq=len(peer.replayer.chain),
                prev=peer.replayer.chain.head,
                host_key=state.host_key,
                table=state.table_id,
            )
        except RemoteError as err:
            return err.reason, f"an entry the host did not sign: {err.detail}"
        return None

    def _maybe_resume(self, now: float) -> list[Intent]:
        """Once caught up with the log: owe the phase what we owe it, and resend what is pending."""
        peer = self.peer
        if peer is None or self._link.resumed or not self._link.connected:
            return []
        if len(peer.replayer.chain) < self._link.catch_up_to:
            return []
        self._link.resumed = True
        peer.quiet = False
        self._link.deadline = None  # every wait of the handshake is over
        lost = self._handle(peer.check_lost_secrets(), now)  # before what it would resend
        return [*lost, *self._resend_pending(), *self._handle(peer.resume(), now)]

    def _on_error(self, frame: Mapping[str, Any], now: float) -> list[Intent]:
        reason = Reason(frame["reason"])
        if reason in FATAL and not self._trusted:
            # A refusal that would stop us, from a peer that has not proved it is the host.
            return self._transport_fault(reason, f"the peer refused us: {frame['detail']}")
        if reason == Reason.NAME_TAKEN and self._link.join_sent is not None:
            # Another join took the name first: sign again, on the same challenge (the host
            # keeps the seat offered after such a refusal), with the next free name.
            self._names_refused.add(self.name)
            self._link.pending_join, self._link.join_sent = self._link.join_sent, None
            return self._try_join()
        if not self._overtaken(frame["ref"], reason):
            self.errors.append((reason, frame["detail"]))
        if frame["ref"] is None:
            self.delivery.dropped_unread()  # a frame of ours may have gone unread
        if frame["ref"] is not None and self.peer is not None:
            if not self.delivery.sent_here(frame["ref"]):
                # Not a message of ours on this connection: nothing of ours was refused, and
                # nothing is recorded (a hostile host could name hashes by the million).
                return []
            self.peer.drop_pending(bytes.fromhex(frame["ref"]))
            read = self._delivered(self.delivery.refused(frame["ref"], _ms(now)))
            record = {"at": _ms(now), "ref": frame["ref"], "rejected": str(reason)}
            self.sent_log.append(record)
            if self.keeps_records:
                return [*read, RecordRefused(frame["ref"], reason, _ms(now))]
            return read
        if reason == Reason.NOT_SEATED and self._link.authing and self._trusted:
            # Our seat was given up while we were away in the lobby: forget it, join afresh.
            out: list[Intent] = [ForgetSeat()] if self.keeps_records else []
            self._seat_record = None
            if self.peer is not None:
                self.peer.seat = None
            self.seat_hint = None
            self._link.reconnect_requested = True
            return [*out, Reconnect()]
        told = retry_after(frame["detail"])
        if self._link.join_sent is not None and (
            reason == Reason.PASSWORD_THROTTLED or (reason == Reason.RATE_LIMITED and told)
        ):
            busy = "checking passwords"
            if reason == Reason.RATE_LIMITED:
                busy = "with joins from your address"  # a lobby's churn bound (SPEC.md 10.1)
            wait = self.password_retry.throttled(frame["detail"], busy=busy)
            if wait is not None:
                # Told to wait: reconnect after that long for a fresh challenge (this one's
                # seat reservation lapses meanwhile). The refusal is a sign of a live table.
                self._link.join_sent = None
                self._link.reconnect_requested = True
                self.reconnect_delay = float(wait)
                return [Progressed(), Reconnect()]
        if reason == Reason.RATE_LIMITED:
            # The host dropped a frame unread; whatever of ours is unconfirmed goes again,
            # once: a burst of these must not queue a resend of everything for each.
            if self._link.resend_armed:
                return []
            self._link.resend_armed = True
            return [StartTimer(Timer.RESEND, RESEND_AFTER)]
        if reason in FATAL:
            return self._fail(reason, frame["detail"])
        return []

    def _overtaken(self, ref: str | None, reason: Reason) -> bool:
        """Whether a refusal names a message our client sent by itself (a commitment,
        contribution, opening or acknowledgement) that the table moved on without: an opening
        of an absent seat whose hand the result did not need, say. Its record keeps the
        refusal; nobody is told of it, since nobody chose it and nothing was lost."""
        if ref is None or reason not in _TOO_LATE:
            return False
        kind = self._sent_kinds.get(bytes.fromhex(ref))
        return kind is not None and kind not in CHOSEN_MESSAGES

    def _on_status(self, frame: Mapping[str, Any]) -> list[Intent]:
        deadline, bank = frame["deadline_ms"], frame["bank_ms"]
        return [
            ShowStatus(
                phase=frame["phase"],
                connected=tuple(frame["connected"]),
                turn=frame["turn"],
                deadline_in=None if deadline is None else deadline / 1000,
                bank_in=None if bank is None else bank / 1000,
            )
        ]

    # ---- inputs: timers, the adapter's answers, our actions ----------------------------------

    def timer_fired(self, timer: Timer) -> list[Intent]:
        if self.stopped:
            return []
        if timer == Timer.RESEND:
            self._link.resend_armed = False
            return self._resend_pending()
        if timer == Timer.HOST_SIGNATURES:
            self._host_check_armed = False
            return self._check_host_signatures()

        # A spectator asks for what it lacks now and then, which is how the host tells a
        # watcher from a socket left open to fill the table (usually nothing comes back).
        out: list[Intent] = [self._sync()] if self.peer is not None and self._link.connected else []
        return [*out, StartTimer(Timer.KEEPALIVE, SPECTATOR_KEEPALIVE)]

    def _resend_pending(self) -> list[Intent]:
        if self.peer is None or not self._link.connected:
            return []
        again = self.peer.pending_messages()
        for message in again:
            self._leaves(message)
        return [SendMessage(m) for m in again]

    def _leaves(self, message: Message) -> None:
        """`message` leaves on the current connection (delivery's bookkeeping). One the table
        goes on without (an acknowledgement) proves nothing missing: only its place counts."""
        self.delivery.sent(
            message.digest().hex(),
            message.type,
            message.counter,
            message.body.get("round"),
            keep=message.type not in GOES_ON_WITHOUT,
        )

    def _delivered(self, records: list[dict[str, Any]]) -> list[Intent]:
        """Facts about our messages' way to the host, into the sent record (core/delivery.py);
        and the alarm, when the host shows it read a message it had acted without."""
        self.sent_log.extend(records)
        out: list[Intent] = [RecordDelivery(r) for r in records] if self.keeps_records else []
        for record in records:
            told = self.delivery.told(record.get("read", ""))
            if told is not None and self.peer is not None:
                alarm = Alarm(
                    Reason.MESSAGE_DROPPED,
                    f"your {told.kind} (message {told.counter}) was sent and never posted, and "
                    "the host has now shown it had it (it answered a message sent after it); "
                    f"{ACTED.get(told.act or '', 'the host acted')} instead",
                    told.seq,
                    seats=(self.peer.seat,) if self.peer.seat is not None else (),
                    entry=f"event:{told.act}" if told.act else None,
                    dropped=told.kind,
                )
                self.peer.alarms.append(alarm)
                self.errors.append((alarm.reason, alarm.detail))
                out.append(RaiseAlarm(alarm))
        return out

    def provide_secrets(
        self, round_: int, attempt: int, secrets: Secrets, now: float
    ) -> list[Intent]:
        """The answer to DrawSecrets: they are saved before the commitment that binds them."""
        if self.stopped or self.peer is None:
            return []
        out: list[Intent] = [SaveSecrets(round_, attempt, secrets)] if self.keeps_records else []
        return [*out, *self._handle(self.peer.provide_secrets(round_, attempt, secrets), now)]

    def act(self, action: Action, now: float) -> list[Intent]:
        """A bid, call, undo or start-next-round for our seat (the host checks it). Nothing
        once stopped; a UserError, ours to say, when there is no game or no seat to act for."""
        if self.stopped:
            return []
        peer = self.peer
        state = peer.state if peer is not None else None
        if peer is None or state is None or state.game is None:
            raise UserError("there is no game to act in yet")
        if peer.seat is None:
            raise UserError("a spectator holds no seat to act for")
        return self._transmit(peer.act(action, now=now), now)

    @property
    def back_next_round(self) -> bool:
        """Our seat is absent and the host knows we are back: this connection authenticated
        after the absence, so the host gives the seat back at the next round (SPEC.md 8)."""
        absent_from = self._absent_from
        return (
            absent_from is not None
            and self._link.connected
            and self._link.catch_up_to >= absent_from
        )

    def take_seat_back(self) -> list[Intent]:
        """Our player is back while the host plays our seat. A seat declared absent while its
        client stayed connected (out of time: `stalled`) is given back only when its own key
        authenticates again (SPEC.md 8, `return`), so this connection is replaced by a new one.
        Nothing when the seat is not absent, or when this connection's own authentication came
        after the absence (the host then gives the seat back at the next round already)."""
        peer = self.peer
        absent_from = self._absent_from
        if self.stopped or peer is None or peer.seat is None or absent_from is None:
            return []
        if not self._link.connected or self._link.reconnect_requested:
            return []
        if self._link.catch_up_to >= absent_from:
            return []
        self._link.reconnect_requested = True
        return [Reconnect()]

    def _note_absence(self, peer: Peer) -> None:
        state = peer.state
        if peer.seat is None or state is None or peer.seat not in state.absent:
            self._absent_from = None
        elif self._absent_from is None:
            self._absent_from = len(peer.replayer.chain)

    def storage_failed(self, what: str, error: str) -> list[Intent]:
        """A write of this seat's records failed (a full disk, no file descriptors left, a
        refused link): the seat stops with a clear local error instead of playing on without
        its records, which would stall the table at the next commitment."""
        detail = f"could not save {what}: {error}; this seat stops"
        self.fatal = (Reason.INTERNAL, detail)
        self.errors.append((Reason.INTERNAL, detail))
        if self.stopped:
            return []
        self.stopped = True
        return [Stopped(detail)]

    def connection_lost(self) -> list[Intent]:
        checked = self._check_host_signatures()  # the timer goes with the connection
        self._host_check_armed = False
        self._link = _Link()
        self._attempt += 1  # a password answer still being computed is for a gone challenge
        lost = self._delivered(self.delivery.connection_lost(_ms(self._now)))
        return [
            *checked,
            *lost,
            CancelTimer(Timer.RESEND),
            CancelTimer(Timer.KEEPALIVE),
            CancelTimer(Timer.HOST_SIGNATURES),
        ]

    # ---- peer outputs --------------------------------------------------------------------

    def _handle(self, outputs: list[PeerOutput], now: float) -> list[Intent]:
        out: list[Intent] = []
        self._now = max(self._now, now)
        for output in outputs:
            if isinstance(output, Applied):
                self.lines.append(output.entry.line)
                if self.keeps_records:
                    out.append(AppendEntry(output.entry, durable=ends_a_round(output.entry)))
                if self.delivery.waiting:
                    for msg in messages_in(output.entry):
                        out += self._delivered(self.delivery.posted(msg.digest().hex(), _ms(now)))
            elif isinstance(output, Send):
                out += self._transmit(output, now)
            elif isinstance(output, NeedSecrets):
                out.append(DrawSecrets(output.round, output.attempt))
            elif isinstance(output, LostSecrets):
                # Our records' fault, not the host's: said, and the game followed on.
                self.local_problems.append(output.describe())
                self.errors.append((Reason.INTERNAL, output.describe()))
            elif isinstance(output, Alarm):
                if output.reason == Reason.MESSAGE_DROPPED and self._not_dropped(output):
                    continue
                output = self._with_held_entry(output)
                self.errors.append((output.reason, output.detail))
                out.append(RaiseAlarm(output))
        return out

    def _feed(self, peer: Peer, entry: Entry, defer: bool) -> list[PeerOutput]:
        """`peer.receive_entry`, noting first which of our messages a host act in our place
        is about (the peer alarms when one is unposted; `_not_dropped` judges it)."""
        event = entry.host_event
        self._act_candidates = []
        if event is not None and event.type in DROPPED_BY and peer.seat in event.acted_for:
            wanted = DROPPED_BY[event.type]
            self._act_candidates = [
                p.message for p in peer.pending.values() if p.message.type in wanted
            ]
        return peer.receive_entry(entry, defer_host_signature=defer)

    def _not_dropped(self, alarm: Alarm) -> bool:
        """The host acted in our place while a message of ours for that step was unposted
        (the peer's MESSAGE_DROPPED). It is the host's doing only if the host showed it read
        one (core/delivery.py); otherwise nobody can tell who lost it, so the alarm is
        withdrawn and the player told the message did not reach the table. False: the alarm
        stands."""
        peer, candidates = self.peer, self._act_candidates
        if peer is None or not candidates:
            return False
        if any(self.delivery.reached(m.digest().hex()) for m in candidates):
            return False
        for index in range(len(peer.alarms) - 1, -1, -1):
            if peer.alarms[index] is alarm:
                del peer.alarms[index]
                break
        act = alarm.entry.removeprefix("event:") if alarm.entry is not None else None
        notice = self.delivery.undelivered(candidates[0], act, alarm.seq)
        if notice is not None:
            self.notices.append(notice)
        return True

    def _with_held_entry(self, alarm: Alarm) -> Alarm:
        """A proof that needs an entry of ours (the other of two entries with one seq, or the
        one a host-signed entry should have followed): the peer names its seq, we hold its
        line, and the alarm then carries both."""
        held = alarm.held
        if held is None or not 0 <= held < len(self.lines):
            return alarm
        ours = self.lines[held].decode()
        if ours in alarm.proof:
            return alarm
        alarm = replace(alarm, proof=(ours, *alarm.proof))
        if self.peer is not None and self.peer.alarms and self.peer.alarms[-1].seq == alarm.seq:
            self.peer.alarms[-1] = alarm
        return alarm

    def _transmit(self, send: Send, now: float) -> list[Intent]:
        refused = self._check_host_signatures()  # nothing leaves over an unchecked history
        if refused and self.peer is not None:
            self.peer.drop_pending(send.message.digest())
            return refused
        message = send.message.to_json()
        self.sent_log.append({"at": _ms(now), "msg": message})
        self._sent_kinds[send.message.digest()] = send.message.type
        while len(self._sent_kinds) > _SENT_KINDS_KEPT:
            del self._sent_kinds[next(iter(self._sent_kinds))]  # the oldest first
        self._leaves(send.message)
        # Never sent unrecorded: `verify --mine` must find every message we sent.
        recorded: list[Intent] = [RecordSent(message, _ms(now))] if self.keeps_records else []
        return [*recorded, SendMessage(send.message)]


def _ms(now: float) -> int:
    return int(now * 1000)
