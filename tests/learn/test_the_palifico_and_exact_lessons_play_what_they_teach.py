"""The palifico lesson's round is one the rules produce (RULES.md R5: the seat that fell to
one die opens it), and the exact lesson's right call really wins a die back."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.core.game import Phase
from p2pdice.core.lessons import COURSE, YOU, Move, coach_text, play, start
from p2pdice.core.rules import ChallengePenalty, Ones, Palifico, PalificoKind, Rules

LESSON = {lesson.key: lesson for lesson in COURSE}


@pytest.mark.parametrize(
    "rules",
    [
        Rules(ones=ones, palifico=pal, palifico_kind=kind, challenge_penalty=pen)
        for ones, pal, kind, pen in itertools.product(
            Ones, (Palifico.FIXED, Palifico.FREE), PalificoKind, ChallengePenalty
        )
    ],
    ids=lambda r: r.summary(),
)
def test_the_player_who_fell_to_one_die_opens_the_palifico_round(rules: Rules) -> None:
    state = start(LESSON["palifico"], rules)
    fell = state.results[-1]  # the round before, played on the engine
    assert fell.dice_before[YOU] == 2 and fell.dice_after[YOU] == 1
    assert fell.palifico_next and fell.next_starter == YOU
    assert state.palifico_round and state.phase == Phase.BIDDING
    assert state.starter == YOU and state.turn == YOU and state.bids == ()
    text = coach_text(LESSON["palifico"], rules)
    assert "you open it" in text and "Bo opened" not in text


@pytest.mark.parametrize("ones", [Ones.WILD, Ones.ACES])
def test_a_right_exact_call_in_the_exact_lesson_wins_a_die_back(ones: Ones) -> None:
    rules = Rules(ones=ones, exact_call=True)
    state = start(LESSON["exact"], rules)
    assert state.dice[YOU] < rules.starting_dice
    finish = play(LESSON["exact"], rules, state, Move("exact"))
    assert finish.result.gainer == YOU
    assert finish.result.dice_after[YOU] == finish.result.dice_before[YOU] + 1
    assert ": you win a die back" in finish.outcome and "none to win back" not in finish.outcome
