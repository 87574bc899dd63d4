"""benchmarks/bluff_shares.py: the share of openings and of changes of face that bluff, read
off a bot's mixed moves in heads-up self-play."""

from __future__ import annotations

import math

import pytest

from benchmarks.bluff_shares import self_play
from p2pdice.core.game import Action, Challenge, PlaceBid
from p2pdice.core.rules import preset
from p2pdice.core.view import SeatView

#: Five dice, ones wild: a face is unsupported with at most one die counting toward it
#: (five thirds on average), which a hand meets with chance (2/3)^5 + 5 (1/3) (2/3)^4.
FIVE_DICE_UNSUPPORTED = (2 / 3) ** 5 + 5 * (1 / 3) * (2 / 3) ** 4


def fives_then_sixes(view: SeatView) -> list[tuple[float, Action]]:
    """Opens on fives, answers fives with sixes (a change of face), calls sixes."""
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    lowest = view.lowest_bids_per_face()
    if standing is None:
        return [(1.0, PlaceBid(seat, lowest[5]))]
    if standing.face == 5 and 6 in lowest:
        return [(1.0, PlaceBid(seat, lowest[6]))]
    return [(1.0, Challenge(seat))]


def test_openings_and_changes_of_face_count_bluffs_as_often_as_hands_lack_the_face() -> None:
    rows = self_play(preset("classic", seats=2), fives_then_sixes, games=600, seed=3)
    first = rows[(5, 5)]  # round 1 only: a die is lost every round
    assert first.openings == 600
    assert first.changes == 600
    # Whatever the face named, the hand lacks it as often as a hand lacks any one face.
    assert first.opening_share == pytest.approx(FIVE_DICE_UNSUPPORTED, abs=0.06)
    assert first.change_share == pytest.approx(FIVE_DICE_UNSUPPORTED, abs=0.06)


def test_a_bot_that_never_changes_face_has_no_change_share() -> None:
    def sixes_or_call(view: SeatView) -> list[tuple[float, Action]]:
        seat = view.seat
        assert seat is not None
        if view.standing_bid is None:
            return [(1.0, PlaceBid(seat, view.lowest_bids_per_face()[6]))]
        return [(1.0, Challenge(seat))]

    rows = self_play(preset("classic", seats=2), sixes_or_call, games=50, seed=1)
    assert all(row.changes == 0 and math.isnan(row.change_share) for row in rows.values())
    assert sum(row.openings for row in rows.values()) > 50
