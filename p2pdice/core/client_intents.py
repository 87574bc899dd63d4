"""What the client connection (core/client.py) asks its adapter to do, and what it is told back.

Every intent is a frozen value; the adapter executes them in the order given, each only after
the one before it is done: a write may take an adapter's thread a while, and what follows it
waits (the commitment after `SaveSecrets` leaves only once the secrets are on disk). It stops
at the first one that fails (a write it cannot make: it reports `storage_failed`, which stops
the connection, so nothing after that write happens). Nothing here reads a clock, draws a
random byte or touches a file: those are the adapter's, fed back in as inputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .client_check import verify_record
from .codec import encode
from .errors import Reason
from .events import Forfeit, GameOver, HostEvent, Result
from .messages import Message
from .pake import Binding, JoinerAnswer, joiner_answer
from .peer import Alarm, Secrets
from .transcript import Entry
from .verify import Report


class Timer(StrEnum):
    """The client's own timers (the adapter arms them and reports `timer_fired`)."""

    RESEND = "resend"  #: resend what is unconfirmed after the host refused a frame for speed
    KEEPALIVE = "keepalive"  #: a spectator's periodic sync
    #: The host signatures left for later (SPEC.md 6.3): armed for 0 s, so the adapter checks
    #: them at its next turn, after the entries they came with have been shown.
    HOST_SIGNATURES = "host_signatures"


# ---- inputs that carry data --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SavedSeat:
    """What this identity's folder for one table held when it was opened (empty when new, or
    when the client keeps no records): the answer to `OpenStore`."""

    secrets: Mapping[tuple[int, int], Secrets] = field(default_factory=dict)
    sent: tuple[Mapping[str, Any], ...] = ()  #: sent-message and refusal records, oldest first
    transcript: tuple[bytes, ...] = ()
    seat: int | None = None  #: the seat record, when there is one ...
    seat_host: str | None = None  #: ... and the host key (hex) it was given by


# ---- intents -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SendFrame:
    """Queue this frame for the host."""

    kind: str
    fields: Mapping[str, Any]

    def text(self) -> str:
        """The frame's canonical JSON (SPEC.md 10)."""
        return encode({"type": self.kind, **self.fields}).decode("utf-8")


@dataclass(frozen=True, slots=True)
class SendMessage:
    """Queue one of our signed messages for the host (a `send` frame)."""

    message: Message

    def text(self) -> str:
        return SendFrame("send", {"msg": self.message.to_json()}).text()


@dataclass(frozen=True, slots=True)
class RaiseAlarm:
    """The host did something the protocol forbids, or dropped something of ours (it is in
    `errors` and the peer's `alarms` already): say so."""

    alarm: Alarm


@dataclass(frozen=True, slots=True)
class OpenStore:
    """Open this table's records and answer with `store_opened(SavedSeat(...))`."""

    table_id: bytes


@dataclass(frozen=True, slots=True)
class DrawSecrets:
    """Draw a round's secrets (3 x 32 fresh random bytes) and answer with `provide_secrets`."""

    round: int
    attempt: int


@dataclass(frozen=True, slots=True)
class SaveSecrets:
    """Durably store a round's secrets: this comes before the commitment that binds them."""

    round: int
    attempt: int
    secrets: Secrets


@dataclass(frozen=True, slots=True)
class RecordSent:
    """Append a signed message to the sent log before it leaves (`verify --mine` reads it)."""

    message: Mapping[str, Any]
    at_ms: int


@dataclass(frozen=True, slots=True)
class RecordRefused:
    """Append the host's refusal of one of our messages to the sent log."""

    ref: str
    reason: Reason
    at_ms: int


@dataclass(frozen=True, slots=True)
class RecordDelivery:
    """Append what the client learnt of its messages' way to the host to the sent log: the
    host showed it read one (`read`), or a connection was lost with some unanswered (`lost`),
    so `verify --mine` can tell a message the host dropped from one that never reached it
    (core/delivery.py)."""

    record: Mapping[str, Any]


#: The host events after which a copy of the log is made durable (fsynced): a round's result
#: or forfeit, and the game's end. In between, a killed process loses nothing (its lines are in
#: the kernel) and a power cut at most the round in play, which its saved secrets replay.
DURABLE_AFTER: tuple[type[HostEvent], ...] = (Result, Forfeit, GameOver)


