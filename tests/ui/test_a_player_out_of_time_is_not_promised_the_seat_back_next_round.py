"""A player whose time bank ran out while they stayed at the table is not told "You are back;
your seat returns at the next round" as if it were already so: the host gives a seat back
only to its own key authenticating again, so a CPU went on playing it to the end of the game
while the screen kept the promise (seen at a hosted table: seven rounds). The screen says the
bank ran out, who plays the seat, and how to take it back: a move key (the client then
authenticates afresh, tests/ui/test_a_player_out_of_time_takes_the_seat_back_with_a_move_key.py),
at the host's own seat too. A seat that left and came back is back next round."""

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


TAKE_IT_BACK = (
    "Your time bank ran out: a CPU plays your seat. Press Enter or l when you are back: your"
    " seat returns at the next round."
)


def test_a_joined_player_is_told_how_to_take_the_seat_back() -> None:
    model = table_model(_out_of_time())
    assert model.hand_label == TAKE_IT_BACK
    assert model.seats[0].status != "back next round"


def test_the_hosts_own_player_is_told_the_same() -> None:
    assert table_model(_out_of_time(hosting=True)).hand_label == TAKE_IT_BACK


def test_a_player_who_left_and_came_back_is_back_next_round() -> None:
    left = (note_facts(Note("absent", 1, 0, reason="grace_expired")),)
    model = table_model(replace(_out_of_time(), notes=left))
    assert model.hand_label.startswith("You are back; your seat returns at the next round")


def test_once_a_move_key_asked_for_the_seat_the_player_is_back_next_round() -> None:
    model = table_model(_out_of_time(back_asked=True))
    assert model.hand_label == (
        "You are back; your seat returns at the next round (a CPU plays it until then)."
    )
    assert model.seats[0].status == "back next round"
