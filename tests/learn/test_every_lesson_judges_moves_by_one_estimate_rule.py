"""One rule says when a legal move is poor, in every lesson: a bid above the learner's
estimate, a Liar call on a bid no higher than it, an Exact call off the estimate rounded
(first-time user report: lesson 1 called `9 6` good, lesson 2 took `5 2` over 3 x 4s)."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.game import legal_bids_of
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
