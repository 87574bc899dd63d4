"""The belief's sums run in C (map, reduce, per-count index groups) for speed; they must be
the plain Python loops' sums to the last bit, since hard's choices compare them, and a
game replayed must play the same."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.bots.belief import (
    add_by_match,
    bid_key,
    bid_of_key,
    hand_space,
    history_key,
    match_column,
    match_groups,
    reply_model,
)
from p2pdice.core.bids import Bid, lowest_bids_per_face, shared_bid
from p2pdice.core.rules import preset

weights = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_subnormal=True)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(1, 5),
    face=st.integers(1, 6),
    wild=st.booleans(),
    data=st.data(),
    start=st.lists(weights, min_size=6, max_size=6),
)
def test_adding_by_match_count_gives_the_plain_loops_floats(
    n: int, face: int, wild: bool, data: st.DataObject, start: list[float]
) -> None:
    size = len(hand_space(n)[0])
    values = data.draw(st.lists(weights, min_size=size, max_size=size))
    plain = start[: n + 1]
    for value, m in zip(values, match_column(n, face, wild), strict=True):
        plain[m] += value
    grouped = start[: n + 1]
    add_by_match(grouped, values, n, face, wild)
    assert [x.hex() for x in grouped] == [x.hex() for x in plain]


def test_match_groups_partition_the_hands_in_their_order() -> None:
    for n in range(1, 6):
        for face in range(1, 7):
            for wild in (False, True):
                groups = match_groups(n, face, wild)
                column = match_column(n, face, wild)
                assert sorted(i for g in groups for i in g) == list(range(len(column)))
                assert all(list(g) == sorted(g) for g in groups)
                assert all(column[i] == m for m, g in enumerate(groups) for i in g)


def test_the_reply_models_raises_and_chances_line_up_and_sum_to_one_with_the_call() -> None:
    rules = preset("classic", seats=2)
    call, raises, chances = reply_model(rules, False, 6, 3, Bid(2, 4), cornered=0.3)
    assert len(raises) == len(chances) and raises
    for i in range(len(call)):
        assert abs(call[i] + sum(c[i] for c in chances) - 1.0) < 1e-9
    lowest = lowest_bids_per_face(
        rules, Bid(2, 4), dice_in_play=6, palifico_round=False, bidder_dice=3
    )
    assert set(lowest.values()) <= set(raises)


def test_a_shared_bid_is_one_object_equal_to_a_new_one() -> None:
    assert shared_bid(3, 5) is shared_bid(3, 5)
    assert shared_bid(3, 5) == Bid(3, 5) and hash(shared_bid(3, 5)) == hash(Bid(3, 5))
    # An equal quantity of another type gets its own object: True must not stand for 1.
    shared_bid(True, 2)  # type: ignore[arg-type]
    assert type(shared_bid(1, 2).quantity) is int


@given(quantity=st.integers(1, 60), face=st.integers(1, 6))
def test_a_bid_keyed_as_a_number_comes_back_as_the_same_bid(quantity: int, face: int) -> None:
    key = bid_key(Bid(quantity, face))
    assert bid_of_key(key) == Bid(quantity, face) and key != bid_key(None)
    assert bid_of_key(bid_key(None)) is None


def test_a_history_keyed_by_numbers_keeps_every_step_apart() -> None:
    credit = (2, 0, 0, 2, 0, 0, 0)
    history = ((None, Bid(2, 3), credit), (Bid(2, 3), Bid(3, 3), credit, None))
    assert history_key(history) == ((0, bid_key(Bid(2, 3)), credit), (19, 27, credit, None))
    other = ((None, Bid(2, 3), credit), (Bid(2, 3), Bid(2, 4), credit, None))
    assert history_key(other) != history_key(history)
