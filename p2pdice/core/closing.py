"""Why a host closes a connection for good (the `closing` frame, SPEC.md 10.3): a paused
table comes back (its players wait for it), an ended one does not, an idle spectator was let
go. Every client reacts to the code, never to the words."""

from __future__ import annotations

from enum import StrEnum


class Closing(StrEnum):
    PAUSED = "paused"  #: the host stopped the table and can resume it from its log
    ENDED = "ended"  #: the table closed for good: its game is over (or ended by the host)
    IDLE = "idle"  #: a spectator sent no `sync` for too long (this connection only)


#: The words each code is sent with in `detail`, for clients that only show it.
CLOSING_WORDS = {
    Closing.PAUSED: "the host paused the table; it can be resumed",
    Closing.ENDED: "the host ended the table",
    Closing.IDLE: "no sync for too long",
}
MAX_CLOSING_DETAIL = 200  #: characters of `detail`, plain text
