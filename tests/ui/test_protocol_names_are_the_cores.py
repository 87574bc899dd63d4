"""The phases, message types and note kinds the screens and the clock test for are the core's:
derived from its transition table, or (the note kinds, which the core names only where it
makes each note) the very kinds its replayer makes from the example transcripts."""

from __future__ import annotations

import json

from p2pdice.core.table import Replayer, TablePhase
from p2pdice.core.transcript import parse_entry
from p2pdice.core.transitions import TRANSITIONS
from p2pdice.ui.facts import NoteFacts
from p2pdice.ui.viewmodel import DEALING_PHASES, FAULT_KINDS, NEXT_ROUND, fault_line
from tests.support.vectors import PROTOCOL

#: Host events that put a CPU in a seat's place or give it back (not acts in its place).
STAND_IN_EVENTS = ("stand_in", "return")


def test_the_next_round_is_the_message_a_player_chooses_after_a_result() -> None:
    assert NEXT_ROUND == "next_round"


def test_a_round_deals_in_the_phases_between_its_opening_and_its_bidding() -> None:
    phases = list(TablePhase)
    dealing = phases[phases.index(TablePhase.BETWEEN) : phases.index(TablePhase.BIDDING)]
    assert DEALING_PHASES == {str(p) for p in dealing} == {"between", "commit", "contribute"}


def _notes_by_event() -> dict[str, set[str]]:
    """Host event type -> the kinds of the notes the core made for it, over every example
    game (the mutants are broken on purpose)."""
    made: dict[str, set[str]] = {}
    examples = PROTOCOL / "examples"
    for game in json.loads((examples / "games.json").read_text()):  # not mutants nor copies
        path = examples / game["file"]
        replayer = Replayer()
        for line in path.read_bytes().splitlines():
            entry = parse_entry(line)
            notes = replayer.feed(entry)
            if entry.event is not None:
                made.setdefault(str(entry.event["type"]), set()).update(n.kind for n in notes)
    return made


def test_the_fault_notes_are_those_the_core_makes_for_acts_in_a_seats_place() -> None:
    acts = {kind for row in TRANSITIONS if row.in_seats_place for kind in row.kinds}
    made = _notes_by_event()
    assert acts | set(STAND_IN_EVENTS) <= set(made), "an example lacks one of these events"
    expected = set().union(*(made[event] for event in acts | set(STAND_IN_EVENTS)))
    assert set(FAULT_KINDS) == expected


def test_every_fault_note_has_a_line_and_no_other_note_does() -> None:
    names = ["Ann", "Bob"]
    for kind in FAULT_KINDS:
        assert fault_line(NoteFacts(kind, 1, 0), names), kind
    for kind in ("bid", "opened", "result", "joined", "game_over"):
        assert fault_line(NoteFacts(kind, 1, 0), names) is None, kind
