"""The moves the host makes for a seat whose time bank ran out say so ("Ann's time bank ran
out, so the host called Liar for them"), not "Ann was away": the player was at the table, and
the reveal shows only its last two such lines, so the bank's own line was often not on
screen at all. A seat that comes back and is away later is "away" again."""

from __future__ import annotations

from p2pdice.core.table import Note
from p2pdice.ui.reveal import reveal_model

from .helpers import opened, revealed, snap_of


def test_a_stalled_seats_forced_moves_name_its_time_bank() -> None:
    notes = (
        *opened(1, (0, 1, 2)),
        Note("absent", 1, 0, reason="stalled"),
        Note("forced", 1, 0, reason="absent", action="bid"),
        Note("forced", 1, 0, reason="absent", action="challenge"),
    )
    model = reveal_model(snap_of(revealed(), me=1, notes=notes))
    assert model.faults[-2:] == (
        "Ann's time bank ran out, so the host made the lowest bid for them",
        "Ann's time bank ran out, so the host called Liar for them",
    ), model.faults


def test_a_seat_back_and_then_away_is_away() -> None:
    notes = (
        *opened(1, (0, 1, 2)),
        Note("absent", 1, 0, reason="stalled"),
        Note("returned", 1, 0),
        Note("absent", 1, 0, reason="grace_expired"),
        Note("forced", 1, 0, reason="absent", action="challenge"),
    )
    model = reveal_model(snap_of(revealed(), me=1, notes=notes))
    assert model.faults[-1] == "Ann was away, so the host called Liar for them", model.faults
