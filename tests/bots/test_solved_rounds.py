"""hard's solved heads-up rounds with its last die against two or three (bots/solved_rounds.py):
the table format round-trips and refuses damage, every stored table is whole and legal,
hard plays them where it should and only there, and hard itself is near equilibrium there."""

from __future__ import annotations

import base64
import dataclasses
import random
import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks import cfr_arrays
from benchmarks.equilibrium import bot_hand_policy
from benchmarks.uneven_endgames import ROUNDS, heads_up_rules, round_lost, solve_mode
from p2pdice.bots import hard as hard_module
from p2pdice.bots.hard import hard_policy
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.bots.solved_rounds import (
    Record,
    decode,
    encode,
    round_bids,
    table_key,
    uneven_round_policy,
)
from p2pdice.bots.uneven_tables import TABLES, VALUES
from p2pdice.core.game import (
    Action,
    Challenge,
    Deal,
    Phase,
    PlaceBid,
    PlacedBid,
    Reveal,
    apply,
    new_game,
)
from p2pdice.core.rules import ChallengePenalty, Ones, Palifico, preset
from p2pdice.core.view import SeatView
from tests.support.views import bidding_view

CLASSIC = preset("classic", seats=2)


@st.composite
def seat_records(draw: st.DrawFn) -> tuple[dict[tuple[int, ...], Record], int, int]:
    """A seat's records over a small round, drawn along the walk the format follows."""
    bids = draw(st.integers(1, 5))
    seat = draw(st.integers(0, 1))
    records: dict[tuple[int, ...], Record] = {}

    def walk(history: tuple[int, ...]) -> None:
        low = history[-1] + 1 if history else 0
        if len(history) % 2 == seat:
            actions: list[int | None] = list(range(low, bids)) + ([None] if history else [])
            if not actions:
                return  # a history after the top bid: the seat can only have called before
            chosen = draw(st.lists(st.sampled_from(actions), min_size=1, unique=True))
            weights = [draw(st.integers(1, 255)) for _ in chosen]
            records[history] = tuple(
                (a, w / sum(weights)) for a, w in zip(chosen, weights, strict=True)
            )
            follow = [a for a in chosen if a is not None]
        else:
            follow = list(range(low, bids))
        for bid in follow:
            walk((*history, bid))

    walk(())
    return records, bids, seat


@settings(max_examples=150, deadline=None)
@given(seat_records())
def test_a_seats_records_come_back_as_written(drawn: tuple[dict, int, int]) -> None:
    records, bids, seat = drawn
    back = decode(encode(records, bids, seat), bids, seat)
    assert back.keys() == records.keys()
    if seat == 1:  # the follower's records from one opening bid on: that part alone
        part = {h: r for h, r in records.items() if h[:1] == (bids - 1,)}
        assert decode(encode(records, bids, 1, (bids - 1,)), bids, 1, (bids - 1,)).keys() == (
            part.keys()
        )
    for history, pairs in records.items():
        assert [a for a, _ in back[history]] == [a for a, _ in pairs]
        for (_, got), (_, want) in zip(back[history], pairs, strict=True):
            assert got == pytest.approx(want, abs=_rounding_bound(want, len(pairs)))


def _rounding_bound(chance: float, moves: int) -> float:
    """How far a decoded chance may sit from the written one. The weights are the chances
    scaled so that the largest is 255, each rounded (by at most 1/2, the largest exactly), and
    the chances decoded are the weights over their sum. With X >= 255 the scaled sum and E the
    rounding of the others (|E| <= (n - 1) / 2), the error in c is (e X - c X E) / (X (X + E)):
    at most (1 + (n - 1) c) / 2 / (255 - (n - 1) / 2). One weight of 1/255 is not the bound:
    (1, 1, 1, 34) / 37 decodes its largest 0.0049 low."""
    others = moves - 1
    return 0.5 * (1 + others * chance) / (255 - 0.5 * others) + 1e-12


