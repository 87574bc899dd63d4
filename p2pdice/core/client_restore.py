"""A seat's saved records back into a Peer, after a restart (the client's side of SPEC.md 8:
secrets, sent messages and the verified transcript survive a crash)."""

from __future__ import annotations

from dataclasses import dataclass, field

from .client_intents import SavedSeat
from .errors import Reason, RemoteError
from .messages import parse_message
from .peer import Peer
from .signing import SigningKey


@dataclass(slots=True)
class RestoredSeat:
    peer: Peer
    lines: list[bytes]  #: the saved transcript as far as it verified
    seat_record: tuple[int, str] | None  #: (seat, host key hex), when one was saved
    #: The seat our key signs for in the saved transcript: where a seat record was lost, the
    #: seat is still ours, and the transcript says which.
    transcript_seat: int | None = None
    errors: list[tuple[Reason, str]] = field(default_factory=list)


def restore_seat(key: SigningKey, saved: SavedSeat) -> RestoredSeat:
    """The Peer `key` was, as its records left it: its secrets, what it sent that the saved
    log does not show (to resend), and the log re-verified."""
    peer = Peer(key=key)
    peer.secrets.update(saved.secrets)
    # Sent messages first: replaying the saved log then clears every one it shows, and what
    # is left is exactly what the host may never have received.
    refused = {r.get("ref") for r in saved.sent}
    for record in saved.sent:
        try:
            msg = parse_message(record["msg"]) if "msg" in record else None
            at = float(record.get("at", 0)) / 1000
        except (RemoteError, KeyError, TypeError, ValueError):
            continue  # a record we cannot read cannot be resent either
        if msg is not None and msg.digest().hex() not in refused:
            peer.restore_sent(msg, sent_at=at)
    alarms = peer.restore(list(saved.transcript))
    errors = (
        [(alarms[0].reason, f"the saved transcript did not verify: {alarms[0].detail}")]
        if alarms
        else []
    )
    seat_record = None
    if saved.seat is not None and saved.seat_host is not None:
        seat_record = (saved.seat, saved.seat_host)
    state = peer.state
    return RestoredSeat(
        peer=peer,
        lines=list(saved.transcript[: len(peer.replayer.chain)]),
        seat_record=seat_record,
        transcript_seat=None if state is None else state.seat_joined_by(key.public),
        errors=errors,
    )
