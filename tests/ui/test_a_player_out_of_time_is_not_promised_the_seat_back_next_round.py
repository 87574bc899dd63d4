"""A player whose time bank ran out while they stayed at the table is not told "You are back;
your seat returns at the next round": the host gives a seat back only to its player
reconnecting, so a CPU went on playing it to the end of the game while the screen kept the
promise (seen at a hosted table: seven rounds). The screen says the bank ran out, who plays
the seat, and how to take it back: q and join again; at the host's own seat, which cannot
reconnect, that it is for the rest of the game. A seat that left and came back is still back
next round."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.core.table import Note
from p2pdice.ui.facts import note_facts
from p2pdice.ui.viewmodel import table_model
from tests.ui.helpers import bidding, snap_of

OUT_OF_TIME = (note_facts(Note("absent", 1, 0, reason="stalled")),)


def _out_of_time(**kw):
    snap = snap_of(bidding(), me=0, hand=(), absent=frozenset({0}), stand_ins=frozenset({0}))
    return replace(snap, notes=OUT_OF_TIME, **kw)


def test_a_joined_player_is_told_to_join_again() -> None:
    model = table_model(_out_of_time())
    assert model.hand_label == (
        "Your time bank ran out: a CPU plays your seat. To take it back, q and join again."
    )
    assert model.seats[0].status != "back next round"


def test_the_hosts_own_player_is_told_it_is_for_the_rest_of_the_game() -> None:
    model = table_model(_out_of_time(hosting=True))
    assert (
        model.hand_label
        == "Your time bank ran out: a CPU plays your seat for the rest of the game."
    )


def test_a_player_who_left_and_came_back_is_back_next_round() -> None:
    left = (note_facts(Note("absent", 1, 0, reason="grace_expired")),)
    model = table_model(replace(_out_of_time(), notes=left))
    assert model.hand_label.startswith("You are back; your seat returns at the next round")
