"""hard values the outcomes of the house rules of issue 27 by what those rules make them cost.

Under `challenge_penalty` difference a challenge's loser pays max(1, |count - bid|) dice (at
most what it holds); under `exact_reward` others-lose a right exact call costs every other
seat a die; a palifico round counts ones as `palifico_kind` says. easy, medium and hard
still beat each other in the order of their names under every one of them.
"""

from __future__ import annotations

import dataclasses

import pytest

from p2pdice.bots import hard as hard_module
from p2pdice.bots.belief import challenge_chance, face_marginals
from p2pdice.bots.odds import at_least
from p2pdice.bots.reads import UNREAD, opponent_reads
from p2pdice.bots.tournament import run_tournament
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, ExactCall, PlacedBid
from p2pdice.core.rules import ChallengePenalty, ExactReward, Palifico, PalificoKind, Rules
from p2pdice.core.view import SeatView
from tests.support.views import bidding_view

HEADS_UP = Rules(seats=2)
DIFFERENCE = HEADS_UP.with_options(challenge_penalty=ChallengePenalty.DIFFERENCE)


def _call_values(view: SeatView) -> dict[type, float]:
    calls, _ = hard_module._options(view)
    return {type(action): value for value, action in calls}


def _others_count(view: SeatView, face: int) -> list[float]:
    """hard's belief over the other seats' matching dice on `face`, for the test's own sums."""
    reads = opponent_reads(view.rules, view.results)
    odds, _ = hard_module._face_odds(view, reads)
    return odds[face].all_dist


def _liar_worth(
    dist: list[float], own: int, quantity: int, mine: int, theirs: int, rival: float
) -> float:
    """Expected dice of calling Liar under `difference`, written from RULES.md R4 alone."""
    total = 0.0
    for others, chance in enumerate(dist):
        count = own + others
        owed = max(1, abs(count - quantity))
        if count >= quantity:  # the bid stands: we pay, and our last die costs more
            paid = min(owed, mine)
            total -= chance * (paid + (hard_module.LAST_DIE_PREMIUM if paid == mine else 0.0))
        else:
            total += chance * rival * min(owed, theirs)
    return total


@pytest.mark.parametrize(
    ("hand", "dice", "bid"),
    [
        ((2, 3, 4, 6, 6), (5, 5), Bid(4, 6)),
        ((1, 6, 2), (3, 4), Bid(3, 6)),  # a stand costs up to all three of ours
        ((2, 3, 4, 5, 5), (5, 2), Bid(7, 6)),  # the bidder can pay at most its two dice
    ],
)
def test_with_calls_by_dice_a_liar_call_is_worth_the_expected_dice_the_loser_pays(
    hand: tuple[int, ...], dice: tuple[int, ...], bid: Bid, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hard_module, "CALLS_BY_DICE", True)
    view = bidding_view(DIFFERENCE, hand, dice, (PlacedBid(1, bid),))
    dist = _others_count(view, bid.face)
    expected = _liar_worth(dist, view.own_matching(bid.face), bid.quantity, dice[0], dice[1], 1.0)
    assert _call_values(view)[Challenge] == pytest.approx(expected)


def test_with_calls_by_dice_calling_a_bid_far_off_is_worth_more_than_one_just_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hard_module, "CALLS_BY_DICE", True)
    hand = (2, 2, 3, 3, 4)  # no sixes, no wild ones
    values: dict[tuple[str, int], float] = {}
    for rules in (HEADS_UP, DIFFERENCE):
        for quantity in (5, 9):
            view = bidding_view(rules, hand, (5, 5), (PlacedBid(1, Bid(quantity, 6)),))
            values[rules.challenge_penalty, quantity] = _call_values(view)[Challenge]
    # One die a loss: both bids are as good as sure to fail, so both calls are worth ~1.
    assert values["one", 9] - values["one", 5] < 0.2
    # Difference: nine sixes among the five unseen dice misses by four at least.
    assert values["difference", 9] > values["difference", 5] + 1.5


