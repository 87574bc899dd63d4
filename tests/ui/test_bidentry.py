"""Typed bids and stepping through legal bids only."""

from __future__ import annotations

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.rules import Rules
from p2pdice.core.view import seat_view
from p2pdice.ui.bidentry import BidChoices, BidSyntaxError, parse_bid
from p2pdice.ui.viewmodel import choices_of, start_cursor

from .helpers import HANDS, bidding


@pytest.mark.parametrize(
    "text, bid",
    [
        ("4 5", Bid(4, 5)),
        ("4x5", Bid(4, 5)),
        ("4 x 5s", Bid(4, 5)),
        ("four 5s", Bid(4, 5)),
        ("Four Fives", Bid(4, 5)),
        ("4 of 5s", Bid(4, 5)),
        ("4 5's", Bid(4, 5)),
        ("45", Bid(4, 5)),
        ("eleven 2s", Bid(11, 2)),
        ("twenty two 3s", Bid(22, 3)),
        ("3 aces", Bid(3, 1)),
        ("one 6", Bid(1, 6)),
    ],
)
def test_parse_bid_accepts_the_usual_ways_of_saying_a_bid(text: str, bid: Bid) -> None:
    assert parse_bid(text) == bid


@pytest.mark.parametrize("text", ["", "x", "4", "4 7", "banana 5", "0 5", "4 5 6"])
def test_parse_bid_explains_what_is_wrong(text: str) -> None:
    with pytest.raises(BidSyntaxError) as err:
        parse_bid(text)
    assert str(err.value)


def test_stepping_only_offers_legal_bids() -> None:
    state = bidding(bids=((0, Bid(3, 4)),))
    view = seat_view(state, 1, HANDS[1])
    choices = choices_of(view)
    cursor = start_cursor(view)
    assert cursor == Bid(4, 4)  # the lowest raise on the standing face
    seen = set()
    for dq, df in [(0, -1)] * 6 + [(-1, 0)] * 20 + [(0, 1)] * 8 + [(1, 0)] * 30 + [(0, -1)] * 8:
        cursor = choices.step_quantity(cursor, dq) if dq else choices.step_face(cursor, df)
        assert cursor is not None and view.is_legal_bid(cursor), cursor
        seen.add(cursor)
    assert Bid(4, 2) in seen and Bid(15, 2) in seen and Bid(15, 6) in seen
    assert choices.step_quantity(choices.step_face(Bid(4, 4), 1), -1) == Bid(3, 5)
    assert all(b.face != 1 for b in seen)  # wild ones are never bid


def test_face_change_keeps_the_quantity_when_legal_else_the_lowest() -> None:
    choices = BidChoices({2: 4, 3: 4, 4: 3, 5: 3, 6: 3}, 15)
    assert choices.step_face(Bid(3, 5), -1) == Bid(3, 4)
    assert choices.step_face(Bid(3, 4), -1) == Bid(4, 3)
    assert choices.step_face(Bid(3, 6), 1) == Bid(3, 6)  # no face above 6
    assert choices.step_quantity(Bid(15, 6), 1) == Bid(15, 6)  # capped at dice in play
    assert choices.step_quantity(Bid(3, 6), -1) == Bid(3, 6)


def test_no_raise_left_means_no_cursor() -> None:
    state = bidding(Rules(seats=2, starting_dice=1, first_starter="seat0"), bids=((0, Bid(2, 6)),))
    view = seat_view(state, 1, (3,))
    assert choices_of(view).empty and start_cursor(view) is None and view.can_challenge


def test_opening_cursor_prefers_the_face_you_hold_most() -> None:
    state = bidding(bids=())
    view = seat_view(state, 0, (1, 4, 4, 2, 6))
    assert start_cursor(view) == Bid(1, 4)
