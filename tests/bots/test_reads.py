"""hard's opponent model, learnt within a game: each gauntlet style is read for what it is."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.reads import ANCHOR, HABIT_SHARPNESS, UNREAD, opponent_reads
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Call, Outcome, PlacedBid, RoundResult
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView


def _results_against(style: str, seed: int, rules: Rules | None = None) -> tuple[RoundResult, ...]:
    """The finished rounds of one real heads-up game, hard at seat 0, as hard last saw them."""
    hard = load_bot("hard")
    seen: list[tuple[RoundResult, ...]] = []

    def watching(view: SeatView, rng: random.Random) -> Action:
        seen.append(view.results)
        return hard(view, rng)

    rules = rules or preset("classic", seats=2)
    play_game(rules, [watching, load_bot(style)], random.Random(seed))
    return max(seen, key=len)


SEEDS = range(4, 12)


@pytest.mark.parametrize(
    ("style", "check"),
    [
        # Read as a Bayesian reader, it believes our bids more than a seat judging by its
        # own hand: the same few calls then fit a threshold one step higher.
        ("never-calls", lambda read: read.calls_below <= (0.15 if read.bayes else 0.1)),
        # Four or five reveals move the threshold well above the anchor (the prior holds it
        # back from 1.0 until there is more evidence).
        ("always-calls", lambda read: read.calls_below >= 0.5),
        # Its bids do not follow its hand: read as random (its smallest steps fit that
        # better than the modelled "away from the hand" softmax).
        ("misleading", lambda read: read.sharpness <= 0),
        ("medium", lambda read: 0.25 <= read.calls_below <= 0.45 and read.sharpness > 0),
    ],
)
def test_each_style_is_read_for_what_it_is(style: str, check) -> None:  # type: ignore[no-untyped-def]
    # In most of eight games: a short one (hard won the first five rounds) shows too little
    # for some reads, and which games are short moves with every change to hard's play.
    reads = [
        opponent_reads(preset("classic", seats=2), _results_against(style, seed))[1]
        for seed in SEEDS
    ]
    assert sum(bool(check(read)) for read in reads) >= 5, reads


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_misleading_in_perudo_is_read_as_bidding_by_habit(seed: int) -> None:
    # In perudo it always bids aces (it holds fewest of them, as every hand does): its
    # steady small ace raises look "mildly hand-led" to the softmax, which would credit it
    # with aces; the hand-blind habit model fits them better, so its bids are discounted.
    rules = preset("perudo", seats=2)
    results = _results_against("misleading", seed, rules)
    assert len(results) >= 4
    read = opponent_reads(rules, results)[1]
    assert read.sharpness == HABIT_SHARPNESS, read


def test_medium_in_perudo_is_still_read_as_hand_led() -> None:
    rules = preset("perudo", seats=2)
    read = opponent_reads(rules, _results_against("medium", 4, rules))[1]
    assert read.sharpness > 0, read


def test_no_evidence_means_the_anchor() -> None:
    assert opponent_reads(preset("classic", seats=2), ()) == {}
    assert ANCHOR.calls_below == 0.35


def _credits(style: str, mode: str) -> list[float]:
    rules = preset(mode, seats=2)
    reads = [opponent_reads(rules, _results_against(style, seed, rules)) for seed in SEEDS]
    return [r[1].credit for r in reads if 1 in r]


def test_a_bid_crediting_reader_is_read_as_riding_others_bids() -> None:
    # It raises on the face another seat named, crediting that seat with two dice of it.
    # One game of eight may show too little of that to tell (a short game in which it
    # seldom raised on a face hard named).
    classic = _credits("crediting-reader", "classic")
    assert len(classic) == len(SEEDS) and sum(c >= 0.9 for c in classic) >= len(SEEDS) - 1, classic
    perudo = sorted(_credits("crediting-reader", "perudo"))
    assert perudo[len(perudo) // 2] >= 0.8, perudo


@pytest.mark.parametrize("style", ["medium", "never-calls", "weakest-face", "style-switcher"])
def test_a_seat_that_bids_from_its_own_hand_is_not_read_as_riding(style: str) -> None:
    # Crediting a seat that does not ride would make hard's bluffs look safe against it.
    # One game of eight may lean a little (weakest-face's bluffs on a face hard named fit the
    # rider's model for a round or two), never past even odds.
    classic = _credits(style, "classic")
    assert sum(c > 0.1 for c in classic) <= 1 and max(classic) < 0.5, classic
    perudo = _credits(style, "perudo")  # ace raises fit either model in a game or two
    assert sum(c > 0.5 for c in perudo) <= 2 and max(perudo) < 0.9, perudo


def test_a_stranger_is_taken_to_judge_bids_by_its_own_hand() -> None:
    assert UNREAD.credit == 0.0 and ANCHOR.credit == 0.0


def _called_round(hands: tuple[tuple[int, ...], tuple[int, ...]], last: Bid) -> RoundResult:
    """A heads-up round of two dice each: seat 0 opened two twos, seat 1 raised to `last`,
    and seat 0 called it."""
    return RoundResult(
        round=1,
        palifico_round=False,
        starter=0,
        bids=(PlacedBid(0, Bid(2, 2)), PlacedBid(1, last)),
        call=Call.CHALLENGE,
        caller=0,
        hands=hands,
        count=0,
        outcome=Outcome.BID_FAILS,
        loser=1,
        gainer=None,
        dice_before=(2, 2),
        dice_after=(2, 1),
        eliminated=(),
        forfeited=(),
        next_starter=1,
        palifico_next=False,
    )


def test_a_call_with_no_legal_raise_left_says_nothing_of_the_callers_threshold() -> None:
    rules = preset("classic", seats=2)
    hands = ((1, 1), (3, 4))
    # Four sixes of four dice: nothing can be bid over it, so seat 0's call, its only
    # decision facing a bid, was forced: no evidence, no read.
    assert 0 not in opponent_reads(rules, (_called_round(hands, Bid(4, 6)),))
    # Three sixes can still be raised: calling it holding two wild aces is calling a bid its
    # hand made likely, read as a high threshold.
    free = opponent_reads(rules, (_called_round(hands, Bid(3, 6)),))[0]
    assert free.calls_below > ANCHOR.calls_below
