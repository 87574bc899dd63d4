"""Notes and alarms carry the facts a screen needs as fields (seat, reason, action, hand, ...),
so no front end has to parse their `detail` sentence."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import Faults, LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.bids import Bid
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.table import Note
from p2pdice.core.transcript import Entry
from tests.support.cheats import Game, kinds

VICTIM = 0


def _notes_of_a_game_with_faults() -> list[Note]:
    lt = LocalTable(
        Rules(seats=3, starting_dice=2, turn_timer=30),
        [load_bot("easy")] * 3,
        rng=random.Random(7),
        faults=Faults.uniform(0.2),
    )
    lt.seat_everyone()
    lt.play(max_rounds=60)
    return lt.host.notes


def test_each_note_names_its_facts_in_fields_as_well_as_in_its_sentence() -> None:
    notes = _notes_of_a_game_with_faults()
    by_kind: dict[str, list[Note]] = {}
    for note in notes:
        by_kind.setdefault(note.kind, []).append(note)
    for note in by_kind["round"]:
        assert note.detail == f"attempt {note.attempt}"
    for note in by_kind["bid"]:
        assert isinstance(note.bid, Bid) and note.detail == str(note.bid)
    for note in by_kind["opened"]:
        assert note.hand is not None and note.detail == " ".join(map(str, note.hand))
    for note in by_kind["result"]:
        assert note.outcome == note.detail
    for note in by_kind.get("forced", []):
        assert note.reason in ("timer", "absent")
        assert note.action in ("bid", "challenge", "next_round")
        assert note.detail == f"{note.reason}: {note.action}"
    for note in by_kind.get("absent", []) + by_kind.get("forfeit", []):
        assert note.reason == note.detail
    assert by_kind["game_over"][0].reason in ("finished", "abandoned")
    assert by_kind.get("forced") or by_kind.get("absent"), "the faults made the host act"


def test_an_alarm_about_a_forged_message_names_the_seat_and_the_entry_kind() -> None:
    g = Game(seed=1)
    g.hold(kinds("bid", "challenge", "exact"))
    g.start()
    seat = g.host.state.game.turn
    forged_msg = g.sign(seat, "bid", signer=g.host.key, round=1, quantity=1, face=2)
    witness = g.peer((seat + 1) % 3)
    alarm = g.refused_by_peer(g.forge(msg=forged_msg).line, Reason.BAD_SIGNATURE, peer=witness)
    assert alarm.seats == (seat,) and alarm.seat == seat
    assert alarm.entry == "msg:bid"


def test_a_dropped_message_alarm_names_our_seat_and_the_type_of_what_was_dropped() -> None:
    g = Game(seed=3)
    g.hold(
        lambda s, m: s == VICTIM and m.type == "open" and m.body["round"] == 1, acknowledged=True
    )
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:absent")))
    alarm = g.alarms(VICTIM)[0]
    assert alarm.reason == Reason.MESSAGE_DROPPED
    assert (alarm.seats, alarm.dropped, alarm.entry) == ((VICTIM,), "open", "event:absent")


def test_an_alarm_about_a_tampered_contribution_names_that_seat() -> None:
    g = Game(seed=2)
    honest: list[Entry] = []

    def swap_contribution(entry: Entry) -> Entry | None:
        if entry.event is None or entry.kind != "event:beacon" or honest:
            return None
        honest.append(entry)
        event = {**entry.event, "contributions": list(entry.event["contributions"])}
        other = event["contributions"][1]
        body = {**other["body"], "contribution": "00" * 32}
        event["contributions"][1] = {**other, "body": body}
        return g.forge(event=event, seq=entry.seq, prev=entry.prev)

    g.tamper(VICTIM, swap_contribution)
    g.start()
    alarm = g.alarms(VICTIM)[0]
    assert alarm.entry == "event:beacon"
    assert alarm.reason == Reason.BAD_SIGNATURE  # the changed contribution is no longer seat 1's
    assert alarm.seats == (1,)
