"""The notes' and alarms' facts, read out of their text in one place (ui.facts)."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm
from p2pdice.core.table import Note
from p2pdice.ui.facts import AlarmFacts, NoteFacts, alarm_facts, note_facts


def test_a_forced_move_names_its_cause_and_the_move() -> None:
    facts = note_facts(Note("forced", 2, 1, "timer: challenge"))
    assert facts == NoteFacts("forced", 2, 1, reason="timer", action="challenge")
    assert note_facts(Note("forced", 2, 0, "absent: next_round")).action == "next_round"


def test_absences_and_forfeits_carry_their_reason_and_other_notes_none() -> None:
    assert note_facts(Note("absent", 1, 2, "no_reply")).reason == "no_reply"
    assert note_facts(Note("forfeit", 1, 2, "no_opening")).reason == "no_opening"
    opened = note_facts(Note("opened", 1, 0, "1 4 4 2 6"))
    assert (opened.reason, opened.action) == ("", "")  # a hand is not a reason


def test_an_alarm_names_the_seat_it_is_about_when_its_sentence_does() -> None:
    tampered = Alarm(Reason.OPENING_MISMATCH, "seat 3's opening does not match its commitment")
    assert alarm_facts(tampered) == AlarmFacts("OPENING_MISMATCH", tampered.detail, 3)
    dropped = alarm_facts(Alarm(Reason.MESSAGE_DROPPED, "our bid was not logged"))
    assert dropped.seat is None and dropped.reason == "MESSAGE_DROPPED"
