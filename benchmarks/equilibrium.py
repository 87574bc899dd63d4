"""Equilibrium check: small heads-up Liar's Dice solved exactly by CFR+, and `hard`'s exploitability.

    python -m benchmarks.equilibrium [--iterations N] [--json]
    python -m benchmarks.equilibrium --iterations 300 --write-table p2pdice/bots/endgame.py

The solver and the games are in p2pdice/bots/cfr.py (hard uses its output). Games, each
heads-up, one die each, one round (the loser of the call loses the game), opener first,
values for the opener in games won minus lost:

* **no wilds, 6 faces** (our `natural` mode with `starting_dice=1`, built from
  core/bids.py): every face biddable, bids by quantity then face. Its value is **-1/9**,
  the figure usually quoted for 1-die Liar's Dice (thomasahle/snyd, "normal"). The solver
  reproduces it; the CI test checks the 3- and 4-face versions (-1/9, -1/8).
* **OpenSpiel's `liars_dice`** (1 die each, 6 faces): the same bids, but the *highest* face
  (6) is wild. That is a different game from the no-wilds one: its value is not -1/9 (this
  solver finds about -0.028).
* **ours, classic** (wild ones): one is the wild face, as OpenSpiel's six is, but bids on
  ones are not allowed at all, so there are 10 bids instead of 12. Perudo's aces mode (bids
  on ones with conversions) and exact calls are left out: with `starting_dice` above 1 a
  successful exact call regains a die and the game goes on, so the one-round model would
  be wrong.

Exploitability of a policy is the mean, over the two seats, of what a best response
playing the other seat wins against it: 0 for an equilibrium. `hard`'s policy is read
from p2pdice.bots.hard.hard_policy at every information set (its exact mixed move, bluffs
included) through the same SeatView a game gives it, with and without its solved endgame.

`--two-dice` adds the round with **two dice each** in classic: 20 bids, so 2^20 (1,048,576)
public bid sequences and 21 hands a player, solved by the numpy CFR+ of
benchmarks/cfr_arrays.py (about 4 s an iteration here), with `hard`'s exploitability read
the same way at every information set its own play reaches. Natural with two dice each
(24 bids, 2^24 sequences) needs some 20 GB of arrays and is not attempted.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING

from p2pdice.bots.cfr import (
    ENDGAME_MODES,
    LIAR,
    Game,
    Policy,
    Solver,
    exploitability,
    openspiel_liars_dice,
    ours,
    p2pdice_game,
    solve,
    strategy_table,
    table_policy,
)
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, ExactCall, Phase, PlaceBid, PlacedBid
from p2pdice.core.rules import Ones, Rules, preset
from p2pdice.core.view import SeatView

if TYPE_CHECKING:  # numpy, which cfr_arrays needs, is only needed for --two-dice
    from benchmarks.cfr_arrays import ArrayGame, HandPolicy

#: How often the equilibrium of one round of classic with two dice each opens on a face its
#: hand does not support (`--two-dice`: 0.3401 at 100 and at 150 CFR+ iterations). hard's
#: heads-up decoy share is set so that its own five-dice openings do so as often
#: (hard.HEADS_UP_DECOY_SHARE; tests/bots/test_hard_opening_tells_less_than_its_hand.py).
TWO_DICE_OPENING_BLUFF_SHARE = 0.340


def heads_up_view(
    rules: Rules,
    player: int,
    hand: tuple[int, ...],
    bids: tuple[Bid, ...],
    dice: tuple[int, int] | None = None,
) -> SeatView:
    """Round 1 of a heads-up table, the opener first, `player` to move after `bids` (the
    view a bot gets there), the seats holding `dice` (by default as many as `hand` each)."""
    return SeatView(
        seat=player,
        rules=rules,
        hand=hand,
        dice=(len(hand), len(hand)) if dice is None else dice,
        round=1,
        phase=Phase.BIDDING,
        starter=0,
        turn=player,
        bids=tuple(PlacedBid(i % 2, bid) for i, bid in enumerate(bids)),
        palifico_round=False,
        results=(),
        ranking=(),
        next_starter=None,
    )


def bot_policy(game: Game, rules: Rules, decide_distribution) -> Policy:
    """A bot's exact mixed move at every information set of `game`, through a real SeatView."""
    cache: dict[tuple[int, int, tuple[int, ...]], list[float]] = {}

    def policy(player: int, die: int, history: tuple[int, ...]) -> Sequence[float]:
        key = (player, die, history)
        got = cache.get(key)
        if got is not None:
            return got
        view = heads_up_view(rules, player, (die,), tuple(game.bids[b] for b in history))
        actions = game.actions(history)
        index = {game.bids[a]: k for k, a in enumerate(actions) if a != LIAR}
        row = [0.0] * len(actions)
        for chance, action in decide_distribution(view):
            if isinstance(action, (Challenge, ExactCall)):
                row[len(actions) - 1] += chance  # exact calls are off in these games
            else:
                row[index[action.bid]] += chance
        cache[key] = row
        return row

    return policy


