"""The log's notes and our alarms as structured facts: the one place that parses their text.

The core hands notes and alarms to the ui with their facts folded into display strings
(`Note.detail` "timer: challenge", the seat named inside an alarm's sentence). The screens
read the fields below instead; `note_facts` and `alarm_facts` are the only functions that
look inside those strings, so when the core carries the fields itself, these two read them
and nothing else in the ui changes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.table import Note
from .ports import AlarmLike


@dataclass(frozen=True, slots=True)
class NoteFacts:
    """One log note, with what its detail says as fields."""

    kind: str
    round: int | None = None
    seat: int | None = None
    #: Why it happened: a forced move's cause ("timer", "absent"), an absence's or a
    #: forfeit's reason ("no_reply", "no_opening"...); "" when the note gives none.
    reason: str = ""
    #: A forced move: the message type the host played for the seat ("challenge", "bid",
    #: "next_round"); "" for every other note.
    action: str = ""


@dataclass(frozen=True, slots=True)
class AlarmFacts:
    reason: str
    detail: str  #: the sentence, for the alarm line
    seat: int | None = None  #: the seat the alarm is about (a tampered opening), if any


_REASON_NOTES = ("absent", "forfeit")
_SEAT_IN_TEXT = re.compile(r"\bseat (\d+)")


def note_facts(note: Note) -> NoteFacts:
    if note.kind == "forced":
        reason, _, action = note.detail.partition(": ")
        return NoteFacts(note.kind, note.round, note.seat, reason=reason, action=action)
    reason = note.detail if note.kind in _REASON_NOTES else ""
    return NoteFacts(note.kind, note.round, note.seat, reason=reason)


def alarm_facts(alarm: AlarmLike) -> AlarmFacts:
    match = _SEAT_IN_TEXT.search(alarm.detail)
    seat = int(match.group(1)) if match else None
    return AlarmFacts(str(alarm.reason), alarm.detail, seat)
