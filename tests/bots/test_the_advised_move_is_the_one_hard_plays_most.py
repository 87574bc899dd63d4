"""review and the drill name hard's move as the one its policy plays most often, summed per
move: a decoy or a near raise may list the same bid as a second entry."""

from __future__ import annotations

from p2pdice.bots.hard import likeliest
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, PlaceBid


def test_a_bid_listed_twice_outweighs_a_single_larger_entry() -> None:
    raise_ = PlaceBid(0, Bid(3, 4))
    policy = [(0.3, raise_), (0.4, Challenge(0)), (0.3, raise_)]
    assert likeliest(policy) == raise_


def test_a_single_entry_policy_is_its_move() -> None:
    assert likeliest([(1.0, Challenge(0))]) == Challenge(0)
