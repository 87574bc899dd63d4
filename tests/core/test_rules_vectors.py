"""protocol/vectors/v1/rules_*.json: the rules, restated independently, against the engine."""

from __future__ import annotations

import pytest

from p2pdice.core.bids import Bid, bid_problem
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Phase,
    PlaceBid,
    PlacedBid,
    Reveal,
    apply,
    new_game,
)
from p2pdice.core.rules import Rules
from tests.support.vectors import case_ids, cases


def _rules(group_rules: dict, seats: int = 2) -> Rules:
    """The vector's rules object, completed with the options the vectors do not decide."""
    return Rules.from_json(
        {
            **Rules(seats=seats).to_json(),
            "first_starter": "seat0",
            "ones": group_rules["ones"],
            "palifico": group_rules["palifico"],
            "starting_dice": group_rules["starting_dice"],
            "exact_call": group_rules["exact_call"],
            "palifico_kind": group_rules["palifico_kind"],
            "exact_reward": group_rules["exact_reward"],
            "challenge_penalty": group_rules["challenge_penalty"],
        }
    )


@pytest.mark.parametrize(
    ("group", "test"), list(cases("rules_bids.json")), ids=case_ids("rules_bids.json")
)
def test_bid_vectors(group: dict, test: dict) -> None:
    previous = Bid(**test["previous"]) if test["previous"] else None
    problem = bid_problem(
        _rules(group["rules"]),
        previous,
        Bid(**test["bid"]),
        dice_in_play=test["dice_in_play"],
        palifico_round=test["palifico_round"],
        bidder_dice=test["bidder_dice"],
    )
    expected = None if test["result"] == "valid" else test["reason"]
    assert problem == expected, test["comment"]


def _showdown_state(group: dict, test: dict) -> GameState:
    """A game positioned at the vector's showdown, built through the engine's public moves."""
    hands = test["hands"]
    rules = _rules(group["rules"], seats=len(hands))
    dice = tuple(len(h) for h in hands)
    bid = Bid(**test["bid"])
    state = GameState(
        rules=rules,
        dice=dice,
        round=2,
        phase=Phase.DEALING,
        starter=test["bidder"],
        turn=None,
        bids=(),
        palifico_round=test["palifico_round"],
        fallen_to_one=frozenset(test["palifico_used"]),
        out=tuple(s for s, n in enumerate(dice) if n == 0),
    )
    state = apply(state, Deal())
    # The standing bid is placed directly: the vector tests resolution, not the bidding before it.
    state = GameState(
        **{**_fields(state), "bids": (PlacedBid(test["bidder"], bid),), "turn": test["caller"]}
    )
    call = ExactCall if test["call"] == "exact" else Challenge
    return apply(state, call(test["caller"]))


def _fields(state: GameState) -> dict:
    return {name: getattr(state, name) for name in GameState.__dataclass_fields__}


@pytest.mark.parametrize(
    ("group", "test"), list(cases("rules_showdown.json")), ids=case_ids("rules_showdown.json")
)
def test_showdown_vectors(group: dict, test: dict) -> None:
    state = _showdown_state(group, test)
    after = apply(state, Reveal(tuple(tuple(h) for h in test["hands"])))
    result = after.last_result
    expected = test["expected"]
    assert result is not None
    got = {
        "count": result.count,
        "dice_after": list(result.dice_after),
        "eliminated": list(result.eliminated),
        "elimination_order": list(after.out[len(state.out) :]),
        "next_starter": result.next_starter,
        "palifico_next_round": result.palifico_next,
        "loser": result.loser,
        "winner": after.winner,
        "palifico_used_after": sorted(after.fallen_to_one),
    }
    assert got == expected, test["comment"]
    assert after.phase == (Phase.GAME_OVER if expected["winner"] is not None else Phase.ROUND_OVER)
    if after.phase == Phase.ROUND_OVER:
        assert after.next_starter == expected["next_starter"]
        # The ranking puts the seats out together in the order R6 gives (last appended first).
        ranked_out = [s for s in after.ranking if s in expected["elimination_order"]]
        assert ranked_out == expected["elimination_order"][::-1], test["comment"]


def test_vector_counts_meet_the_floor() -> None:
    assert len(case_ids("rules_bids.json")) >= 1000
    assert len(case_ids("rules_showdown.json")) >= 500


def test_bid_vectors_cover_every_mode_and_reason() -> None:
    modes = {(g["rules"]["ones"], g["rules"]["palifico"]) for g, _ in cases("rules_bids.json")}
    assert {m for m, _ in modes} == {"wild", "natural", "aces"}
    assert {p for _, p in modes} == {"off", "fixed", "free"}
    reasons = {t["reason"] for _, t in cases("rules_bids.json")}
    assert reasons >= {
        None,
        "INVALID_FACE",
        "INVALID_QUANTITY",
        "QUANTITY_TOO_HIGH",
        "FACE_FIXED",
        "FACE_NOT_ALLOWED",
        "BID_NOT_HIGHER",
    }


def test_place_bid_uses_the_same_check() -> None:
    """The engine's PlaceBid path and bid_problem agree (the vectors exercise bid_problem)."""
    state = apply(new_game(Rules(seats=2, ones="aces", first_starter="seat0")), Deal())
    state = apply(state, PlaceBid(0, Bid(5, 4)))
    assert apply(state, PlaceBid(1, Bid(3, 1))).standing_bid == Bid(3, 1)
