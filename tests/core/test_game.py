"""The rules engine's transitions, reason codes and bookkeeping, step by step."""

from __future__ import annotations

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.errors import LocalError, Reason, RuleError
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    Forfeit,
    GameState,
    Outcome,
    Phase,
    PlaceBid,
    Reveal,
    StartNextRound,
    Undo,
    Void,
    apply,
    blind_action,
    check,
    new_game,
)
from p2pdice.core.rules import Rules, preset


def dealt(rules: Rules, starter: int = 0) -> GameState:
    state = new_game(rules)
    return apply(state, Deal(None if state.starter is not None else starter))


def refused(state: GameState, event, reason: Reason) -> None:
    with pytest.raises(RuleError) as info:
        apply(state, event)
    assert info.value.reason == reason


def test_nobody_acts_before_the_hands_exist() -> None:
    state = new_game(Rules(seats=3, first_starter="seat0"))
    assert state.phase == Phase.DEALING
    refused(state, PlaceBid(0, Bid(1, 2)), Reason.WRONG_PHASE)
    refused(state, Challenge(0), Reason.WRONG_PHASE)


def test_random_first_starter_must_be_given_at_the_deal() -> None:
    state = new_game(Rules(seats=3))
    assert state.starter is None
    with pytest.raises(LocalError):
        apply(state, Deal(None))
    assert apply(state, Deal(2)).turn == 2


def test_turn_order_and_reason_codes() -> None:
    state = dealt(Rules(seats=3, first_starter="seat0"))
    refused(state, Challenge(0), Reason.NO_BID_TO_CHALLENGE)
    refused(state, ExactCall(0), Reason.EXACT_CALL_DISABLED)
    refused(state, PlaceBid(1, Bid(2, 3)), Reason.NOT_YOUR_TURN)
    refused(state, PlaceBid(7, Bid(2, 3)), Reason.UNKNOWN_SEAT)
    refused(state, PlaceBid(0, Bid(2, 1)), Reason.FACE_NOT_ALLOWED)
    refused(state, PlaceBid(0, Bid(16, 2)), Reason.QUANTITY_TOO_HIGH)
    state = apply(state, PlaceBid(0, Bid(2, 3)))
    assert state.turn == 1
    refused(state, PlaceBid(1, Bid(2, 2)), Reason.BID_NOT_HIGHER)
    refused(state, PlaceBid(1, Bid(2, 3)), Reason.BID_NOT_HIGHER)
    state = apply(state, PlaceBid(1, Bid(2, 4)))
    state = apply(state, PlaceBid(2, Bid(3, 2)))
    assert state.turn == 0  # wraps
    state = apply(state, Challenge(0))
    assert state.phase == Phase.SHOWDOWN
    refused(state, PlaceBid(1, Bid(4, 2)), Reason.WRONG_PHASE)


def test_an_illegal_action_leaves_the_state_unchanged() -> None:
    state = dealt(Rules(seats=2, first_starter="seat0"))
    before = state
    for event in (PlaceBid(1, Bid(1, 2)), Challenge(0), PlaceBid(0, Bid(0, 2)), Undo(0)):
        assert check(state, event) is not None
        with pytest.raises(RuleError):
            apply(state, event)
        assert state == before


def test_challenge_resolution_loser_starts_and_wilds_count() -> None:
    state = dealt(Rules(seats=3, first_starter="seat0"))
    state = apply(state, PlaceBid(0, Bid(4, 5)))
    state = apply(state, Challenge(1))
    hands = ((5, 1, 2, 3, 4), (6, 6, 6, 6, 6), (5, 2, 2, 2, 1))
    state = apply(state, Reveal(hands))
    result = state.last_result
    assert result is not None
    assert result.count == 4 and result.outcome == Outcome.BID_STANDS
    assert result.loser == 1 and state.dice == (5, 4, 5)
    assert state.phase == Phase.ROUND_OVER and state.next_starter == 1
    refused(state, StartNextRound(0), Reason.NOT_YOUR_TURN)
    state = apply(state, StartNextRound(1))
    assert (state.round, state.phase, state.starter, state.bids) == (2, Phase.DEALING, 1, ())


def test_exact_call_regains_up_to_the_cap_and_caller_starts() -> None:
    rules = preset("perudo", seats=2, starting_dice=2, first_starter="seat0")
    state = dealt(rules)
    state = apply(state, PlaceBid(0, Bid(2, 3)))
    state = apply(state, ExactCall(1))
    state = apply(state, Reveal(((3, 1), (4, 5))))  # aces: ones wild -> exactly 2
    result = state.last_result
    assert result.outcome == Outcome.EXACT_HIT and result.gainer is None  # at the cap
    assert state.dice == (2, 2) and state.next_starter == 1


