"""Heads-up, hard does not count its own dice twice: an opponent's raise on a face hard named
may ride hard's bid, so hard's belief takes it for less than that opponent's dice."""

from __future__ import annotations

import random

from p2pdice.bots.belief import face_marginals
from p2pdice.bots.hard import believed_chances
from p2pdice.bots.reads import opponent_reads
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Phase, PlacedBid, RoundResult
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView

OUR_HAND = (5, 5, 2, 3, 4)  # two fives, no ones
OUR_BID = Bid(3, 5)
THEIR_RAISE = Bid(4, 5)  # holds when they have two fives or more (ones wild)


def _results_against(style: str, seed: int, rules: Rules) -> tuple[RoundResult, ...]:
    """The finished rounds of one real heads-up game, hard at seat 0."""
    hard = load_bot("hard")
    seen: list[tuple[RoundResult, ...]] = []

    def watching(view: SeatView, rng: random.Random) -> Action:
        seen.append(view.results)
        return hard(view, rng)

    play_game(rules, [watching, load_bot(style)], random.Random(seed))
    return max(seen, key=len)


def _facing_their_raise(rules: Rules, results: tuple[RoundResult, ...]) -> SeatView:
    """Five dice each; we bid three fives, they raised to four fives; our turn."""
    return SeatView(
        seat=0,
        rules=rules,
        hand=OUR_HAND,
        dice=(5, 5),
        round=len(results) + 1,
        phase=Phase.BIDDING,
        starter=0,
        turn=0,
        bids=(PlacedBid(0, OUR_BID), PlacedBid(1, THEIR_RAISE)),
        palifico_round=False,
        results=results,
        ranking=(),
        next_starter=None,
    )


def _hand_led_chance(rules: Rules, results: tuple[RoundResult, ...]) -> float:
    """The chance that their raise holds if it showed only their own dice (their read as is)."""
    read = opponent_reads(rules, results)[1]
    fives = face_marginals(
        rules,
        False,
        10,
        5,
        ((OUR_BID, THEIR_RAISE),),
        read.calls_below,
        read.sharpness,
        read.trust,
        read.credit,
    )[4]
    return sum(fives[2:])


def test_a_raise_on_our_face_heads_up_counts_for_less_than_their_dice() -> None:
    rules = preset("classic", seats=2)
    results = _results_against("medium", 4, rules)
    assert results
    read = opponent_reads(rules, results)[1]
    assert read.credit < 0.5  # medium is read as judging bids by its own hand
    believed, _ = believed_chances(_facing_their_raise(rules, results), THEIR_RAISE)
    hand_led = _hand_led_chance(rules, results)
    # Taken at face value their raise says they hold the fives; it may as well ride ours.
    assert believed < hand_led - 0.03, (believed, hand_led)