def test_damaged_table_bytes_are_refused() -> None:
    records: dict[tuple[int, ...], Record] = {(): ((1, 1.0),), (1, 2): ((None, 1.0),)}
    data = encode(records, 3, 0)
    assert data == bytes([1, 1, 255, 1, 255, 255])
    with pytest.raises(ValueError, match="ends early"):
        decode(data[:-1], 3, 0)
    with pytest.raises(ValueError, match="past its walk"):
        decode(data + b"\x00", 3, 0)
    for damaged in (
        bytes([1, 255, 255]),  # Liar before any bid
        bytes([1, 3, 255]),  # a bid past the last
        bytes([1, 1, 255, 1, 1, 255]),  # a raise to the standing bid
        bytes([1, 1, 0]),  # a move of weight 0 only
        bytes([2, 1, 1, 1, 1, 1, 255, 1, 1, 255, 1]),  # one raise listed twice
    ):
        with pytest.raises(ValueError, match="no legal move"):
            decode(damaged, 3, 0)


def _stored() -> list[tuple[Ones, tuple[int, int], int]]:
    return [
        (ones, dice, seat)
        for ones, rounds in ROUNDS.items()
        for dice in rounds
        if dice != (1, 1)
        for seat in (0, 1)
        if dice[seat] == 1
    ]


def _starts(ones: Ones, dice: tuple[int, int], seat: int) -> list[tuple[int, ...]]:
    """Where a seat's tables start: the opener's at the round's start, the follower's one
    per opening bid."""
    bids = len(round_bids(heads_up_rules(ones, dice), dice))
    return [()] if seat == 0 else [(b,) for b in range(bids)]


def test_every_round_of_the_generator_is_stored_for_the_seat_with_one_die_and_every_hand() -> None:
    expected = {
        table_key(ones, dice, seat, (face,), start[0] if start else None)
        for ones, dice, seat in _stored()
        for face in range(1, 7)
        for start in _starts(ones, dice, seat)
    }
    assert set(TABLES) == expected


@pytest.mark.parametrize(("ones", "dice", "seat"), _stored())
def test_every_stored_record_is_a_legal_mixed_move(
    ones: Ones, dice: tuple[int, int], seat: int
) -> None:
    bids = round_bids(heads_up_rules(ones, dice), dice)
    for face in range(1, 7):
        for start in _starts(ones, dice, seat):
            key = table_key(ones, dice, seat, (face,), start[0] if start else None)
            data = zlib.decompress(base64.b64decode(TABLES[key]))
            records = decode(data, len(bids), seat, start)
            assert start in records
            for history, pairs in records.items():
                assert history[: len(start)] == start
                assert sum(c for _, c in pairs) == pytest.approx(1.0)
                low = history[-1] + 1 if history else 0
                assert all(low <= a < len(bids) for a, _ in pairs if a is not None)
                assert history or all(a is not None for a, _ in pairs)


def _table_policy(view: SeatView) -> list:
    got = uneven_round_policy(view)
    assert got is not None
    return got


@pytest.mark.parametrize(("hand", "dice", "seat"), [((3,), (1, 2), 0), ((1,), (3, 1), 1)])
def test_hard_with_its_last_die_against_a_stranger_plays_the_table(
    hand: tuple[int, ...], dice: tuple[int, int], seat: int
) -> None:
    rules = CLASSIC.with_options(starting_dice=max(dice))
    bids = () if seat == 0 else (PlacedBid(0, round_bids(rules, (dice[0], 1))[2]),)
    view = bidding_view(rules, hand, dice, bids, seat=seat)
    assert hard_policy(view) == _table_policy(view)
    assert hard_policy(view, solved_endgame=False) != hard_policy(view)


