"""The host's bound on lobby churn (SPEC.md 3.2): every join and every leave in a lobby is a
signed entry of the permanent log, so the host admits at most a fixed number of lobby leaves
at a table, whatever the number of addresses or keys churning it.

Up to LOBBY_LEAVE_BUDGET leaves anybody may join again (friends dropping in and out). Past
it, a key or an address that has left this lobby may not join again before the start, and a
newcomer (new key, new address) may still join until the leaves reach the budget plus the
table's seats; past that, no join is admitted. A join is admitted only while fewer than
`budget + seats` leaves were posted and a seat is free, so a lobby writes at most
`budget + 2 * seats - 1` joins and as many leaves, however it is churned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from .transcript import Entry

#: Lobby leaves a table takes before returning leavers are refused (SPEC.md 3.2).
LOBBY_LEAVE_BUDGET = 24

#: Seconds a stranger's lobby join must stay before it counts towards the start, so joins
#: that leave at once (churn) never fill the table and start a game with phantoms.
LOBBY_SETTLE = 2.0

LOBBY_CHURN_WORDS = (
    "this table has seen too many joins and leaves; ask the host to open a new table"
)


def lobby_leave_cap(seats: int) -> int:
    """Lobby leaves past which no join is admitted: the budget, plus one for each seat so
    newcomers still fit after the budget is spent."""
    return LOBBY_LEAVE_BUDGET + seats


@dataclass(slots=True)
class LobbyChurn:
    """What the host remembers of its lobby's leaves: how many, and by which keys and
    addresses (an address is the adapter's word for where a connection came from)."""

    leaves: int = 0
    keys: set[bytes] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)

    @classmethod
    def of_log(cls, entries: Iterable[Entry]) -> LobbyChurn:
        """The count from a saved log (a resumed host); who left is not in the log's terms
        for addresses, so only the keys are recovered."""
        churn = cls()
        keys: dict[int, bytes] = {}
        for entry in entries:
            if entry.kind == "msg:join" and entry.msg is not None:
                keys[entry.msg.seat] = entry.msg.bytes_field("key")
            elif entry.kind == "event:leave" and entry.event is not None:
                churn.leaves += 1
                key = keys.pop(int(entry.event["seat"]), None)
                if key is not None:
                    churn.keys.add(key)
        return churn

    def left(self, key: bytes | None, source: str) -> None:
        """A lobby leave the host posted, for the seat's key, from `source`."""
        self.leaves += 1
        if key is not None:
            self.keys.add(key)
        if source:
            self.sources.add(source)

    def refusal(self, key: bytes, source: str, seats: int) -> str | None:
        """Why a join by `key` from `source` is refused (LOBBY_CHURN), or None."""
        if self.leaves >= lobby_leave_cap(seats):
            return LOBBY_CHURN_WORDS
        if self.leaves >= LOBBY_LEAVE_BUDGET and (key in self.keys or source in self.sources):
            return LOBBY_CHURN_WORDS
        return None
