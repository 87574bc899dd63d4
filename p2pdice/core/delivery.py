"""Whether a message of ours reached the host, from the client's own facts (SPEC.md 9.1).

TCP under TLS delivers what one connection carries in order and whole, or not at all:
nobody on the path can take one message out and pass the next (TLS refuses what follows a
gap), but anyone on it can cut the connection, or stop passing what we send while the
host's frames still reach us, so a connection that "stayed up" proves nothing. The host has
shown it *read* a message only by answering, on the connection it was sent on, that message
or one sent after it: an `accepted` or an `error` naming it, or the posting of a later
message that was sent on that connection alone. (An `error` naming no message says the host
dropped a frame unread: answers after it prove nothing about what was sent before it.)

A message the host read and then neither posted nor refused is the host's doing:
`MESSAGE_DROPPED`. One it never showed it read *did not reach the table* as far as anyone
can tell (the network, someone on the path or the host lost it): the player is told so, as
information, with how many connections it was sent on were lost before an answer.

The client keeps these facts in its sent-message record next to what it sent, so that
`verify --mine` decides from the file alone: `{"at": ms, "read": "<message hash>"}` once the
host showed it read a message not yet in the log, `{"at": ms, "lost": ["<hash>", ...]}` when
a connection ended with those messages sent on it and unanswered.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .errors import RemoteError
from .messages import Message, parse_message

#: The host's act in a seat's place, as the player is told of it.
ACTED = {
    "forced": "the host moved for you",
    "abort": "the host began the attempt again",
    "absent": "the host declared you absent",
    "forfeit": "the host made you forfeit",
}


@dataclass(frozen=True, slots=True)
class Undelivered:
    """A message of ours that never reached the log, and that the host never showed it read:
    information about the link, never an alarm about the host."""

    kind: str  #: the message's type
    counter: int
    round: int | None
    lost: int  #: connections it was sent on that were lost before the host answered it
    act: str | None = None  #: the host's act in our place (an event type), when it is known
    seq: int | None = None  #: that act's entry

    def describe(self) -> str:
        """One sentence for a person."""
        if self.lost:
            times = "1 time" if self.lost == 1 else f"{self.lost} times"
            how = f"the connection dropped {times} while it was being sent"
        else:
            how = "the host answered neither it nor anything sent after it on that connection"
        acted = f"; {ACTED[self.act]}" if self.act in ACTED else ""
        return (
            f"your {self.kind} (message {self.counter}) did not reach the table: {how}{acted}. "
            "Nobody can tell whether the network, someone on the path or the host lost it"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "undelivered",
            "type": self.kind,
            "counter": self.counter,
            "round": self.round,
            "lost": self.lost,
            "text": self.describe(),
        }


@dataclass(frozen=True, slots=True)
class DeliveryFacts:
    """What a sent-message record says about delivery: the messages the host showed it
    read, and how many connections each message was lost on."""

    read: frozenset[str]  #: message hashes (hex)
    lost: Mapping[str, int]


def delivery_facts(records: Iterable[Mapping[str, Any]]) -> DeliveryFacts:
    """The `read` and `lost` records of a sent-message record (others are ignored here)."""
    read: set[str] = set()
    lost: dict[str, int] = {}
    for record in records:
        if isinstance(record.get("read"), str):
            read.add(record["read"])
        refs = record.get("lost")
        if isinstance(refs, list):
            for ref in refs:
                if isinstance(ref, str):
                    lost[ref] = lost.get(ref, 0) + 1
    return DeliveryFacts(frozenset(read), lost)


@dataclass(slots=True)
class _Sent:
    kind: str
    counter: int
    round: int | None
    links: set[int] = field(default_factory=set)  #: the connections it was sent on
    read: bool = False
    lost: int = 0
    quiet: bool = False  #: its absence changes nothing: no record is made of it


class Delivery:
    """The client's bookkeeping of its messages on their way to the log, sans-I/O: which
    connection each was sent on, what the host answered there, which connections were lost.
    Each method returns the records to append to the sent-message record, in order."""

    def __init__(self) -> None:
        self.link = 0  #: counts connections (a new one begins at each loss)
        self._here: list[str] = []  #: hashes sent on this connection, in order (resends too)
        self._here_set: set[str] = set()  #: the same, to look up
        self._floor = 0  #: sends before this index may have been dropped unread
        self._open: dict[str, _Sent] = {}  #: sent, neither in the log nor refused
        #: Messages the player was told did not reach the table, as it was told of them.
        self._told: dict[str, Undelivered] = {}

    def restore(self, records: Sequence[Mapping[str, Any]], pending: Iterable[str]) -> None:
        """After a restart: the record's facts about the messages still `pending`."""
        wanted = set(pending)
        facts = delivery_facts(records)
        for record in records:
            try:
                msg = parse_message(record["msg"]) if "msg" in record else None
            except (RemoteError, KeyError, TypeError, ValueError):
                continue  # a record we cannot read is not ours to track
            ref = msg.digest().hex() if msg is not None else None
            if msg is not None and ref in wanted:
                self._open[ref] = _Sent(
                    msg.type,
                    msg.counter,
                    msg.body.get("round"),
                    links={-1},  # sent by the process before: on connections we cannot name
                    read=ref in facts.read,
                    lost=facts.lost.get(ref, 0),
                )

    def sent(
        self, ref: str, kind: str, counter: int, round_: int | None, *, keep: bool = True
    ) -> None:
        """A message (new, or sent again) leaves on the current connection. Without `keep`
        only its place in the order is kept (a message whose absence changes nothing, such
        as an acknowledgement: an answer to it still shows what was read before it)."""
        self._here.append(ref)
        self._here_set.add(ref)
        entry = self._open.setdefault(ref, _Sent(kind, counter, round_, quiet=not keep))
        entry.links.add(self.link)

    def sent_here(self, ref: str) -> bool:
        """Whether `ref` was sent on the current connection (the only one its answer can
        come on)."""
        return ref in self._here_set

    def answered(self, ref: str, at_ms: int) -> list[dict[str, Any]]:
        """The host answered `ref` (`accepted` or an `error` naming it) on this connection:
        it read that message and everything sent before it here, back to the last frame it
        said it dropped unread."""
        return self._read([*self._before(ref), ref], at_ms)

    def dropped_unread(self) -> None:
        """The host refused a frame without naming it (too many frames, say): it may have
        dropped any of ours sent so far on this connection unread."""
        self._floor = len(self._here)

    def posted(self, ref: str, at_ms: int) -> list[dict[str, Any]]:
        """The log holds our message `ref`. Sent on this connection alone, its posting is the
        host's answer to it there."""
        entry = self._open.pop(ref, None)
        if entry is None or entry.links != {self.link}:
            return []
        return self._read(self._before(ref), at_ms)

    def refused(self, ref: str, at_ms: int) -> list[dict[str, Any]]:
        """The host refused `ref`, naming it: an answer to it (recorded as refused) and so
        to what was sent before it here."""
        self._open.pop(ref, None)
        return self._read(self._before(ref), at_ms)

    def _before(self, ref: str) -> list[str]:
        """What was sent on this connection before `ref` first was, after the floor."""
        if ref not in self._here:
            return []
        return self._here[self._floor : self._here.index(ref)]

    def _read(self, refs: list[str], at_ms: int) -> list[dict[str, Any]]:
        out = []
        for ref in dict.fromkeys(refs):
            entry = self._open.get(ref)
            if entry is not None and not entry.read and not entry.quiet:
                entry.read = True
                out.append({"at": at_ms, "read": ref})
        return out

    def connection_lost(self, at_ms: int) -> list[dict[str, Any]]:
        """The connection ended: what was sent on it and never answered was lost with it."""
        lost = []
        for ref, entry in self._open.items():
            if self.link in entry.links and not entry.read and not entry.quiet:
                entry.lost += 1
                lost.append(ref)
        self.link += 1
        self._here, self._here_set, self._floor = [], set(), 0
        return [{"at": at_ms, "lost": lost}] if lost else []

    def reached(self, ref: str) -> bool:
        """Whether the host showed it read `ref` (and the log does not hold it yet)."""
        entry = self._open.get(ref)
        return entry is not None and entry.read

    def undelivered(self, message: Message, act: str | None, seq: int | None) -> Undelivered | None:
        """What to tell the player of `message`, which the host acted without and never
        showed it read; None once told (the host may act twice in its place: absent, then
        forfeit)."""
        ref = message.digest().hex()
        if ref in self._told:
            return None
        entry = self._open.get(ref)
        lost = entry.lost if entry is not None else 0
        told = Undelivered(message.type, message.counter, message.body.get("round"), lost, act, seq)
        self._told[ref] = told
        return told

    def told(self, ref: str) -> Undelivered | None:
        """What the player was told of `ref` when the host acted without it (None: nothing):
        if the host now shows it read it after all, it dropped it."""
        return self._told.get(ref)

    @property
    def waiting(self) -> bool:
        """Whether any message of ours is on its way (sent, not yet in the log nor refused)."""
        return bool(self._open)
