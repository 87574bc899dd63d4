"""The judgement drill: positions drawn from bot games are legal views, their chances agree
with enumerating every way the unseen dice can fall, hard's advice reads only the view, and
the score counts each answer in one skill."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.bots.drill import (
    RIGHT_MARGIN,
    SKILLS,
    Answer,
    DrillProgress,
    Position,
    advise,
    exactly_chance,
    figures,
    generate_position,
    holds_chance,
    judge,
    position_for,
)
from p2pdice.core.bids import Bid, count_matching
from p2pdice.core.game import Phase, PlacedBid
from p2pdice.core.rules import Ones, Palifico, PalificoKind, Rules
from p2pdice.core.view import SeatView

TABLES = (
    Rules(),
    Rules(ones=Ones.NATURAL, seats=3),
    Rules(ones=Ones.ACES, exact_call=True, seats=3),
    Rules(palifico=Palifico.FIXED, seats=2, starting_dice=2),
    Rules(ones=Ones.ACES, palifico=Palifico.FREE, palifico_kind=PalificoKind.FACE_FIXED, seats=3),
)


def brute_force(view: SeatView, bid: Bid) -> tuple[float, float]:
    """P(holds), P(exactly) by listing every unseen roll (each equally likely)."""
    holds = exact = 0
    total = 0
    for unseen in itertools.product(range(1, 7), repeat=view.unseen_dice):
        count = count_matching((view.hand, unseen), bid.face, wild_ones=view.wild_ones)
        holds += count >= bid.quantity
        exact += count == bid.quantity
        total += 1
    return holds / total, exact / total


def small_view(rules: Rules, hand: tuple[int, ...], others: int, palifico: bool) -> SeatView:
    return SeatView(
        seat=0,
        rules=rules,
        hand=hand,
        dice=(len(hand), others),
        round=1,
        phase=Phase.BIDDING,
        starter=1,
        turn=0,
        bids=(),
        palifico_round=palifico,
        results=(),
        ranking=(),
        next_starter=None,
    )


@settings(max_examples=150, deadline=None)
@given(
    ones=st.sampled_from(list(Ones)),
    kind=st.sampled_from(list(PalificoKind)),
    palifico=st.booleans(),
    hand=st.lists(st.integers(1, 6), min_size=1, max_size=3).map(tuple),
    others=st.integers(0, 5),
    quantity=st.integers(1, 8),
    face=st.integers(1, 6),
)
def test_the_drill_chances_equal_an_enumeration_of_every_unseen_roll(
    ones: Ones,
    kind: PalificoKind,
    palifico: bool,
    hand: tuple[int, ...],
    others: int,
    quantity: int,
    face: int,
) -> None:
    rules = Rules(ones=ones, palifico=Palifico.FIXED, palifico_kind=kind, seats=2)
    view = small_view(rules, hand, others, palifico)
    bid = Bid(quantity, face)
    holds, exact = brute_force(view, bid)
    assert abs(holds_chance(view, bid) - holds) < 1e-12
    assert abs(exactly_chance(view, bid) - exact) < 1e-12


@settings(max_examples=60, deadline=None)
@given(
    ones=st.sampled_from(list(Ones)),
    hand=st.lists(st.integers(1, 6), min_size=1, max_size=2).map(tuple),
    others=st.integers(1, 3),
    quantity=st.integers(1, 3),
    face=st.integers(2, 6),
)
def test_the_safest_raise_is_the_legal_bid_the_enumeration_finds_most_likely(
    ones: Ones, hand: tuple[int, ...], others: int, quantity: int, face: int
) -> None:
    rules = Rules(ones=ones, seats=2)
    standing = Bid(min(quantity, len(hand) + others), face)
    view = known_position(hand, others, standing, rules).view
    fig = figures(view)
    chances = {bid: brute_force(view, bid)[0] for bid in view.legal_bids()}
    assert abs(fig.holds - brute_force(view, standing)[0]) < 1e-12
    if not chances:
        assert fig.best_raise is None
        return
    assert fig.best_raise is not None
    assert abs(fig.best_raise_holds - max(chances.values())) < 1e-12
    assert abs(chances[fig.best_raise] - fig.best_raise_holds) < 1e-12


def test_drawn_positions_are_legal_views_of_the_seat_to_move() -> None:
    for rules in TABLES:
        for number in range(12):
            position = position_for(rules, number)
            view = position.view
            assert view.my_turn and view.standing_bid is not None and view.seat is not None
            assert len(view.hand) == view.my_dice == len(position.hands[view.seat])
            assert view.hand == position.hands[view.seat]
            assert all(len(h) == n for h, n in zip(position.hands, view.dice, strict=True))
            previous = None
            for placed in view.bids:  # each bid was legal after the one before it
                legal = replace(
                    view,
                    bids=() if previous is None else (previous,),
                    turn=placed.seat,
                    seat=placed.seat,
                    hand=position.hands[placed.seat],
                )
                assert legal.is_legal_bid(placed.bid), (rules, number, placed)
                previous = placed


def test_the_same_number_draws_the_same_position_and_others_differ() -> None:
    rules = Rules(ones=Ones.ACES, exact_call=True, seats=3)
    assert position_for(rules, 3) == position_for(rules, 3)
    drawn = {position_for(rules, n).view.hand for n in range(10)}
    assert len(drawn) > 5


def test_hard_advice_is_the_same_whatever_the_hidden_hands() -> None:
    rules = Rules(ones=Ones.ACES, exact_call=True, seats=3)
    rng = random.Random(7)
    for _ in range(8):
        position = generate_position(rules, rng)
        me = position.view.seat
        assert me is not None
        swapped = tuple(
            h if s == me else tuple(rng.randint(1, 6) for _ in h)
            for s, h in enumerate(position.hands)
        )
        other = Position(position.view, swapped)
        assert other.hands != position.hands or all(not h for h in position.hands)
        assert advise(other) == advise(position)


def test_hard_advice_names_its_move_and_its_figure() -> None:
    for number in range(10):
        position = position_for(Rules(), number)
        advice = advise(position)
        assert advice.why.startswith("hard ")
        assert "%" in advice.why
        if advice.action == "raise":
            assert advice.bid is not None and position.view.is_legal_bid(advice.bid)


def known_position(hand: tuple[int, ...], others: int, bid: Bid, rules: Rules) -> Position:
    view = replace(small_view(rules, hand, others, False), bids=(PlacedBid(1, bid),), starter=1)
    return Position(view, (hand, (2,) * others))


def test_a_call_is_right_when_calling_beats_the_safest_raise() -> None:
    rules = Rules(ones=Ones.NATURAL, seats=2)
    # Nobody could hold five 6s among one unseen die and our 2 3 4: calling wins for sure.
    position = known_position((2, 3, 4), 1, Bid(4, 6), rules)
    fig = figures(position.view)
    assert fig.holds == 0 and fig.best == "call"
    assert judge(position, Answer("call")).right
    verdict = judge(position, Answer("raise", Bid(4, 4)))
    assert not verdict.right and verdict.skill == "calling"


def test_a_raise_is_right_when_a_raise_holds_more_often_than_the_call_wins() -> None:
    rules = Rules(ones=Ones.NATURAL, seats=2)
    # We hold three 5s: 1 x 2s likely holds, and 3 x 5s is sure.
    position = known_position((5, 5, 5), 2, Bid(1, 2), rules)
    fig = figures(position.view)
    assert fig.best == "raise" and fig.best_raise_holds == 1.0
    verdict = judge(position, Answer("raise", Bid(3, 5)))
    assert verdict.right and verdict.skill == "raising" and verdict.chance == 1.0
    assert not judge(position, Answer("call")).right


def test_a_bold_raise_is_right_when_calling_would_win_less_often() -> None:
    rules = Rules(ones=Ones.NATURAL, seats=2)
    # 2 x 5s is sure with our three 5s, so calling never wins: any raise that may hold beats it,
    # not only the sure 3 x 5s.
    position = known_position((5, 5, 5), 2, Bid(2, 5), rules)
    fig = figures(position.view)
    assert fig.call_wins == 0 and fig.best_raise == Bid(3, 5)
    bold = judge(position, Answer("raise", Bid(4, 5)))
    assert bold.right and bold.rival == "call" and 0 < bold.chance < 1
    called = judge(position, Answer("call"))
    assert not called.right and called.rival == "raise" and "3 x 5s" in called.reason


def test_a_move_within_the_margin_of_a_better_kind_is_right_and_says_so() -> None:
    rules = Rules(ones=Ones.NATURAL, seats=2)
    position = known_position((2, 3, 4), 4, Bid(1, 6), rules)
    fig = figures(position.view)
    verdict = judge(position, Answer("call"))
    assert abs(fig.call_wins - (5 / 6) ** 4) < 1e-12
    # Calling wins a little less often than the safest raise (2 x 2s, as likely as 1 x 6s).
    assert verdict.rival == "raise" and fig.best_raise == Bid(2, 2)
    assert 0 < verdict.rival_chance - verdict.chance <= RIGHT_MARGIN
    assert verdict.right and "close enough" in verdict.reason


def test_a_raise_onto_aces_scores_the_aces_skill() -> None:
    rules = Rules(ones=Ones.ACES, seats=2)
    position = known_position((1, 1, 3), 2, Bid(3, 4), rules)
    verdict = judge(position, Answer("raise", Bid(2, 1)))
    assert verdict.skill == "aces"
    assert verdict.chance == 1.0 and verdict.right


def test_the_score_counts_each_answer_once_in_its_skill_and_round_trips() -> None:
    rules = Rules(ones=Ones.NATURAL, seats=2)
    progress = DrillProgress()
    right = judge(known_position((2, 3, 4), 1, Bid(4, 6), rules), Answer("call"))
    wrong = judge(known_position((5, 5, 5), 2, Bid(1, 2), rules), Answer("call"))
    for verdict in (right, wrong, right):
        progress = progress.score(verdict)
    assert progress.right == {"calling": 2, "raising": 0}
    assert progress.asked == {"calling": 2, "raising": 1}
    assert progress.line() == "calling 2/2   raising 0/1   aces 0/0"
    loaded = DrillProgress.from_json(progress.to_json())
    assert loaded.line() == progress.line() and set(loaded.asked) == set(SKILLS)
    seed, after = progress.next_seed()
    assert seed == 0 and after.drawn == 1