def test_no_table_where_the_round_is_not_the_one_solved() -> None:
    view = bidding_view(CLASSIC, (3,), (1, 2))
    assert uneven_round_policy(view) is not None
    # Heads-up, no round is a palifico round: the rule changes nothing here.
    palifico = CLASSIC.with_options(palifico=Palifico.FIXED)
    assert uneven_round_policy(bidding_view(palifico, (3,), (1, 2))) == _table_policy(view)
    for other in (
        CLASSIC.with_options(exact_call=True),
        CLASSIC.with_options(challenge_penalty=ChallengePenalty.DIFFERENCE),
        preset("perudo", seats=2),
    ):
        assert uneven_round_policy(bidding_view(other, (3,), (1, 2))) is None
    # Not with more dice than the opponent, nor at one die each (bots/endgame.py), nor at a
    # bigger table, nor one die against four (not solved).
    assert uneven_round_policy(bidding_view(CLASSIC, (3, 4), (2, 1))) is None
    assert uneven_round_policy(bidding_view(CLASSIC, (3,), (1, 1))) is None
    assert uneven_round_policy(bidding_view(CLASSIC.with_options(seats=3), (3,), (1, 2, 2))) is None
    assert uneven_round_policy(bidding_view(CLASSIC, (3,), (1, 4))) is None
    natural = preset("classic", seats=2, ones="natural")
    assert uneven_round_policy(bidding_view(natural, (3,), (1, 2))) is not None
    assert uneven_round_policy(bidding_view(natural, (3,), (1, 3))) is None


def _last_die_views(opponent: str, games: int) -> list[SeatView]:
    """hard's views at the first move of a round with its last die against two or three,
    in real games against `opponent` (classic, heads-up)."""
    seen: list[SeatView] = []

    def watched(view: SeatView, rng: random.Random) -> Action:
        last_die = view.my_dice == 1 and len(view.survivors) == 2 and view.dice_in_play in (3, 4)
        if last_die and len(view.bids) < 2 and view.results:
            seen.append(view)
        return hard_module.hard(view, rng)

    for seed in range(games):
        play_game(CLASSIC, [watched, load_bot(opponent)], random.Random(seed))
    return seen


def test_against_a_seat_read_as_judging_bids_by_its_hand_alone_hard_plays_its_own_game() -> None:
    # medium's reveals read as bidding and calling by its own hand: hard's model of it holds
    # and exploits it beyond the equilibrium's guarantee (docs/bots.md). In most games: a
    # few reveals can lean towards the Bayesian reader's model (2 of 11 here).
    views = _last_die_views("medium", 60)
    assert len(views) >= 5
    assert all(uneven_round_policy(v) is not None for v in views)
    own_game = [hard_module._solved_round(v) is None for v in views]
    assert sum(own_game) >= 0.8 * len(views), own_game


def test_against_a_reader_of_bids_hard_plays_the_table() -> None:
    views = [v for v in _last_die_views("crediting-reader", 120) if uneven_round_policy(v)]
    assert len(views) >= 5
    played = [hard_module._solved_round(v) == uneven_round_policy(v) for v in views]
    assert sum(played) >= 0.8 * len(views)


@pytest.mark.parametrize(
    ("ones", "dice"),
    [
        (Ones.WILD, (1, 2)),
        (Ones.WILD, (2, 1)),
        pytest.param(Ones.NATURAL, (1, 2), marks=pytest.mark.slow),
        pytest.param(Ones.NATURAL, (2, 1), marks=pytest.mark.slow),
        pytest.param(Ones.WILD, (1, 3), marks=pytest.mark.slow),
        pytest.param(Ones.WILD, (3, 1), marks=pytest.mark.slow),
    ],
)
def test_hard_itself_with_its_last_die_is_barely_exploitable(
    ones: Ones, dice: tuple[int, int]
) -> None:
    # hard's own mixed move at every information set its play reaches, through a real
    # SeatView (no reveal yet: a stranger), against a best response that knows it.
    values = _values(ones, dice)
    rules = heads_up_rules(ones, dice)
    game = cfr_arrays.array_game(rules, dice, round_lost=round_lost(dice, values))
    tree = cfr_arrays.Tree(game)
    seat = dice.index(1)
    policy = bot_hand_policy(game, rules, hard_policy)
    strategy, _ = cfr_arrays.policy_strategy(tree, policy, seat)
    gain = cfr_arrays.best_response(tree, strategy, 1 - seat)
    own_value = values[dice] if seat == 0 else -values[dice]
    assert gain + own_value <= 0.005  # a best response wins at most the value and a hair


