"""Once the seat on turn has little of its time bank left, the host's status says when it runs
out of time and the table screen's turn line shows it, for that seat and for everyone else;
the host form offers the bank."""

from __future__ import annotations

from p2pdice.core.rules import Rules, TableKind, time_bank_default
from p2pdice.ui.facts import NoteFacts
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.viewmodel import fault_line, table_model

from .helpers import bidding, snap_of


def test_the_seat_on_turn_sees_its_own_low_bank() -> None:
    model = table_model(snap_of(bidding(), me=1, bank_left=11.4))
    assert model.turn_line == "Your turn.  (Your time bank: out of time in 12 s)"


def test_the_others_see_whose_bank_is_low() -> None:
    model = table_model(snap_of(bidding(), me=0, bank_left=4.0))
    assert model.turn_line == "Bob is thinking...  (Bob's time bank: out of time in 4 s)"


def test_a_bank_that_is_not_low_is_not_shown() -> None:
    assert table_model(snap_of(bidding(), me=0)).turn_line == "Bob is thinking..."


def test_the_host_form_offers_the_bank_on_tables_for_the_network_only() -> None:
    """Practice and pass-and-play tables share one device: nobody there holds the others
    hostage, and a practice player back from a break must not find a CPU in their seat."""
    standard = HostForm()
    assert "time_bank" in {f.key for f in standard.fields()}
    assert standard.values["time_bank"] == Rules().time_bank > 0
    for kind in (TableKind.PRACTICE, TableKind.PASS_AND_PLAY):
        assert HostForm(kind=kind).values["time_bank"] == 0 == time_bank_default(kind)


def test_what_happened_says_a_seat_ran_out_of_time() -> None:
    note = NoteFacts(kind="absent", round=4, seat=1, reason="stalled")
    assert fault_line(note, ["Ann", "Bob"]) == (
        "Bob ran out of time (their time bank is used up): the host moves for them"
    )
