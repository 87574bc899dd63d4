"""What the host table hands its adapter: entries to broadcast, replies, requests."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field

from .errors import Reason
from .messages import Message, MessageType
from .transcript import Entry

Conn = Hashable

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
    #: The host's password confirmation for the welcome (SPEC.md 3.4), or None.
    proof: bytes | None = None


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
    #: Seconds the seat on turn was away in its earlier drops during this turn, and when its
    #: current one began (None: it is connected): a return does not start a fresh grace
    #: period (SPEC.md 8).
    turn_away: float = 0.0
    paused_at: float | None = None

    def buffer_for(self, kind: str) -> dict[int, Message]:
        """Where the buffered messages of type `kind` (`commit`, `contribute`) wait, by seat."""
        stores: dict[str, dict[int, Message]] = {
            MessageType.COMMIT: self.commits,
            MessageType.CONTRIBUTE: self.contributions,
        }
        return stores[kind]