def _values(ones: Ones, upto: tuple[int, int]) -> dict[tuple[int, int], float]:
    """The game values the generator solved `upto`'s round with (bots/uneven_tables.py)."""
    values = {}
    for key, value in VALUES.items():
        mode, dice = key.split()
        if mode == ones.value:
            a, b = dice.split("v")
            values[(int(a), int(b))] = value
    assert upto in values
    return values


@pytest.mark.slow
def test_the_generator_writes_the_stored_tables() -> None:
    # About a minute: the classic rounds up to one die against two, solved afresh.
    tables, report = solve_mode(Ones.WILD, 300, rounds=ROUNDS[Ones.WILD][:3], say=lambda _: None)
    assert tables and all(TABLES[key] == data for key, data in tables.items())
    assert {f"wild {r['dice']}": r["value"] for r in report} == {
        key: value for key, value in VALUES.items() if key in {"wild 1v1", "wild 1v2", "wild 2v1"}
    }


def test_a_bigger_table_down_to_two_seats_plays_the_same_round() -> None:
    # Seats 1 and 3 of a five-dice, four-seat table are left, one die against two: the
    # round's bids and the stored move are those of the heads-up game that was solved.
    four = preset("classic")
    assert round_bids(four, (1, 2)) == round_bids(heads_up_rules(Ones.WILD, (1, 2)), (1, 2))
    two = bidding_view(CLASSIC, (5,), (1, 2), seat=0)
    bigger = bidding_view(four, (5,), (0, 2, 0, 1), seat=3)
    assert bigger.survivors == (1, 3)
    stored = _table_policy(two)
    assert [(c, type(a), getattr(a, "bid", None)) for c, a in _table_policy(bigger)] == [
        (c, type(a), getattr(a, "bid", None)) for c, a in stored
    ]


def _after_a_round(dice: tuple[int, int], opener_loses: bool) -> tuple[tuple[int, int], int] | None:
    """Played on the rules engine: (the dice left, the seat that opens next) after seat 0
    opens a heads-up round at `dice` and the round is lost by the opener or the follower;
    None when the game is over."""
    state = dataclasses.replace(new_game(CLASSIC.with_options(starting_dice=max(dice))), dice=dice)
    state = apply(state, Deal(0))
    hands = (tuple([2] * dice[0]), tuple([3] * dice[1]))
    # One two holds when the opener holds twos; one six fails (no six, no one in play).
    bid = round_bids(CLASSIC, dice)[0 if not opener_loses else 4]
    state = apply(state, PlaceBid(0, bid))
    state = apply(state, Challenge(1))
    state = apply(state, Reveal(hands))
    assert state.last_result is not None and state.last_result.loser == (0 if opener_loses else 1)
    if state.phase == Phase.GAME_OVER:
        return None
    assert state.next_starter is not None
    return (state.dice[0], state.dice[1]), state.next_starter


@pytest.mark.parametrize("dice", [d for d in ROUNDS[Ones.WILD] if d != (1, 1)])
def test_each_rounds_results_are_the_values_of_the_games_the_engine_goes_on_to(
    dice: tuple[int, int],
) -> None:
    values = _values(Ones.WILD, dice)
    expected = []
    for opener_loses in (True, False):
        after = _after_a_round(dice, opener_loses)
        if after is None:  # the loser's last die: the game is won or lost
            expected.append(-1.0 if opener_loses else 1.0)
            continue
        left, opens = after
        # The next game's value is for whoever opens it; ours is seat 0's.
        game = (left[opens], left[1 - opens])
        expected.append(values[game] if opens == 0 else -values[game])
    assert round_lost(dice, values) == pytest.approx(tuple(expected))