def test_by_default_hard_values_its_own_liar_call_by_the_chance_it_wins_under_difference() -> None:
    # Measured stronger (docs/bots.md, "House rules"): the dice a far-off count would cost
    # weigh the belief's least reliable tail.
    bids = (PlacedBid(1, Bid(9, 6)),)
    one = _call_values(bidding_view(HEADS_UP, (2, 2, 3, 3, 4), (5, 5), bids))[Challenge]
    difference = _call_values(bidding_view(DIFFERENCE, (2, 2, 3, 3, 4), (5, 5), bids))[Challenge]
    assert difference == pytest.approx(one)


def _called_raise(rules: Rules, hand: tuple[int, ...], bid: Bid) -> float:
    """hard's value of raising to `bid` when the next seat calls it (heads-up, 5 dice each)."""
    view = bidding_view(rules, hand, (5, 5), (PlacedBid(1, Bid(2, 2)),))
    reads = opponent_reads(view.rules, view.results)
    odds, _ = hard_module._face_odds(view, reads)
    follower = hard_module._Follower(seat=1, dice=5, unseen=5, read=reads.get(1, UNREAD))
    stakes = hard_module._Stakes.of(view)
    called, _ = hard_module._raise_value(odds[bid.face], bid.quantity, 1 / 3, follower, stakes)
    return called


def _called_raise_worth(rules: Rules, hand: tuple[int, ...], bid: Bid) -> float:
    """The same from RULES.md R4: per count of the follower's dice, the chance they call
    times what the loser pays."""
    view = bidding_view(rules, hand, (5, 5), (PlacedBid(1, Bid(2, 2)),))
    reads = opponent_reads(view.rules, view.results)
    odds, _ = hard_module._face_odds(view, reads)
    read = reads.get(1, UNREAD)
    total = 0.0
    for theirs, chance in enumerate(odds[bid.face].following):
        call = challenge_chance(at_least(bid.quantity - theirs, 5, 1 / 3), read.calls_below)
        count = view.own_matching(bid.face) + theirs
        owed = max(1, abs(count - bid.quantity))
        if count >= bid.quantity:
            total += chance * call * min(owed, 5)
        else:  # we pay, and all five of ours would cost the last-die premium too
            paid = min(owed, 5)
            total -= chance * call * (paid + (hard_module.LAST_DIE_PREMIUM if paid == 5 else 0))
    return total


@pytest.mark.parametrize("bid", [Bid(3, 5), Bid(5, 5), Bid(8, 5)])
def test_under_difference_a_called_raise_is_worth_the_expected_dice_the_loser_pays(
    bid: Bid,
) -> None:
    hand = (1, 5, 2, 3, 4)
    assert _called_raise(DIFFERENCE, hand, bid) == pytest.approx(
        _called_raise_worth(DIFFERENCE, hand, bid)
    )


def test_under_difference_an_overbid_costs_more_when_called_than_under_one() -> None:
    hand = (1, 5, 2, 3, 4)
    bid = Bid(8, 5)  # two of ours count: the follower would need six of its five dice
    assert _called_raise(DIFFERENCE, hand, bid) < _called_raise(HEADS_UP, hand, bid) - 1


def test_under_others_lose_a_right_exact_call_is_worth_a_die_of_every_rival() -> None:
    rules = Rules(seats=4, exact_call=True, exact_reward=ExactReward.OTHERS_LOSE)
    bid = Bid(5, 5)
    view = bidding_view(rules, (1, 1, 2, 3, 5), (4, 2, 2, 1), (PlacedBid(3, bid),))
    reads = opponent_reads(view.rules, view.results)
    odds, _ = hard_module._face_odds(view, reads)
    hit = odds[5].exact(5)
    rivals = 3 * hard_module.RIVAL_WEIGHT_MULTI
    expected = rivals * hit - (1 - hit) - hard_module.EXACT_MARGIN
    assert _call_values(view)[ExactCall] == pytest.approx(expected)


