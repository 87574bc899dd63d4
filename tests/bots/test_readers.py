"""The two readers of the stronger gauntlet do what docs/bots.md says: the crediting reader
credits bids with dice and decides on them, the sampler deals hands that explain the bids."""

from __future__ import annotations

import random

from p2pdice.bots.readers import (
    SeatRead,
    credited_count,
    credited_dice,
    every_hand,
    hand_posterior,
    sample_deals,
    seat_reads,
)
from p2pdice.bots.registry import Bot, load_bot
from p2pdice.bots.sim import roll
from p2pdice.core.bids import Bid, count_matching
from p2pdice.core.game import (
    Challenge,
    Deal,
    Phase,
    PlaceBid,
    PlacedBid,
    Reveal,
    RoundResult,
    StartNextRound,
    apply,
    new_game,
)
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView, seat_view
from tests.support.views import bidding_view

CLASSIC = preset("classic", seats=2)
NATURAL = preset("classic", seats=2, ones="natural")


def test_crediting_reader_credits_two_dice_to_an_opening_or_a_new_face_and_one_to_a_step() -> None:
    rules = preset("classic", seats=3)
    bids = (
        PlacedBid(1, Bid(2, 4)),  # opening: two 4s
        PlacedBid(2, Bid(3, 4)),  # a step on 4s: one 4
        PlacedBid(0, Bid(3, 6)),  # its own bid: nothing
        PlacedBid(1, Bid(5, 6)),  # a jump of two on 6s: two 6s (seat 1 now credited all 4 dice)
        PlacedBid(2, Bid(6, 2)),  # a new face: two 2s (seat 2 now credited all 3 dice)
        PlacedBid(0, Bid(6, 5)),
        PlacedBid(1, Bid(7, 5)),  # nothing left to credit: seat 1 holds 4 dice
    )
    view = bidding_view(rules, (5, 5, 5, 1, 3), (5, 4, 3), bids)
    assert credited_dice(view) == {1: {4: 2, 6: 2}, 2: {4: 1, 2: 2}}


def test_crediting_reader_counts_credited_dice_as_shown() -> None:
    view = bidding_view(CLASSIC, (5, 2, 3, 4, 6), (5, 5), (PlacedBid(1, Bid(3, 5)),))
    credits = credited_dice(view)
    assert credits == {1: {5: 2}}
    fives = credited_count(view, credits, 5)
    # Its own 5, two credited 5s, and three unseen dice nobody was credited with.
    assert (fives.own, fives.credited, fives.free) == (1, 2, 3)
    assert fives.holds(3) == 1.0
    sixes = credited_count(view, credits, 6)
    assert (sixes.own, sixes.credited, sixes.free) == (1, 0, 3)


def test_crediting_reader_believes_an_opening_that_medium_calls() -> None:
    # 3 x 5s with no 5 in hand is 21% likely from its own dice: medium calls. Credited with
    # two 5s it is 70%; the reader raises on its best face instead.
    view = bidding_view(CLASSIC, (2, 3, 4, 6, 6), (5, 5), (PlacedBid(1, Bid(3, 5)),))
    assert load_bot("medium")(view, random.Random(1)) == Challenge(0)
    assert load_bot("crediting-reader")(view, random.Random(1)) == PlaceBid(0, Bid(3, 6))


def test_crediting_reader_rides_the_face_another_seat_named() -> None:
    # Holding one 5 and one 6, medium moves to 3 x 6s (54%), the reader to 4 x 5s: with the
    # two credited 5s that needs one more among three dice (70%).
    view = bidding_view(CLASSIC, (5, 2, 3, 4, 6), (5, 5), (PlacedBid(1, Bid(3, 5)),))
    assert load_bot("medium")(view, random.Random(1)) == PlaceBid(0, Bid(3, 6))
    assert load_bot("crediting-reader")(view, random.Random(1)) == PlaceBid(0, Bid(4, 5))


