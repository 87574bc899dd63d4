"""The table's help and the reveal say the rules this table plays, house rules included: a
loser who gives up the difference, an exact call that makes every other seat pay, a palifico
round that keeps ones wild. The engine already played them; the words must not contradict it
(or the option list printed beneath them)."""

from __future__ import annotations

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    PlaceBid,
    Reveal,
    StartNextRound,
    apply,
)
from p2pdice.core.rules import Rules
from p2pdice.ui.panels import render_help
from p2pdice.ui.reveal import reveal_model
from p2pdice.ui.screens import plain, render_reveal
from tests.ui.helpers import bidding, opened, snap_of


def reveal_of(state: GameState, hand: tuple[int, ...]) -> str:
    seats = tuple(range(state.rules.seats))
    model = reveal_model(snap_of(state, me=0, notes=opened(state.round, seats), hand=hand))
    assert model is not None
    return plain(render_reveal(model))


def dice_cell(screen: str, name: str) -> str:
    """The Dice column of `name`'s row: what follows its commitment check."""
    (row,) = [line for line in screen.splitlines() if line.split()[:1] == [name] and "v " in line]
    return row.split("verified", 1)[1].strip()


def test_a_loser_who_gives_up_the_difference_is_shown_losing_every_die() -> None:
    rules = Rules(seats=3, challenge_penalty="difference", first_starter="seat0")
    state = apply(bidding(rules, ((0, Bid(4, 6)),)), Challenge(1))
    hands = ((2, 3, 4, 5, 5), (4, 5, 2, 3, 4), (2, 2, 3, 3, 6))
    state = apply(state, Reveal(hands))
    assert state.dice == (2, 5, 5)  # counted 1 of 4: the bidder gives up 3
    screen = reveal_of(state, hands[0])
    assert dice_cell(screen, "Ann") == "-3 dice: 2", screen


def test_every_seat_an_exact_call_makes_pay_is_shown_paying() -> None:
    rules = Rules(seats=3, exact_call=True, exact_reward="others-lose", first_starter="seat0")
    state = apply(bidding(rules, ((0, Bid(2, 6)),)), ExactCall(1))
    hands = ((6, 2, 3, 4, 5), (2, 3, 4, 5, 5), (6, 2, 3, 4, 5))
    state = apply(state, Reveal(hands))
    assert state.dice == (4, 5, 4)
    screen = reveal_of(state, hands[0])
    assert dice_cell(screen, "Ann") == dice_cell(screen, "Cid") == "-1 die: 4", screen
    assert dice_cell(screen, "Bob") == "exact, at 5", screen


def test_a_palifico_round_that_keeps_ones_wild_is_not_said_to_drop_them() -> None:
    rules = Rules(
        seats=3,
        starting_dice=2,
        palifico="fixed",
        palifico_kind="face-fixed",
        first_starter="seat0",
    )
    state = apply(bidding(rules, ((0, Bid(6, 6)),)), Challenge(1))
    state = apply(state, Reveal(((2, 3), (4, 5), (2, 2))))  # Ann falls to one die
    state = apply(apply(state, StartNextRound(0)), Deal())
    state = apply(apply(state, PlaceBid(0, Bid(2, 4))), Challenge(1))
    state = apply(state, Reveal(((1,), (4, 1), (1, 3))))
    assert state.results[-1].palifico_round and state.results[-1].count == 4  # ones counted
    screen = " ".join(reveal_of(state, (1,)).split())
    assert "ones wild" in screen and "ones not wild" not in screen, screen
    assert "Palifico round (face fixed)" in screen


@pytest.mark.parametrize(
    ("options", "said", "unsaid"),
    [
        (
            {"challenge_penalty": "difference"},
            ["loses the difference between the count and the bid"],
            ["gives up one die", "loses one die."],
        ),
        (
            {"exact_call": True, "exact_reward": "others-lose"},
            ["every other player loses a die"],
            ["regains"],
        ),
        (
            {"palifico": "fixed", "palifico_kind": "face-fixed"},
            ["palifico round: face fixed", "as ones are wild (in a palifico round too)"],
            ["no wild ones", "ones not wild", "(not in a palifico round)"],
        ),
        (
            {"palifico": "free", "palifico_kind": "ones-not-wild"},
            ["palifico round: ones not wild", "(not in a palifico round)"],
            ["face fixed"],
        ),
        ({"ones": "natural"}, ["p = 1/6 for every face"], ["p = 1/3"]),
    ],
)
def test_the_help_says_the_house_rules_of_the_table(
    options: dict[str, object], said: list[str], unsaid: list[str]
) -> None:
    text = " ".join(plain(render_help(Rules(**options), height=80)).split())  # type: ignore[arg-type]
    for words in said:
        assert words in text, (words, text)
    for words in unsaid:
        assert words not in text, (words, text)
