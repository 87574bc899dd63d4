"""One rule says when a legal move is poor, in every lesson: a bid above the learner's
estimate, a Liar call on a bid no higher than it, an Exact call off the estimate rounded
(first-time user report: lesson 1 called `9 6` good, lesson 2 took `5 2` over 3 x 4s)."""

from __future__ import annotations

import itertools
import re

import pytest

from p2pdice.core.bids import Bid, count_matching, ones_are_wild
from p2pdice.core.chance import at_least, face_probability
from p2pdice.core.game import GameState, legal_bids_of
from p2pdice.core.lessons import COURSE, YOU, Move, course, estimate, judge, start
from p2pdice.core.rules import ChallengePenalty, Ones, Palifico, PalificoKind, Rules

LESSON = {lesson.key: lesson for lesson in COURSE}
RULES = [
    Rules(ones=ones, exact_call=exact, palifico=pal, palifico_kind=kind, challenge_penalty=pen)
    for ones, exact, pal, kind, pen in itertools.product(
        Ones, (False, True), (Palifico.FIXED, Palifico.FREE), PalificoKind, ChallengePenalty
    )
]
#: What each lesson's coach tells the learner to type.
COACHED = {
    "cup": [Bid(2, 3)],
    "raising": [Bid(3, 5), Bid(4, 5)],
    "wild": [Bid(6, 4)],
    "aces-on": [Bid(3, 1)],
    "aces-off": [Bid(7, 5)],
    "palifico": [Bid(2, 5)],
}


@pytest.mark.parametrize(
    ("key", "bid"), [("cup", Bid(9, 6)), ("raising", Bid(5, 2)), ("raising", Bid(9, 6))]
)
def test_a_bid_the_hand_and_the_expected_count_make_unlikely_is_refused_with_the_estimate(
    key: str, bid: Bid
) -> None:
    rules = Rules()
    verdict = judge(LESSON[key], rules, start(LESSON[key], rules), Move("bid", bid))
    assert not verdict.accepted
    assert f"{bid} is more than you can expect" in verdict.text
    assert "unseen dice expect" in verdict.text and "Good" not in verdict.text


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_every_lesson_accepts_exactly_the_moves_the_estimate_allows_and_what_its_coach_says(
    rules: Rules,
) -> None:
    for lesson in course(rules):
        state = start(lesson, rules)
        hand = lesson.hands[YOU]
        bids = legal_bids_of(state, YOU)
        for bid in bids:
            if judge(lesson, rules, state, Move("bid", bid)).accepted:
                assert bid.quantity <= estimate(rules, state, hand, bid.face), (lesson.key, bid)
        prev = state.standing_bid
        if prev is not None and judge(lesson, rules, state, Move("liar")).accepted:
            assert prev.quantity > estimate(rules, state, hand, prev.face), lesson.key
        for bid in COACHED.get(lesson.key, []):
            verdict = judge(lesson, rules, state, Move("bid", bid))
            assert verdict.accepted, (lesson.key, bid, verdict.text)


def held_chance(rules: Rules, state: GameState, hand: tuple[int, ...], bid: Bid) -> float:
    """The chance `bid` holds from `hand`, the unseen dice at chance."""
    wild = ones_are_wild(rules, state.palifico_round)
    seen = count_matching((hand,), bid.face, wild_ones=wild)
    unseen = state.dice_in_play - state.dice[YOU]
    return at_least(bid.quantity - seen, unseen, face_probability(bid.face, wild_ones=wild))


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.summary())
def test_a_refused_move_states_the_chance_its_bid_holds_and_never_calls_an_even_bid_false(
    rules: Rules,
) -> None:
    """Just over the estimate a bid can hold half the time or more (5 x 1s with 3 seen and 10
    unseen at 1 in 6: 52%), so the words give the chance, from the learner's dice, instead of
    saying a Liar call on it would likely win."""
    for lesson in course(rules):
        state = start(lesson, rules)
        moves = [Move("bid", bid) for bid in legal_bids_of(state, YOU)]
        if state.standing_bid is not None:
            moves.append(Move("liar"))
        for move in moves:
            verdict = judge(lesson, rules, state, move)
            if verdict.accepted or "expect" not in verdict.text:
                continue  # accepted, or refused for the lesson's own point (a conversion)
            bid = move.bid if move.bid is not None else state.standing_bid
            assert bid is not None
            assert "would likely win" not in verdict.text, verdict.text
            said = re.search(r"holds (less than 1%|more than 99%|\d+%) of the time", verdict.text)
            assert said is not None, verdict.text
            p = held_chance(rules, state, lesson.hands[YOU], bid)
            figure = said.group(1)
            if figure == "less than 1%":
                assert 0 < p < 0.005
            elif figure == "more than 99%":
                assert 0.995 <= p < 1
            else:
                assert int(figure[:-1]) == round(100 * p), (verdict.text, p)
            if move.kind == "liar":
                assert p >= 0.5, verdict.text  # "likely true" is true