def test_exact_miss_costs_the_caller() -> None:
    state = dealt(preset("perudo", seats=3, starting_dice=2, first_starter="seat0"))
    state = apply(state, PlaceBid(0, Bid(2, 3)))
    state = apply(state, ExactCall(1))
    state = apply(state, Reveal(((3, 3), (3, 5), (2, 2))))
    assert state.last_result.outcome == Outcome.EXACT_MISS
    assert state.dice == (2, 1, 2)
    assert state.last_result.palifico_next and state.next_starter == 1


def test_elimination_ranking_and_game_over() -> None:
    state = dealt(Rules(seats=3, starting_dice=1, first_starter="seat0"))
    state = apply(state, PlaceBid(0, Bid(3, 6)))
    state = apply(state, Challenge(1))
    state = apply(state, Reveal(((2,), (3,), (4,))))
    assert state.dice == (0, 1, 1) and state.last_result.eliminated == (0,)
    assert state.next_starter == 1  # seat 0 is out, the next survivor starts
    state = apply(apply(state, StartNextRound(1)), Deal())
    state = apply(state, PlaceBid(1, Bid(1, 2)))
    state = apply(state, Challenge(2))
    state = apply(state, Reveal(((), (5,), (2,))))
    assert state.phase == Phase.GAME_OVER and state.winner == 1
    assert state.ranking == (1, 2, 0)


def test_undo_retracts_only_the_standing_bid_of_its_bidder() -> None:
    rules = Rules(seats=3, undo=True, kind="practice", first_starter="seat0")
    state = dealt(rules)
    refused(state, Undo(0), Reason.NOTHING_TO_UNDO)
    state = apply(state, PlaceBid(0, Bid(2, 3)))
    refused(state, Undo(1), Reason.NOTHING_TO_UNDO)
    undone = apply(state, Undo(0))
    assert undone.bids == () and undone.turn == 0
    state = apply(state, PlaceBid(1, Bid(3, 3)))
    refused(state, Undo(0), Reason.NOTHING_TO_UNDO)  # somebody acted after it
    refused(dealt(Rules(seats=2, first_starter="seat0")), Undo(0), Reason.UNDO_DISABLED)


def test_partial_reveal_resolves_only_when_decided() -> None:
    state = dealt(Rules(seats=3, first_starter="seat0"))
    state = apply(state, PlaceBid(0, Bid(3, 5)))
    called = apply(state, Challenge(1))
    decided = apply(called, Reveal(((5, 5, 5, 2, 2), None, (2, 2, 2, 3, 3))))
    assert decided.last_result.outcome == Outcome.BID_STANDS and decided.dice == (5, 4, 5)
    refused(called, Reveal(((5, 2, 2, 2, 2), None, (2, 2, 2, 3, 3))), Reason.OUTCOME_UNDECIDED)
    after = apply(called, Forfeit((1,)))
    result = after.last_result
    assert result.outcome == Outcome.FORFEIT and after.dice == (5, 0, 5)
    assert after.next_starter == 0 and after.ranking == (0, 2, 1)


def test_forfeit_ranks_below_everyone_already_out() -> None:
    state = dealt(Rules(seats=4, starting_dice=1, first_starter="seat0"))
    state = apply(state, PlaceBid(0, Bid(4, 6)))
    state = apply(state, Challenge(1))
    state = apply(state, Reveal(((2,), (3,), (4,), (5,))))  # seat 0 out first
    state = apply(state, StartNextRound(1))
    state = apply(state, Deal())
    state = apply(state, PlaceBid(1, Bid(1, 2)))
    state = apply(state, Challenge(2))
    state = apply(state, Forfeit((3,)))  # seat 3 never opened and its die decides the call
    assert state.out == (3, 0)
    assert state.ranking[-2:] == (0, 3)
    assert state.next_starter == 1


def test_a_round_that_could_not_be_dealt_is_void_and_replayed_unchanged() -> None:
    """A missing contribution (R4.2): nobody loses a die, the replay has the same starter
    (or draws it again) and the same palifico flag; a forfeit is not possible before the deal."""
    for first in ("seat0", "random"):
        state = new_game(Rules(seats=3, first_starter=first))
        refused(state, Forfeit((1,)), Reason.WRONG_PHASE)
        after = apply(state, Void())
        result = after.last_result
        assert result.outcome == Outcome.FORFEIT and result.forfeited == result.eliminated == ()
        assert after.dice == state.dice and after.out == ()
        assert result.next_starter == state.starter
        replay = apply(after, StartNextRound(after.next_starter))
        assert (replay.round, replay.starter, replay.phase) == (2, state.starter, Phase.DEALING)
    refused(
        apply(new_game(Rules(seats=3, first_starter="seat0")), Deal()), Void(), Reason.WRONG_PHASE
    )


def test_blind_action_is_challenge_or_lowest_opening() -> None:
    state = dealt(Rules(seats=2, first_starter="seat0"))
    assert blind_action(state, 0) == PlaceBid(0, Bid(1, 2))
    state = apply(state, PlaceBid(0, Bid(1, 2)))
    assert blind_action(state, 1) == Challenge(1)
