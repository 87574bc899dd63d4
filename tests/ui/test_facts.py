"""The notes' and alarms' facts reach the screens from the core's own fields (ui.facts)."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm
from p2pdice.core.table import Note
from p2pdice.ui.facts import AlarmFacts, NoteFacts, alarm_facts, note_facts


def test_a_forced_move_names_its_cause_and_the_move() -> None:
    note = Note("forced", 2, 1, "timer: challenge", reason="timer", action="challenge")
    assert note_facts(note) == NoteFacts("forced", 2, 1, reason="timer", action="challenge")


def test_the_detail_sentence_is_never_parsed() -> None:
    # A sentence that looks like a cause and a move, without the fields, gives neither.
    facts = note_facts(Note("forced", 2, 1, "timer: challenge"))
    assert (facts.reason, facts.action) == ("", "")
    alarm = alarm_facts(Alarm(Reason.OPENING_MISMATCH, "seat 3's opening does not match"))
    assert alarm.seat is None


def test_absences_and_forfeits_carry_their_reason_and_other_notes_none() -> None:
    assert note_facts(Note("absent", 1, 2, "no_reply", reason="no_reply")).reason == "no_reply"
    opened = note_facts(Note("opened", 1, 0, "1 4 4 2 6", hand=(1, 4, 4, 2, 6)))
    assert (opened.reason, opened.action) == ("", "")  # a hand is not a reason


def test_an_alarm_names_the_first_seat_it_is_about() -> None:
    tampered = Alarm(Reason.OPENING_MISMATCH, "seat 3's opening does not match", seats=(3, 1))
    assert alarm_facts(tampered) == AlarmFacts("OPENING_MISMATCH", tampered.detail, 3)
    dropped = alarm_facts(Alarm(Reason.MESSAGE_DROPPED, "our bid was not logged"))
    assert dropped.seat is None and dropped.reason == "MESSAGE_DROPPED"
