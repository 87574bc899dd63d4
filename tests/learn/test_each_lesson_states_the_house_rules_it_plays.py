"""The course follows the table's house rules (issue 27): under every palifico kind, exact
reward and challenge penalty, what the coach says before a move names the rule the lesson
then plays, and the story after the reveal says exactly the dice the engine moved."""

from __future__ import annotations

import itertools
import re

import pytest

from p2pdice.core.bids import Bid, bid_problem, ones_are_wild
from p2pdice.core.errors import Reason
from p2pdice.core.game import PlaceBid, apply, legal_bids_of
from p2pdice.core.lessons import COURSE, NAMES, YOU, Move, coach_text, judge, play, start
from p2pdice.core.rules import (
    ChallengePenalty,
    ExactReward,
    Ones,
    Palifico,
    PalificoKind,
    Rules,
)

RULES = [
    Rules(
        ones=ones,
        exact_call=True,
        palifico=pal,
        palifico_kind=kind,
        exact_reward=reward,
        challenge_penalty=penalty,
    )
    for ones, pal, kind, reward, penalty in itertools.product(
        Ones, (Palifico.FIXED, Palifico.FREE), PalificoKind, ExactReward, ChallengePenalty
    )
]
LESSON = {lesson.key: lesson for lesson in COURSE}


def ids(rules: Rules) -> str:
    return rules.summary()


@pytest.mark.parametrize("rules", [r for r in RULES if r.ones != Ones.NATURAL], ids=ids)
def test_the_exact_lesson_says_what_a_right_call_earns_here(rules: Rules) -> None:
    lesson = LESSON["exact"]
    state = start(lesson, rules)
    before = coach_text(lesson, rules)
    refused = judge(lesson, rules, state, Move("liar")).text
    story = play(lesson, rules, state, Move("exact")).outcome
    others = [NAMES[s] for s in range(len(state.dice)) if s != YOU]
    if rules.exact_reward == ExactReward.OTHERS_LOSE:
        for text in (before, refused):
            assert "every other player loses a die" in text and "win a die back" not in text
        assert all(f"{name} loses a die" in story for name in others), story
    else:
        for text in (before, refused):
            assert "win a die back" in text and "other player" not in text
        assert "you win a die back" in story.lower()  # the learner holds four of five
        assert "none to win back" not in story and "loses" not in story


@pytest.mark.parametrize("rules", RULES, ids=ids)
def test_the_liar_lesson_says_what_losing_a_call_costs_here(rules: Rules) -> None:
    text = coach_text(LESSON["liar"], rules)
    if rules.challenge_penalty == ChallengePenalty.DIFFERENCE:
        assert "difference between the count and the bid, at least one die" in text
    else:
        assert "loses one die" in text and "difference" not in text


@pytest.mark.parametrize("rules", RULES, ids=ids)
def test_the_palifico_lesson_says_what_the_round_fixes_as_the_engine_plays_it(
    rules: Rules,
) -> None:
    lesson = LESSON["palifico"]
    state = start(lesson, rules)
    text = coach_text(lesson, rules)
    if ones_are_wild(rules, True):
        assert "Ones stay wild" in text
    else:
        assert "not wild" in text or "plain face" in text
        assert "stay wild" not in text
    opened = apply(state, PlaceBid(YOU, Bid(2, 5)))  # what the coach says to open
    other_face = bid_problem(
        rules,
        Bid(2, 5),
        Bid(3, 6),
        dice_in_play=opened.dice_in_play,
        palifico_round=True,
        bidder_dice=opened.dice[1],
    )
    if other_face is None:
        assert "the face is not fixed" in text
    else:
        assert other_face == Reason.FACE_FIXED
        assert "the face you open is fixed" in text


LOSES = re.compile(rf"\b({'|'.join(NAMES)}) loses? (a die|\d+ dice)", re.I)  # "you" mid-sentence


@pytest.mark.parametrize("rules", RULES, ids=ids)
def test_every_story_names_the_dice_the_engine_moved_and_the_penalty_that_moved_them(
    rules: Rules,
) -> None:
    for lesson in COURSE:
        if not lesson.applies(rules):
            continue
        state = start(lesson, rules)
        bids = legal_bids_of(state, YOU)
        moves = [Move("liar"), Move("exact"), *(Move("bid", b) for b in bids[:3])]
        for move in moves:
            if not judge(lesson, rules, state, move).accepted:
                continue
            finish = play(lesson, rules, state, move)
            result = finish.result
            lost = {
                NAMES[s]: b - a
                for s, (b, a) in enumerate(zip(result.dice_before, result.dice_after, strict=True))
                if a < b
            }
            said = {
                name.capitalize(): 1 if n == "a die" else int(n.split()[0])
                for name, n in LOSES.findall(finish.outcome)
            }
            assert said == lost, (lesson.key, move, finish.outcome)
            called = result.bid
            assert called is not None and result.count is not None
            if result.call is not None and result.call.value == "challenge":
                gap = max(1, abs(result.count - called.quantity))
                named = "the difference between the count and the bid" in finish.outcome
                assert named == (rules.challenge_penalty == ChallengePenalty.DIFFERENCE)
                if named:
                    assert f"so {gap}" in finish.outcome, finish.outcome