def bot_hand_policy(game: ArrayGame, rules: Rules, decide_distribution) -> HandPolicy:
    """A bot's exact mixed move at every information set of a several-dice `game`, through a
    real SeatView of the first round of a table where the seats hold the game's dice."""
    index = {bid: i for i, bid in enumerate(game.bids)}
    dice = (len(game.seat_hands[0][0]), len(game.seat_hands[1][0]))

    def policy(player: int, hand: tuple[int, ...], history: tuple[int, ...]) -> list[float]:
        bids = tuple(game.bids[b] for b in history)
        view = heads_up_view(rules, player, hand, bids, dice)
        after = history[-1] + 1 if history else 0
        row = [0.0] * (len(game.bids) - after + (1 if history else 0))
        for chance, action in decide_distribution(view):
            if isinstance(action, (Challenge, ExactCall)):
                row[-1] += chance  # exact calls are off in classic
            else:
                row[index[action.bid] - after] += chance
        return row

    return policy


def opening_information(rules: Rules, decide_distribution, dice: int = 5) -> dict[str, float]:
    """What a bot's opening face tells about its hand, at a fresh heads-up table (round 1,
    `dice` dice each, no reveal yet), exactly over every hand it may hold:

    - `mutual_information`: between the face it names and its hand, in bits (0: the face
      says nothing; log2(faces) at most);
    - `surplus`: the mean, over hands and the faces named, of its dice counting toward the
      face named beyond what an average hand holds (own matching - dice x p);
    - `unsupported`: the share of openings on a face the hand does not support (surplus <= 0).
    """
    from p2pdice.bots.belief import hand_space
    from p2pdice.bots.odds import face_probability

    rules = rules.with_options(seats=2, starting_dice=dice)
    wild = rules.ones != Ones.NATURAL
    vectors, prior = hand_space(dice)
    by_hand: list[dict[int, float]] = []
    for counts in vectors:
        hand = tuple(f for f, c in enumerate(counts, 1) for _ in range(c))
        view = heads_up_view(rules, 0, hand, ())
        faces: dict[int, float] = {}
        for chance, action in decide_distribution(view):
            assert isinstance(action, PlaceBid)
            faces[action.bid.face] = faces.get(action.bid.face, 0.0) + chance
        by_hand.append(faces)
    marginal: dict[int, float] = {}
    conditional = surplus = unsupported = 0.0
    for counts, weight, faces in zip(vectors, prior, by_hand, strict=True):
        for face, chance in faces.items():
            marginal[face] = marginal.get(face, 0.0) + weight * chance
            matching = counts[face - 1] + (counts[0] if wild and face != 1 else 0)
            extra = matching - dice * face_probability(face, wild_ones=wild)
            surplus += weight * chance * extra
            unsupported += weight * chance * (extra <= 1e-9)
            if chance > 0:
                conditional -= weight * chance * math.log2(chance)
    entropy = -sum(x * math.log2(x) for x in marginal.values() if x > 0)
    return {
        "mutual_information": entropy - conditional,
        "surplus": surplus,
        "unsupported": unsupported,
    }


