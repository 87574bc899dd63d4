"""Once the seat on turn has little of its time bank left, the host's status says when it runs
out of time and the table screen's turn line shows it, for that seat and for everyone else."""

from __future__ import annotations

from p2pdice.ui.viewmodel import table_model

from .helpers import bidding, snap_of


def test_the_seat_on_turn_sees_its_own_low_bank() -> None:
    model = table_model(snap_of(bidding(), me=1, bank_left=11.4))
    assert model.turn_line == "Your turn.  (Your time bank: out of time in 12 s)"


def test_the_others_see_whose_bank_is_low() -> None:
    model = table_model(snap_of(bidding(), me=0, bank_left=4.0))
    assert model.turn_line == "Bob is thinking...  (Bob's time bank: out of time in 4 s)"


def test_a_bank_that_is_not_low_is_not_shown() -> None:
    assert table_model(snap_of(bidding(), me=0)).turn_line == "Bob is thinking..."