def ends_a_round(entry: Entry) -> bool:
    """Whether a log (the client's transcript, the host's log) is made durable after `entry`."""
    return isinstance(entry.host_event, DURABLE_AFTER)


@dataclass(frozen=True, slots=True)
class AppendEntry:
    """Append a verified entry to the saved transcript, then, when `durable`, make the
    records durable (an fsync: see `ends_a_round`)."""

    entry: Entry
    durable: bool


@dataclass(frozen=True, slots=True)
class SaveSeat:
    seat: int
    host: str  #: the host key, hex


@dataclass(frozen=True, slots=True)
class ForgetSeat:
    """The seat record is stale (the host gave the seat up): delete it."""


@dataclass(frozen=True, slots=True)
class StretchPassword:
    """Derive the table's password verifier (`pake.password_verifier`, scrypt: slow, so off
    the event loop) when `password` is given, draw `entropy_bytes` fresh random bytes, then
    answer with `password_ready(attempt, verifier, entropy)`. An adapter with an event loop
    also runs `answer(verifier, entropy)` off the loop (SPAKE2 costs about 20 ms of CPU) and
    passes its result as `password_ready(..., answer=...)`."""

    attempt: int  #: which challenge asked: an answer for an older one is ignored
    table_id: bytes
    password: str | None  #: None: the verifier is known already (pass None back)
    entropy_bytes: int
    known_verifier: bytes | None = None  #: the verifier when `password` is None
    host_message: bytes = b""  #: the host's SPAKE2 message, from the challenge
    binding: Binding | None = None  #: what the confirmations bind (table, host, nonce, key)

    def answer(self, verifier: bytes | None, entropy: bytes) -> JoinerAnswer | ValueError:
        """The joiner's SPAKE2 answer, pure; a host message that is not SPAKE2's comes back
        as the ValueError, for `password_ready` to refuse the challenge with."""
        usable = verifier if verifier is not None else self.known_verifier
        assert usable is not None and self.binding is not None, "no exchange was asked for"
        try:
            return joiner_answer(usable, entropy, self.host_message, self.binding)
        except ValueError as err:
            return err


@dataclass(frozen=True, slots=True)
class CheckGame:
    """The game is over: run `check()` (it replays the whole log, up to a second: off the
    event loop) and answer with `game_checked(this, report)`. Holds copies: it runs anywhere."""

    lines: tuple[bytes, ...]
    sent: tuple[Mapping[str, Any], ...]
    seated: bool

    def check(self) -> Report:
        return verify_record(self.lines, self.sent, seated=self.seated, complete=True)


@dataclass(frozen=True, slots=True)
class StartTimer:
    timer: Timer
    seconds: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    timer: Timer


@dataclass(frozen=True, slots=True)
class Reconnect:
    """Drop this connection and open a new one (seats may be free in a moment)."""


@dataclass(frozen=True, slots=True)
class Fatal:
    """Retrying cannot help: stop and say why."""

    reason: Reason
    detail: str


@dataclass(frozen=True, slots=True)
class Stopped:
    """A local failure (a record that could not be written): this seat stops for good."""

    detail: str


@dataclass(frozen=True, slots=True)
class Progressed:
    """A sign of a working table (a welcome, a verified entry): the adapter's give-up clock
    starts again."""


@dataclass(frozen=True, slots=True)
class ShowStatus:
    """The host's status line: who is connected, whose turn, and the turn timer."""

    phase: str
    connected: tuple[int, ...]
    turn: int | None
    deadline_in: float | None  #: seconds from now until the turn timer runs out
    bank_in: float | None = None  #: seconds from now until the seat on turn is out of time


Intent = (
    SendFrame
    | SendMessage
    | RaiseAlarm
    | OpenStore
    | DrawSecrets
    | SaveSecrets
    | RecordSent
    | RecordRefused
    | RecordDelivery
    | AppendEntry
    | SaveSeat
    | ForgetSeat
    | StretchPassword
    | CheckGame
    | StartTimer
    | CancelTimer
    | Reconnect
    | Fatal
    | Stopped
    | Progressed
    | ShowStatus
)