def test_at_a_four_seat_table_hard_calls_exact_at_the_cap_only_when_others_lose() -> None:
    # At the cap a regained die is nothing, so under regain the call can only lose; under
    # others-lose the same exact chance is worth three rivals' dice.
    bids = (PlacedBid(3, Bid(5, 5)),)
    chosen = {}
    for reward in ("regain", "others-lose"):
        rules = Rules(seats=4, exact_call=True, exact_reward=ExactReward(reward))
        view = bidding_view(rules, (1, 1, 2, 3, 5), (5, 2, 2, 1), bids)
        chosen[reward] = sum(c for c, a in hard_module.hard_policy(view) if a == ExactCall(0))
    assert chosen == {"regain": 0.0, "others-lose": 1.0}


def test_the_solved_endgame_is_played_under_difference_where_one_die_is_all_a_loser_has() -> None:
    bids = (PlacedBid(1, Bid(1, 4)),)
    one = hard_module._endgame_policy(bidding_view(HEADS_UP, (4,), (1, 1), bids))
    difference = hard_module._endgame_policy(bidding_view(DIFFERENCE, (4,), (1, 1), bids))
    assert one is not None
    assert difference == one
    exact = HEADS_UP.with_options(exact_call=True, exact_reward=ExactReward.OTHERS_LOSE)
    assert hard_module._endgame_policy(bidding_view(exact, (4,), (1, 1), bids)) is None


@pytest.mark.parametrize(
    ("kind", "wild"), [("both", False), ("ones-not-wild", False), ("face-fixed", True)]
)
def test_in_a_palifico_round_hard_counts_ones_as_the_palifico_kind_says(
    kind: str, wild: bool
) -> None:
    rules = Rules(seats=3, palifico=Palifico.FIXED, palifico_kind=PalificoKind(kind))
    view = bidding_view(rules, (1, 6), (2, 4, 4), ())
    view = dataclasses.replace(view, palifico_round=True)
    reads = opponent_reads(view.rules, view.results)
    odds, _ = hard_module._face_odds(view, reads)
    assert odds[6].own == (2 if wild else 1)
    p = 1 / 3 if wild else 1 / 6
    sixes = face_marginals(rules, True, 10, 4, ())[5]
    assert sixes[0] == pytest.approx((1 - p) ** 4)


#: Each house option on an otherwise default table. A palifico round needs three or more
#: survivors (RULES.md R5), so the palifico kinds are measured at three seats.
HOUSE = {
    "difference": (Rules(seats=2, challenge_penalty=ChallengePenalty.DIFFERENCE), 2),
    "others-lose": (Rules(seats=2, exact_call=True, exact_reward=ExactReward.OTHERS_LOSE), 2),
    "ones-not-wild": (Rules(palifico=Palifico.FIXED, palifico_kind=PalificoKind.ONES_NOT_WILD), 3),
    "face-fixed": (Rules(palifico=Palifico.FIXED, palifico_kind=PalificoKind.FACE_FIXED), 3),
}


@pytest.mark.parametrize("option", sorted(HOUSE))
def test_hard_beats_medium_under_each_house_rule(option: str) -> None:
    # Measured at 2,000 games: see docs/bots.md, "House rules". 80 games against a bound
    # far below the measured rate leave a wide margin for chance.
    rules, seats = HOUSE[option]
    bots = ("hard",) + ("medium",) * (seats - 1)
    result = run_tournament(rules.with_options(seats=seats), bots, games=80, seed=5)
    assert result.tallies["hard"].win_rate >= (0.6 if seats == 2 else 0.5), result.to_json()


@pytest.mark.parametrize("option", sorted(HOUSE))
def test_medium_beats_easy_under_each_house_rule(option: str) -> None:
    rules, seats = HOUSE[option]
    bots = ("medium",) + ("easy",) * (seats - 1)
    result = run_tournament(rules.with_options(seats=seats), bots, games=80, seed=5)
    assert result.tallies["medium"].win_rate >= (0.55 if seats == 2 else 0.4), result.to_json()
