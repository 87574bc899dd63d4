"""A player back at the table while a CPU still plays their seat is told their seat returns
at the next round, not "Your dice: not dealt yet" and "away" (the host posts a seat's return
between rounds, SPEC: `return` events)."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.ui.screens import plain, render_table
from p2pdice.ui.viewmodel import table_model
from tests.ui.helpers import bidding, snap_of


def _back(stand_in: bool):
    snap = snap_of(bidding(), me=0, hand=(), absent=frozenset({0}))
    return replace(snap, stand_ins=frozenset({0}) if stand_in else frozenset())


def test_back_with_a_stand_in_says_the_seat_returns_next_round() -> None:
    model = table_model(_back(stand_in=True))
    assert model.hand_label == (
        "You are back; your seat returns at the next round (a CPU plays it until then)."
    )
    assert model.seats[0].status == "back next round"
    screen = plain(render_table(model, columns=80, height=30))
    assert "not dealt yet" not in screen and "away" not in screen


def test_back_without_a_stand_in_says_the_host_moves_for_it() -> None:
    model = table_model(_back(stand_in=False))
    assert "your seat returns at the next round (the host moves for it" in model.hand_label


def test_others_still_see_the_seat_away() -> None:
    snap = replace(_back(stand_in=True), me=1, mine=(1,))
    assert table_model(snap).seats[0].status == "away, CPU stand-in"


def test_while_still_reconnecting_the_seat_is_not_yet_back() -> None:
    snap = replace(_back(stand_in=True), link="reconnecting")
    assert "back" not in table_model(snap).hand_label


def test_the_seats_turn_played_by_the_stand_in_offers_no_bid_entry() -> None:
    snap = snap_of(bidding(), me=1, hand=(), absent=frozenset({1}), stand_ins=frozenset({1}))
    model = table_model(snap)  # seat 1's turn, played by its stand-in
    assert model.entry is None and not model.my_turn
    assert model.turn_line == "Your seat's turn: its CPU stand-in plays it until the next round."
