"""Every bot returns a legal action for its own seat, in every mode, and never raises.

Every table option is drawn, the house options of issue 27 included.

Two kinds of random views: positions built directly (any dice counts, palifico rounds with
fixed or free faces, exact calls on or off, long bidding histories) and positions reached by
playing random legal moves through the engine, so earlier reveals (which `hard` reads) are
genuine.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pdice.bots.names import STYLE_NAMES
from p2pdice.bots.registry import BOT_NAMES, load_bot
from p2pdice.core.bids import Bid, legal_bids
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Phase,
    PlaceBid,
    PlacedBid,
    Reveal,
    StartNextRound,
    apply,
    check,
    new_game,
)
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.core.view import seat_view
from tests.support.strategies import house_rules_strategy as rules_strategy

BOTS = {name: load_bot(name) for name in (*BOT_NAMES, *STYLE_NAMES)}


def _next_surviving(dice: list[int], seat: int) -> int:
    n = len(dice)
    return next((seat + k) % n for k in range(1, n + 1) if dice[(seat + k) % n] > 0)


@st.composite
def built_positions(draw: st.DrawFn) -> tuple[GameState, tuple[int, ...]]:
    """A bidding position assembled directly: any dice counts, palifico or not, any history."""
    rules = draw(rules_strategy)
    dice = draw(
        st.lists(st.integers(1, rules.starting_dice), min_size=rules.seats, max_size=rules.seats)
    )
    # Knock some seats out, always leaving at least two in the game.
    out = draw(st.sets(st.integers(0, rules.seats - 1), max_size=rules.seats - 2))
    dice = [0 if s in out else n for s, n in enumerate(dice)]
    palifico_round = rules.palifico != Palifico.OFF and draw(st.booleans())
    survivors = [s for s, n in enumerate(dice) if n]
    starter = draw(st.sampled_from(survivors))
    rng = random.Random(draw(st.integers(0, 2**32)))
    bids: list[PlacedBid] = []
    turn = starter
    for _ in range(draw(st.integers(0, 12))):
        options = legal_bids(
            rules,
            bids[-1].bid if bids else None,
            dice_in_play=sum(dice),
            palifico_round=palifico_round,
            bidder_dice=dice[turn],
        )
        if not options:
            break
        # Mostly small steps, as at a real table, sometimes a jump.
        bid = options[min(len(options) - 1, int(rng.expovariate(0.5)))]
        bids.append(PlacedBid(turn, bid))
        turn = _next_surviving(dice, turn)
    state = GameState(
        rules=rules,
        dice=tuple(dice),
        round=1,
        phase=Phase.BIDDING,
        starter=starter,
        turn=turn,
        bids=tuple(bids),
        palifico_round=palifico_round,
    )
    hand = tuple(rng.randint(1, 6) for _ in range(dice[turn]))
    return state, hand


@st.composite
def played_positions(draw: st.DrawFn) -> tuple[GameState, tuple[int, ...]]:
    """A bidding position reached by random legal play, earlier rounds and reveals included."""
    rules = draw(rules_strategy)
    rng = random.Random(draw(st.integers(0, 2**32)))
    steps = draw(st.integers(0, 120))
    state = new_game(rules)
    hands: tuple[tuple[int, ...], ...] = ()
    candidate: tuple[GameState, tuple[int, ...]] | None = None
    for _ in range(steps):
        if state.phase == Phase.GAME_OVER:
            break
        if state.phase == Phase.DEALING:
            hands = tuple(tuple(rng.randint(1, 6) for _ in range(n)) for n in state.dice)
            starter = rng.choice(state.survivors) if state.starter is None else None
            state = apply(state, Deal(starter))
        elif state.phase == Phase.BIDDING:
            seat = state.turn
            assert seat is not None
            candidate = (state, hands[seat])
            options = legal_bids(
                rules,
                state.standing_bid,
                dice_in_play=state.dice_in_play,
                palifico_round=state.palifico_round,
                bidder_dice=state.dice[seat],
            )[:4]
            actions = [PlaceBid(seat, b) for b in options]
            if state.bids:
                actions.append(Challenge(seat))
                if rules.exact_call:
                    actions.append(ExactCall(seat))
            state = apply(state, rng.choice(actions))
        elif state.phase == Phase.SHOWDOWN:
            state = apply(state, Reveal(hands))
        else:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    if candidate is None:  # the walk never reached a bidding turn: take the first one
        state = apply(new_game(rules), Deal(0 if rules.first_starter == "random" else None))
        candidate = (state, tuple(rng.randint(1, 6) for _ in range(rules.starting_dice)))
    return candidate


def _assert_every_bot_legal(state: GameState, hand: tuple[int, ...], seed: int) -> None:
    seat = state.turn
    assert seat is not None
    view = seat_view(state, seat, hand)
    for name, bot in BOTS.items():
        action = bot(view, random.Random(seed))
        assert getattr(action, "seat", None) == seat, (name, action)
        assert check(state, action) is None, (name, action, check(state, action))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=built_positions(), seed=st.integers(0, 2**16))
def test_bots_are_legal_in_built_positions(
    position: tuple[GameState, tuple[int, ...]], seed: int
) -> None:
    _assert_every_bot_legal(*position, seed)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=played_positions(), seed=st.integers(0, 2**16))
def test_bots_are_legal_in_played_positions(
    position: tuple[GameState, tuple[int, ...]], seed: int
) -> None:
    _assert_every_bot_legal(*position, seed)


def _palifico_state(rules: Rules, dice: tuple[int, ...], bids: tuple[PlacedBid, ...]) -> GameState:
    turn = _next_surviving(list(dice), bids[-1].seat) if bids else 0
    return GameState(
        rules=rules,
        dice=dice,
        round=3,
        phase=Phase.BIDDING,
        starter=bids[0].seat if bids else 0,
        turn=turn,
        bids=bids,
        palifico_round=True,
    )


@settings(max_examples=60, deadline=None)
@given(
    palifico=st.sampled_from([Palifico.FIXED, Palifico.FREE]),
    ones=st.sampled_from(list(Ones)),
    face=st.integers(1, 6),
    hand_seed=st.integers(0, 2**16),
)
def test_bots_keep_the_palifico_face(
    palifico: Palifico, ones: Ones, face: int, hand_seed: int
) -> None:
    """With more than one die, a raise in a palifico round stays on the opener's face."""
    rules = Rules(seats=3, ones=ones, palifico=palifico, exact_call=True)
    state = _palifico_state(rules, (1, 4, 3), (PlacedBid(0, Bid(1, face)),))
    rng = random.Random(hand_seed)
    hand = tuple(rng.randint(1, 6) for _ in range(4))
    view = seat_view(state, 1, hand)
    for name, bot in BOTS.items():
        action = bot(view, random.Random(hand_seed))
        assert check(state, action) is None, (name, action)
        if isinstance(action, PlaceBid):
            assert action.bid.face == face, (name, action)


def test_bots_call_when_no_raise_is_left() -> None:
    """At the top bid (every die a six, wild ones) the only moves are Liar or Exact."""
    rules = Rules(seats=2, exact_call=True)
    state = GameState(
        rules=rules,
        dice=(2, 3),
        round=1,
        phase=Phase.BIDDING,
        starter=1,
        turn=0,
        bids=(PlacedBid(1, Bid(5, 6)),),
    )
    for name, bot in BOTS.items():
        action = bot(seat_view(state, 0, (6, 1)), random.Random(0))
        assert isinstance(action, Challenge | ExactCall), (name, action)
        assert check(state, action) is None
