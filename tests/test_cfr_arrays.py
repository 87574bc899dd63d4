"""The numpy CFR+ of benchmarks/cfr_arrays.py: known values, agreement with the plain-Python
solver of p2pdice/bots/cfr.py on a several-dice game, and exact best responses."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest

from benchmarks.cfr_arrays import (
    ArrayGame,
    CfrPlus,
    Strategy,
    Tree,
    array_game,
    best_response,
    change_bluff_share,
    exploitability,
    opening_bluff_share,
    plain_array_game,
    policy_strategy,
    value,
    zeros,
)
from benchmarks.cfr_arrays import history as node_history
from benchmarks.equilibrium import bot_hand_policy
from p2pdice.bots.cfr import Game, Solver, ours, p2pdice_game
from p2pdice.bots.cfr import expected_value as plain_value
from p2pdice.bots.cfr import exploitability as plain_exploitability
from p2pdice.bots.hard import hard_policy
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, PlacedBid
from p2pdice.core.rules import preset
from tests.support.views import bidding_view


def solved(game: ArrayGame, iterations: int) -> tuple[Tree, Strategy]:
    tree = Tree(game)
    solver = CfrPlus(tree)
    solver.iterate(iterations)
    return tree, solver.average()


@pytest.mark.parametrize(("sides", "known"), [(3, -1 / 9), (4, -1 / 8)])
def test_the_1_die_no_wild_values(sides: int, known: float) -> None:
    tree, average = solved(plain_array_game(1, sides), 200)
    gap = exploitability(tree, average)
    assert gap < 0.002
    assert value(tree, average) == pytest.approx(known, abs=2 * gap + 1e-3)


def test_our_classic_1_die_game_has_the_joker_value() -> None:
    # -7/327: thomasahle/snyd's "joker" game, which is our classic with one die each.
    tree, average = solved(array_game(ours("classic"), 1), 200)
    assert len(tree.game.bids) == len(p2pdice_game(ours("classic")).bids) == 10
    assert value(tree, average) == pytest.approx(-7 / 327, abs=2e-3)


def _plain_solve(game: Game, iterations: int) -> tuple[Solver, float, float]:
    solver = Solver(game)
    solver.iterate(iterations)
    policy = solver.average_policy()
    return solver, plain_value(game, policy, policy), plain_exploitability(game, policy)


def test_two_dice_each_agrees_with_the_plain_solver_over_ordered_rolls() -> None:
    # The plain solver takes each private state as equally likely, so it gets the ordered
    # rolls (4 of them); the array solver the multisets (3) with their chances.
    arrays = plain_array_game(2, 2)
    rolls = tuple(itertools.product((1, 2), repeat=2))
    plain = Game(
        name="2 dice each, 2 faces",
        faces=rolls,
        bids=arrays.bids,
        successors=lambda last: tuple(range(0 if last is None else last + 1, len(arrays.bids))),
        bid_holds=lambda bid, a, b: sum(d == bid.face for d in a + b) >= bid.quantity,
    )
    _, reference, plain_gap = _plain_solve(plain, 300)
    tree, average = solved(arrays, 300)
    gap = exploitability(tree, average)
    assert tree.nodes == 2 ** len(arrays.bids)
    assert gap < 0.005 and plain_gap < 0.005
    assert value(tree, average) == pytest.approx(reference, abs=gap + plain_gap + 1e-3)


def test_a_best_response_to_a_caller_bids_what_it_holds() -> None:
    # Seat 1 calls every bid: the opener bids one of its own face and always wins.
    tree = Tree(plain_array_game(1, 3))

    def always_calls(player: int, hand: tuple[int, ...], history: tuple[int, ...]) -> list[float]:
        moves = len(tree.game.bids) - 1 - history[-1]
        return [0.0] * moves + [1.0]

    caller, reads = policy_strategy(tree, always_calls, 1)
    assert best_response(tree, caller, 0) == pytest.approx(1.0)
    # It is read only where play can reach: after each of the 6 opening bids, per die.
    assert reads == 6 * 3


def test_reading_a_uniform_policy_gives_the_uniform_strategy() -> None:
    tree = Tree(array_game(ours("natural"), 1))
    uniform = Strategy.from_weights(tree, *zeros(tree))

    def even(player: int, hand: tuple[int, ...], history: tuple[int, ...]) -> list[float]:
        after = history[-1] + 1 if history else 0
        moves = len(tree.game.bids) - after + (1 if history else 0)
        return [1.0 / moves] * moves

    for seat in (0, 1):
        read, _ = policy_strategy(tree, even, seat)
        assert best_response(tree, read, 1 - seat) == pytest.approx(
            best_response(tree, uniform, 1 - seat)
        )


def test_the_classic_two_dice_tree_and_perudos_refusal() -> None:
    game = array_game(preset("classic", seats=2).with_options(starting_dice=2), 2)
    assert len(game.bids) == 20 and len(game.hands) == 21
    assert game.chance.sum() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="later bids"):
        array_game(preset("perudo", seats=2).with_options(starting_dice=2), 2)


def test_the_package_never_imports_numpy() -> None:
    code = "import sys, p2pdice.bots.hard, p2pdice.cli; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_hards_two_dice_move_is_read_into_the_right_columns() -> None:
    rules = preset("classic", seats=2).with_options(starting_dice=2)
    game = array_game(rules, 2)
    policy = bot_hand_policy(game, rules, hard_policy)
    opening, top = game.bids.index(Bid(1, 2)), game.bids.index(Bid(4, 6))
    cases = [((3, 4), ()), ((3, 4), (opening,)), ((5, 5), (opening,)), ((3, 4), (opening, top))]
    for hand, history in cases:
        row = policy(len(history) % 2, hand, history)
        after = history[-1] + 1 if history else 0
        assert len(row) == len(game.bids) - after + (1 if history else 0)
        assert sum(row) == pytest.approx(1.0)
        view = bidding_view(
            rules,
            hand,
            (2, 2),
            tuple(PlacedBid(i % 2, game.bids[b]) for i, b in enumerate(history)),
            seat=len(history) % 2,
        )
        named: dict[int | str, float] = {}
        for c, a in hard_policy(view):  # a bluff may name the best move too: chances add
            key = "liar" if isinstance(a, Challenge) else game.bids.index(a.bid) - after
            named[key] = named.get(key, 0.0) + c
        read = {k if k < len(row) - bool(history) else "liar": c for k, c in enumerate(row) if c}
        assert read == pytest.approx(named)
    assert read == {"liar": 1.0}  # nothing is above 4 x 6s: hard calls it


@pytest.mark.slow
def test_the_two_dice_equilibrium_opens_on_a_face_it_lacks_as_the_stored_share_says() -> None:
    # About 10 minutes: 150 CFR+ iterations of classic with two dice each.
    from benchmarks.equilibrium import TWO_DICE_OPENING_BLUFF_SHARE

    game = array_game(preset("classic", seats=2).with_options(starting_dice=2), 2)
    _, average = solved(game, 150)
    share = opening_bluff_share(game, average, wild=True)
    assert share == pytest.approx(TWO_DICE_OPENING_BLUFF_SHARE, abs=0.005)


def _one_die_natural_opened_on_its_own_face() -> tuple[ArrayGame, Tree, np.ndarray]:
    """Natural, one die each, and an opening (level 0's raises) of one of the hand's face."""
    game = array_game(ours("natural"), 1)
    tree = Tree(game)
    opening = zeros(tree)[0][0]
    for h, hand in enumerate(game.hands):
        opening[game.bids.index(Bid(1, hand[0])), h] = 1.0
    return game, tree, opening


def test_the_opening_bluff_share_counts_openings_on_faces_the_hand_lacks() -> None:
    # One die each, natural: an opener that always bids one of its own face never bluffs;
    # one that always bids one six bluffs whenever it holds no six (5 times in 6).
    game, tree, own = _one_die_natural_opened_on_its_own_face()
    raises, calls = zeros(tree)
    sixes = raises[0].copy()
    sixes[game.bids.index(Bid(1, 6)), :] = 1.0
    honest = Strategy([own, *raises[1:]], calls)
    one_six = Strategy([sixes, *raises[1:]], calls)
    assert opening_bluff_share(game, honest, wild=False) == pytest.approx(0.0)
    assert opening_bluff_share(game, one_six, wild=False) == pytest.approx(5 / 6)


def test_the_change_bluff_share_counts_changes_of_face_to_faces_the_hand_lacks() -> None:
    # One die each, natural; the opener always bids one of its own face. A follower that
    # answers two sixes changes face whenever the opener holds no six, and then bluffs
    # whenever it holds none itself (5 times in 6); one that answers two of its own face
    # never bluffs. Same-face raises (two sixes on one six) are not changes of face.
    game, tree, opening = _one_die_natural_opened_on_its_own_face()
    raises, calls = zeros(tree)
    children = [game.bids[b] for b in tree.last[2]]
    honest, sixes = raises[1].copy(), raises[1].copy()
    for row, child in enumerate(children):
        if child == Bid(2, 6):
            sixes[row, :] = 1.0
        for h, hand in enumerate(game.hands):
            if child == Bid(2, hand[0]):
                honest[row, h] = 1.0
    assert (
        change_bluff_share(tree, Strategy([opening, honest, *raises[2:]], calls), wild=False) == 0.0
    )
    assert change_bluff_share(
        tree, Strategy([opening, sixes, *raises[2:]], calls), wild=False
    ) == pytest.approx(5 / 6)


# ---- seats with different numbers of dice, and rounds worth less than the game ------------


def _random_strategy(tree: Tree, seed: int) -> Strategy:
    rng = np.random.default_rng(seed)
    raises, calls = zeros(tree)
    return Strategy.from_weights(
        tree, [rng.random(r.shape) for r in raises], [rng.random(c.shape) for c in calls]
    )


def _walk_values(tree: Tree, strategy: Strategy, responder: int | None) -> float:
    """By plain recursion over every history and both hands: the opener's expected result
    with both seats playing `strategy` (responder None), or what a best response in seat
    `responder` wins, maximising per information set (its hand and the history)."""
    game = tree.game
    lost = game.round_lost
    index: dict[tuple[int, ...], tuple[int, int]] = {}
    for d, level in enumerate(tree.last):
        for node in range(len(level)):
            index[node_history(tree, d, node)] = (d, node)

    def outcome(bids: tuple[int, ...], h0: int, h1: int) -> float:
        bidder = (len(bids) - 1) % 2
        loser = 1 - bidder if game.holds[bids[-1], h0, h1] else bidder
        return lost[loser]

    def moves(bids: tuple[int, ...], hand: int) -> list[tuple[int | None, float]]:
        d, node = index[bids]
        last = bids[-1] if bids else -1
        first = int(tree.first_child[d][node])
        out: list[tuple[int | None, float]] = [
            (last + 1 + k, float(strategy.raises[d][first + k, hand]))
            for k in range(int(tree.children[d][node]))
        ]
        if bids:
            out.append((None, float(strategy.calls[d][node, hand])))
        return out

    def played(bids: tuple[int, ...], h0: int, h1: int) -> float:
        mover_hand = (h0, h1)[len(bids) % 2]
        total = 0.0
        for bid, chance in moves(bids, mover_hand):
            result = outcome(bids, h0, h1) if bid is None else played((*bids, bid), h0, h1)
            total += chance * result
        return total

    if responder is None:
        return sum(
            game.seat_chance[0][h0] * game.seat_chance[1][h1] * played((), h0, h1)
            for h0 in range(len(game.seat_hands[0]))
            for h1 in range(len(game.seat_hands[1]))
        )
    sign = 1.0 if responder == 0 else -1.0
    other = 1 - responder

    def called(at: tuple[int, ...], mine: int, weights: np.ndarray) -> float:
        pairs = [((mine, o) if responder == 0 else (o, mine)) for o in range(len(weights))]
        return sum(w * sign * outcome(at, *pair) for w, pair in zip(weights, pairs, strict=True))

    def best(bids: tuple[int, ...], mine: int, reach: np.ndarray) -> float:
        """The responder's value with hand `mine` at `bids`, summed over the other seat's
        hands weighted by their chance and reach (one information set per (mine, bids))."""
        last = bids[-1] if bids else -1
        raises = range(last + 1, len(game.bids))
        if len(bids) % 2 == responder:
            options = [best((*bids, b), mine, reach) for b in raises]
            if bids:
                options.append(called(bids, mine, reach))
            return max(options)
        chances = [dict(moves(bids, o)) for o in range(len(reach))]
        total = called(bids, mine, reach * [c[None] for c in chances]) if bids else 0.0
        for b in raises:
            total += best((*bids, b), mine, reach * [c[b] for c in chances])
        return total

    return sum(
        game.seat_chance[responder][mine] * best((), mine, game.seat_chance[other].copy())
        for mine in range(len(game.seat_hands[responder]))
    )


@pytest.mark.parametrize("dice", [(1, 2), (2, 1)])
def test_uneven_seats_value_and_best_responses_agree_with_plain_recursion(
    dice: tuple[int, int],
) -> None:
    # Two faces, one die against two: 6 bids, 64 histories; a round worth less than the game.
    game = plain_array_game(dice, 2, round_lost=(-0.4, 0.7))
    assert [len(h) for h in game.seat_hands] == [3 if n == 2 else 2 for n in dice]
    tree = Tree(game)
    for seed in range(3):
        strategy = _random_strategy(tree, seed)
        assert value(tree, strategy) == pytest.approx(_walk_values(tree, strategy, None))
        for responder in (0, 1):
            assert best_response(tree, strategy, responder) == pytest.approx(
                _walk_values(tree, strategy, responder)
            )


def test_an_uneven_round_solves_to_an_equilibrium_between_its_results() -> None:
    # Classic, one die against two, the round worth what the 1-die game after it is worth.
    game = array_game(preset("classic", seats=2), (1, 2), round_lost=(-1.0, 0.02))
    assert len(game.bids) == 15 and [len(h) for h in game.seat_hands] == [6, 21]
    tree, average = solved(game, 150)
    gap = exploitability(tree, average)
    assert gap < 0.002
    # Worse for the seat with one die than an even round, better than losing outright.
    assert -1.0 < value(tree, average) < -0.3
