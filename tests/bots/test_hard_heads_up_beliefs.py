"""Heads-up, hard does not count its own dice twice: an opponent's raise on a face hard named
may ride hard's bid, so hard's belief takes it for less than that opponent's dice."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from p2pdice.bots import hard as hard_module
from p2pdice.bots.belief import face_marginals
from p2pdice.bots.hard import believed_chances
from p2pdice.bots.reads import UNREAD, OpponentRead, opponent_reads
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


def _hand_led_chance(rules: Rules, read: OpponentRead) -> float:
    """The chance that their raise holds if it showed only their own dice (`read` as is)."""
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
    hand_led = _hand_led_chance(rules, read)
    # Taken at face value their raise says they hold the fives; it may as well ride ours.
    assert believed < hand_led - 0.03, (believed, hand_led)


def test_a_strangers_raise_on_our_face_heads_up_counts_for_less_than_their_dice() -> None:
    # Round 1: no reveal has shown whether they ride bids, so the hedge holds for them too
    # (a reader that echoes our face round after round cost hard most of its first rounds).
    rules = preset("classic", seats=2)
    assert UNREAD.credit < 0.5
    believed, _ = believed_chances(_facing_their_raise(rules, ()), THEIR_RAISE)
    hand_led = _hand_led_chance(rules, UNREAD)
    assert believed < hand_led - 0.03, (believed, hand_led)


def test_a_strangers_replies_are_predicted_without_the_hedge(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The hedge is for reading its bids only: predicting that a stranger rides our bids
    # would make our bluffs look safe against it (docs/bots.md, the credit read).
    rules = preset("classic", seats=2)
    view = replace(
        _facing_their_raise(rules, ()),
        bids=(PlacedBid(0, Bid(2, 5)), PlacedBid(1, Bid(3, 4))),
    )
    predicted_riding: set[float] = set()
    valued = hard_module._raise_value

    def watched(*args: Any, **kwargs: Any) -> tuple[float, float]:
        predicted_riding.add(args[3].riding)
        return valued(*args, **kwargs)

    monkeypatch.setattr(hard_module, "_raise_value", watched)
    hard_module._options(view)
    assert predicted_riding == {0.0}