def test_sampler_deals_every_seat_its_dice_and_keeps_its_own_hand() -> None:
    rules = preset("perudo", seats=4)
    bids = (PlacedBid(1, Bid(2, 3)), PlacedBid(2, Bid(3, 3)), PlacedBid(3, Bid(2, 1)))
    view = bidding_view(rules, (4, 4, 1), (3, 2, 4, 5), bids)
    deals = sample_deals(view, random.Random(5), samples=50).hands(view)
    assert len(deals) == 50
    for deal in deals:
        assert [len(hand) for hand in deal] == [3, 2, 4, 5]
        assert deal[0] == (1, 4, 4)


def _share_holding(view_hands: list[tuple[tuple[int, ...], ...]], seat: int, face: int) -> float:
    held = [count_matching((deal[seat],), face, wild_ones=False) for deal in view_hands]
    return sum(1 for n in held if n) / len(held)


def test_sampler_samples_hands_that_explain_the_bids() -> None:
    # Natural, three dice each. Before any bid the other seat holds a 6 in 42% of deals; after
    # it opens 3 x 6s (nearly impossible without a 6 or two) in most of them.
    before = bidding_view(NATURAL, (2, 3, 4), (3, 3))
    after = bidding_view(NATURAL, (2, 3, 4), (3, 3), (PlacedBid(1, Bid(3, 6)),))
    rng = random.Random(2)
    unread = _share_holding(sample_deals(before, rng, samples=400).hands(before), 1, 6)
    read = _share_holding(sample_deals(after, rng, samples=400).hands(after), 1, 6)
    assert 0.35 < unread < 0.5
    assert read > 0.85


def test_sampler_weighs_each_hand_by_every_bid_its_seat_made() -> None:
    # The more 6s the other seat's bids claim, the more weight hands with 6s get.
    opened = bidding_view(NATURAL, (2, 3, 4), (3, 3), (PlacedBid(1, Bid(1, 6)),))
    again = bidding_view(
        NATURAL,
        (2, 3, 4),
        (3, 3),
        (PlacedBid(1, Bid(1, 6)), PlacedBid(0, Bid(2, 2)), PlacedBid(1, Bid(3, 6))),
    )

    def sixes(view: SeatView) -> float:
        weights = hand_posterior(view, 1, SeatRead())
        hands = every_hand(3)
        mean = sum(w * hand.count(6) for w, hand in zip(weights, hands, strict=True))
        return mean / sum(weights)

    assert 0.5 < sixes(opened) < sixes(again)


def test_sampler_calls_a_bid_no_deal_can_hold_and_raises_one_it_holds_itself() -> None:
    sampler = load_bot("sampler")
    impossible = bidding_view(NATURAL, (2, 3), (2, 2), (PlacedBid(1, Bid(3, 6)),))
    assert sampler(impossible, random.Random(1)) == Challenge(0)
    held = bidding_view(CLASSIC, (6, 6, 6, 6, 1), (5, 5), (PlacedBid(1, Bid(3, 6)),))
    assert isinstance(sampler(held, random.Random(1)), PlaceBid)


def _results(rules: Rules, bots: list[Bot], seed: int) -> tuple[RoundResult, ...]:
    """Every round of one whole game between `bots`, reveals included."""
    rng = random.Random(seed)
    state = new_game(rules)
    while state.phase != Phase.GAME_OVER:
        hands = roll(rng, state.dice)
        state = apply(state, Deal(rng.choice(state.survivors) if state.starter is None else None))
        while state.phase == Phase.BIDDING:
            seat = state.turn
            assert seat is not None
            state = apply(state, bots[seat](seat_view(state, seat, hands[seat]), rng))
        state = apply(state, Reveal(hands))
        if state.phase == Phase.ROUND_OVER:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    return state.results


def test_sampler_reads_from_the_reveals_who_bids_away_from_their_hand_and_who_calls_everything() -> (
    None
):
    names = ["medium", "misleading", "always-calls", "never-calls"]
    rules = preset("classic", seats=4)
    reads = seat_reads(_results(rules, [load_bot(n) for n in names], 4), rules)
    medium, misleading, caller, never = (reads[s] for s in range(4))
    assert medium.sharpness > 0 > misleading.sharpness
    assert caller.calls_below > medium.calls_below > never.calls_below