def two_dice(iterations: int) -> dict[str, float]:
    """Classic, heads-up, two dice each, one round: CFR+ value and hard's exploitability."""
    from benchmarks import cfr_arrays
    from p2pdice.bots.hard import hard_policy

    rules = preset("classic", seats=2).with_options(starting_dice=2)
    game = cfr_arrays.array_game(rules, 2)
    tree = cfr_arrays.Tree(game)
    started = time.perf_counter()
    solver = cfr_arrays.CfrPlus(tree)
    solver.iterate(iterations)
    average = solver.average()
    row = {
        "iterations": iterations,
        "sequences": tree.nodes,
        "value": cfr_arrays.value(tree, average),
        "cfr_exploitability": cfr_arrays.exploitability(tree, average),
        "opening_bluff_share": cfr_arrays.opening_bluff_share(game, average, wild=True),
        "change_bluff_share": cfr_arrays.change_bluff_share(tree, average, wild=True),
        "seconds": time.perf_counter() - started,
    }
    policy = bot_hand_policy(game, rules, hard_policy)
    wins = []
    for seat in (0, 1):
        strategy, reads = cfr_arrays.policy_strategy(tree, policy, seat)
        wins.append(cfr_arrays.best_response(tree, strategy, 1 - seat))
        row[f"hard_seat{seat}_information_sets"] = reads
        row[f"best_response_against_hard_seat{seat}"] = wins[-1]
        # hard against the equilibrium itself, in hard's own payoff (the value is the most
        # a seat can be sure of; what hard gets short of it is what it gives away).
        pair = (strategy, average) if seat == 0 else (average, strategy)
        opener = cfr_arrays.value(tree, cfr_arrays.mixed(tree, *pair))
        row[f"hard_seat{seat}_against_equilibrium"] = opener if seat == 0 else -opener
    row["hard_exploitability"] = sum(wins) / 2
    return row


def write_table(path: str, iterations: int) -> dict[str, float]:
    """Solve the 1-die heads-up endgame of every mode hard plays from a table; write bots/endgame.py."""
    tables = {}
    gaps = {}
    for mode in ENDGAME_MODES:
        game = p2pdice_game(ours(mode))
        solver = Solver(game)
        solver.iterate(iterations)
        tables[ours(mode).ones.value] = strategy_table(game, solver.average_policy())
        gaps[mode] = exploitability(game, table_policy(game, tables[ours(mode).ones.value]))
    lines = [
        '"""Generated by `python -m benchmarks.equilibrium --write-table`: do not edit.',
        "",
        "hard's strategy when two seats are left with one die each and no exact call: the",
        f"CFR+ equilibrium of that one-round game ({iterations} iterations, bots/cfr.py), per",
        "ones mode, as bots/cfr.py strategy_table() gives it. Exploitability of each table:",
        *(f"{mode}: {gap:.4f}." for mode, gap in gaps.items()),
        '"""',
        "",
        "TABLES: dict[str, dict[str, tuple[tuple[int, float], ...]]] = {",
    ]
    for ones, table in tables.items():
        lines.append(f"    {json.dumps(ones)}: {{")
        for key, pairs in table.items():
            lines.append(f"        {json.dumps(key)}: {pairs!r},")
        lines.append("    },")
    lines.append("}")
    with open(path, "w") as out:
        out.write("\n".join(lines) + "\n")
    return gaps


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.equilibrium")
    parser.add_argument("--iterations", type=int, default=400, help="CFR+ iterations per game")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--two-dice",
        type=int,
        metavar="N",
        default=0,
        help="also solve classic with two dice each, N CFR+ iterations (needs numpy; ~4 s each)",
    )
    parser.add_argument(
        "--write-table",
        metavar="PATH",
        help="solve the endgames and write hard's table there (p2pdice/bots/endgame.py)",
    )
    args = parser.parse_args(argv)
    if args.write_table:
        print(write_table(args.write_table, args.iterations))
        return 0
    from p2pdice.bots.hard import hard_policy

    figures: dict[str, dict[str, float]] = {}
    games: list[tuple[str, Game, Rules | None]] = [("openspiel", openspiel_liars_dice(), None)]
    games += [(mode, p2pdice_game(ours(mode)), ours(mode)) for mode in ("classic", "natural")]
    for name, game, rules in games:
        started = time.perf_counter()
        _, value, nash_gap = solve(game, args.iterations)
        row = {
            "iterations": args.iterations,
            "value": value,
            "cfr_exploitability": nash_gap,
            "seconds": time.perf_counter() - started,
        }
        if rules is not None:
            hard = bot_policy(game, rules, hard_policy)
            row["hard_exploitability"] = exploitability(game, hard)
            heuristic = bot_policy(
                game, rules, lambda view: hard_policy(view, solved_endgame=False)
            )
            row["hard_heuristics_exploitability"] = exploitability(game, heuristic)
        figures[name] = row
    if args.two_dice:
        figures["classic_two_dice"] = two_dice(args.two_dice)
    if args.json:
        print(json.dumps(figures, sort_keys=True))
    else:
        for name, row in figures.items():
            parts = ", ".join(
                f"{k} {v:.4f}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()
            )
            print(f"{name}: {parts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
