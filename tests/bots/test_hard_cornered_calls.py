"""Heads-up, hard predicts the calls a player makes because it is cornered: it believes the
bid but has no raise it believes either. With few dice in play most calls are of that kind,
and a model that predicts calls from doubt alone takes a high bid on its own face as safe."""

from __future__ import annotations

import random
import statistics
from typing import Any

import pytest

from p2pdice.bots import hard as hard_module
from p2pdice.bots.belief import hand_space, reply_model
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, PlacedBid
from p2pdice.core.rules import preset
from p2pdice.core.view import SeatView
from tests.support.views import bidding_view

CLASSIC = preset("classic", seats=2)
TWO_SIXES = Bid(2, 6)  # four dice in play, two each


def _calls(cornered: float) -> dict[tuple[int, ...], float]:
    """Per count vector of a two-dice hand, the modelled chance it calls two sixes."""
    call, _, _ = reply_model(CLASSIC, False, 4, 2, TWO_SIXES, cornered=cornered)
    return dict(zip(hand_space(2)[0], call, strict=True))


def _vector(*dice: int) -> tuple[int, ...]:
    return tuple(dice.count(face) for face in range(1, 7))


def test_a_cornered_seat_calls_a_bid_it_believes() -> None:
    doubt_only, cornered = _calls(0.0), _calls(1.0)
    # Holding a two and a three it cannot raise to three of anything with any confidence
    # (it would need two of the two unseen dice), so it calls, though two sixes may hold.
    weak = _vector(2, 3)
    assert doubt_only[weak] > 0.5  # it doubts two sixes a little already
    assert cornered[weak] > 0.95
    # Holding two sixes it believes the bid and raises to three sixes: no change.
    strong = _vector(6, 6)
    assert cornered[strong] < 0.1  # the noise floor of each of the two kinds of call


def test_the_cornered_calls_scale_between_none_and_all() -> None:
    none, half, every = _calls(0.0), _calls(0.5), _calls(1.0)
    for hand in hand_space(2)[0]:
        assert none[hand] <= half[hand] + 1e-12 <= every[hand] + 2e-12
        assert half[hand] == pytest.approx((none[hand] + every[hand]) / 2)


def _cornered_predictions(style: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """hard's predicted cornered-call chance for its follower, at every decision of a game."""
    predicted: list[float] = []
    valued = hard_module._raise_value

    def watched(*args: Any, **kwargs: Any) -> tuple[float, float]:
        predicted.append(args[3].cornered)
        return valued(*args, **kwargs)

    monkeypatch.setattr(hard_module, "_raise_value", watched)
    hard = load_bot("hard")
    marks: list[int] = []

    def marking(view: SeatView, rng: random.Random) -> Action:
        marks.append(len(predicted))
        return hard(view, rng)

    play_game(CLASSIC, [marking, load_bot(style)], random.Random(seed))
    return [predicted[m] for m in marks if m < len(predicted)]


def test_a_seat_that_never_calls_is_not_expected_to_call_when_cornered(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # It raises whatever it holds; its call rate says so within a round or two.
    never = _cornered_predictions("never-calls", 3, monkeypatch)
    assert never[0] == 1.0  # a stranger is taken to call when cornered, as most players do
    assert never[-1] < 0.35, never[-5:]


def test_a_seat_that_calls_as_the_anchor_does_is_expected_to_call_when_cornered_far_more(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One game's call rate is noisy (medium may face a run of bids it raises), so the
    # predictions are averaged over whole games.
    def mean_over_games(style: str) -> float:
        games = [_cornered_predictions(style, seed, monkeypatch) for seed in range(1, 5)]
        return statistics.mean(statistics.mean(g) for g in games)

    never, anchor = mean_over_games("never-calls"), mean_over_games("medium")
    assert anchor > never + 0.3, (anchor, never)


def _seen_cornered(view: SeatView, monkeypatch: pytest.MonkeyPatch) -> set[float]:
    """The cornered-call chances hard's look-ahead hands the reply model in `view`."""
    seen: list[float] = []
    modelled = hard_module.reply_model

    def watched(*args: Any, **kwargs: Any) -> Any:
        seen.append(args[10] if len(args) > 10 else kwargs.get("cornered", 0.0))
        return modelled(*args, **kwargs)

    monkeypatch.setattr(hard_module, "reply_model", watched)
    hard_module._options(view)
    return set(seen)


def test_the_cornered_chance_reaches_the_look_ahead(monkeypatch: pytest.MonkeyPatch) -> None:
    view = bidding_view(CLASSIC, (2, 5), (2, 2), (PlacedBid(1, Bid(1, 5)),))
    seen = _seen_cornered(view, monkeypatch)
    assert seen == {1.0}


def test_two_raises_on_bids_it_faced_are_enough_to_doubt_a_cornered_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The call rate's prior still gives the seat two thirds of the prior's share after two
    # raises and no call; priced at that, a seat that never calls was taken to call our hot
    # raises whenever it looked cornered, and hard raised too little against it.
    # Seat 1 has faced two bids this round and raised both.
    placed = (
        PlacedBid(0, Bid(1, 5)),
        PlacedBid(1, Bid(2, 5)),
        PlacedBid(0, Bid(2, 6)),
        PlacedBid(1, Bid(3, 5)),
    )
    seen = _seen_cornered(bidding_view(CLASSIC, (2, 5), (2, 2), placed), monkeypatch)
    assert seen and all(0.0 < c < 0.35 for c in seen), seen
