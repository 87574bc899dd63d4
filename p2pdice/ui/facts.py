"""The log's notes, our alarms and the end-of-game check's findings as the snapshot holds
them: immutable facts for screens.

The core's `Note`, `Alarm` and `CheckAlarm` carry their facts as fields (a forced move's cause
and action, the seats an alarm is about, the round a finding concerns); `detail` is a sentence
for people and nothing here parses it. The screens word them (`viewmodel.alarm_line`, the one
formatter of an alarm).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.table import Note
from .ports import AlarmLike, CheckFinding


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
    """An alarm our checks of the host raised during play."""

    reason: str
    detail: str  #: the sentence, for the alarm line
    seat: int | None = None  #: the seat the alarm is about (a tampered opening), if any


@dataclass(frozen=True, slots=True)
class FindingFacts:
    """One finding of the end-of-game self-check (core.client_check.CheckAlarm)."""

    #: "verify": the transcript (or our record of what we sent) failed `verify`;
    #: "forfeit": a forfeit the host could use to re-roll hands.
    kind: str
    detail: str  #: the core's sentence
    round: int | None = None
    seat: int | None = None  #: the forfeited seat (kind "forfeit")
    mine: bool = False  #: "verify": our sent record was checked too (`verify --mine`)


def note_facts(note: Note) -> NoteFacts:
    return NoteFacts(
        note.kind, note.round, note.seat, reason=note.reason or "", action=note.action or ""
    )


def alarm_facts(alarm: AlarmLike) -> AlarmFacts:
    return AlarmFacts(str(alarm.reason), alarm.detail, alarm.seat)


def finding_facts(finding: CheckFinding) -> FindingFacts:
    return FindingFacts(
        finding.kind, finding.detail, finding.round, finding.seat, mine=finding.mine
    )
