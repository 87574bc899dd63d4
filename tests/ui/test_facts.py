"""The notes', alarms' and end-of-game findings' facts reach the screens from the core's own
fields (ui.facts), and every alarm is worded by one formatter (viewmodel.alarm_line)."""

from __future__ import annotations

from p2pdice.core.client_check import CheckAlarm
from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm
from p2pdice.core.table import Note
from p2pdice.ui.facts import (
    AlarmFacts,
    FindingFacts,
    NoteFacts,
    alarm_facts,
    finding_facts,
    note_facts,
)
from p2pdice.ui.viewmodel import finding_line, play_alarm_line, seat_alarm_label


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


def test_an_end_of_game_finding_keeps_the_cores_fields() -> None:
    forfeit = CheckAlarm("forfeit", "round 2: the host forfeited its own CPU seat", 2, 1)
    assert finding_facts(forfeit) == FindingFacts("forfeit", forfeit.detail, 2, 1)
    dropped = CheckAlarm("verify", "our bid never appears in the log", mine=True)
    assert finding_facts(dropped).mine and finding_facts(dropped).round is None


def test_a_verify_finding_reads_as_the_core_describes_it_to_every_front_end() -> None:
    for mine in (False, True):
        finding = CheckAlarm("verify", "entry 7: bad signature", mine=mine)
        assert finding_line(finding_facts(finding)) == "ALARM " + finding.describe()


def test_every_alarm_is_worded_alike() -> None:
    tampered = alarm_facts(Alarm(Reason.OPENING_MISMATCH, "seat 1's opening", seats=(1,)))
    forfeit = finding_facts(CheckAlarm("forfeit", "round 2: seat 1 forfeited", 2, 1))
    assert play_alarm_line(tampered) == "ALARM OPENING_MISMATCH: seat 1's opening"
    assert finding_line(forfeit) == "ALARM forfeit: round 2: seat 1 forfeited"
    assert seat_alarm_label(tampered.reason) == "ALARM opening mismatch"
    hostile = alarm_facts(Alarm(Reason.OPENING_MISMATCH, "a\x1b[2Jb" + "x" * 400))
    line = play_alarm_line(hostile)
    assert "\x1b" not in line and len(line) < 220  # cleaned and bounded once, here
