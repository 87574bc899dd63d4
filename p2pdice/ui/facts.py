"""The log's notes and our alarms as the snapshot holds them: immutable facts for screens.

The core's `Note` and `Alarm` carry their facts as fields (a forced move's cause and action,
the seats an alarm is about); `detail` is a sentence for people and nothing here parses it.
"""

from __future__ import annotations

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


def note_facts(note: Note) -> NoteFacts:
    return NoteFacts(
        note.kind, note.round, note.seat, reason=note.reason or "", action=note.action or ""
    )


def alarm_facts(alarm: AlarmLike) -> AlarmFacts:
    return AlarmFacts(str(alarm.reason), alarm.detail, alarm.seat)
