"""Equilibrium check: small heads-up Liar's Dice solved exactly by CFR+, and `hard`'s exploitability.

    python -m benchmarks.equilibrium [--iterations N] [--json]

Theory of operation
-------------------
A one-round heads-up game with one die each is small: a bid sequence only ever rises, so
the public state is the sequence of bids, and each player's private state is their die. The
solver walks the public tree once per iteration with a vector of reach probabilities per
private state (chance-exact, no sampling), and updates regrets with CFR+ (regret matching
on clipped regrets, linearly weighted averages). Values are for the opener (player 0), in
games won minus lost (+1 / -1).

Two games are built:

* **OpenSpiel's `liars_dice`** (1 die each, 6 faces): bids are (quantity, face) in the order
  quantity then face, every face may be bid, and the *highest* face (6) is wild. Its game
  value for the first player is -1/9 (about -0.1111); reproducing it checks the solver.
* **Ours** (p2pdice/core/bids.py), heads-up with `starting_dice=1`, so one round is the
  game. In the wild-ones modes (classic), *one* is the wild face and it may not be bid:
  OpenSpiel's game with its wild face relabelled and removed from the bids. `natural` has
  no wild face at all. Perudo's aces mode adds bids on ones with conversions and palifico,
  which a 1-die game would make the whole game palifico; it is left out. Exact calls are
  off (classic); with 1 die each a successful exact call would regain nothing anyway.

Exploitability of a policy is the mean, over the two seats, of what a best response
playing the other seat wins against it: 0 for an equilibrium. For `hard` the policy is
read from p2pdice.bots.hard.hard_policy at every information set (its exact mixed move,
bluffs included) through the same SeatView a game gives it.

Two dice each is far too big for this pure-Python solver (24 bids, 2^24 public bid
sequences), so it is not attempted; see docs/bots.md.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2pdice.core.bids import Bid, count_matching, legal_bids
from p2pdice.core.game import Challenge, ExactCall, Phase, PlacedBid
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView

LIAR = -1  #: the action index of calling the standing bid

#: A policy: (player, private die, bid history as indices) -> probability per legal action,
#: in the order of Game.actions(history) (bids first, then LIAR when a bid stands).
Policy = Callable[[int, int, tuple[int, ...]], Sequence[float]]


@dataclass
class Game:
    """A one-round heads-up Liar's Dice game with one die each, as a public bid tree."""

    name: str
    faces: tuple[int, ...]  #: the private states: the die each player may hold
    bids: tuple[Bid, ...]  #: every bid, indexed
    successors: Callable[[int | None], tuple[int, ...]]  #: legal bid indices after a bid
    bid_holds: Callable[[Bid, int, int], bool]  #: whether a bid holds given both dice
    _actions: dict[tuple[int, ...], tuple[int, ...]] = field(default_factory=dict)

    def actions(self, history: tuple[int, ...]) -> tuple[int, ...]:
        got = self._actions.get(history)
        if got is None:
            last = history[-1] if history else None
            got = self.successors(last) + ((LIAR,) if history else ())
            self._actions[history] = got
        return got

    def payoff(self, history: tuple[int, ...], d0: int, d1: int) -> float:
        """Opener's payoff when the last bid of `history` is called."""
        bidder = (len(history) - 1) % 2
        holds = self.bid_holds(self.bids[history[-1]], d0, d1)
        bidder_wins = 1.0 if holds else -1.0
        return bidder_wins if bidder == 0 else -bidder_wins


def openspiel_liars_dice() -> Game:
    """OpenSpiel's liars_dice, 1 die each, 6 faces: all faces biddable, face 6 wild."""
    bids = tuple(Bid(q, f) for q in (1, 2) for f in range(1, 7))

    def holds(bid: Bid, d0: int, d1: int) -> bool:
        return sum(d in (bid.face, 6) for d in (d0, d1)) >= bid.quantity

    return Game(
        name="openspiel liars_dice (1 die, 6 faces, 6 wild)",
        faces=tuple(range(1, 7)),
        bids=bids,
        successors=lambda last: tuple(range(0 if last is None else last + 1, len(bids))),
        bid_holds=holds,
    )


def p2pdice_game(rules: Rules) -> Game:
    """Our rules, heads-up with one die each (`rules` must have seats=2, starting_dice=1)."""
    assert rules.seats == 2 and rules.starting_dice == 1
    opening = legal_bids(rules, None, dice_in_play=2, palifico_round=False, bidder_dice=1)
    every: dict[Bid, None] = dict.fromkeys(opening)
    frontier = list(opening)
    while frontier:
        b = frontier.pop()
        for nxt in legal_bids(rules, b, dice_in_play=2, palifico_round=False, bidder_dice=1):
            if nxt not in every:
                every[nxt] = None
                frontier.append(nxt)
    bids = tuple(sorted(every, key=lambda b: (b.quantity, b.face)))
    index = {b: i for i, b in enumerate(bids)}
    after: dict[int | None, tuple[int, ...]] = {None: tuple(index[b] for b in opening)}
    for i, b in enumerate(bids):
        legal = legal_bids(rules, b, dice_in_play=2, palifico_round=False, bidder_dice=1)
        after[i] = tuple(sorted(index[x] for x in legal))
    wild = rules.ones.value != "natural"

    def holds(bid: Bid, d0: int, d1: int) -> bool:
        return count_matching(((d0,), (d1,)), bid.face, wild_ones=wild) >= bid.quantity

    return Game(
        name=f"p2pdice {rules.summary()}, heads-up, 1 die each",
        faces=tuple(range(1, 7)),
        bids=bids,
        successors=after.__getitem__,
        bid_holds=holds,
    )


class Solver:
    """CFR+ over a Game, vectorised over each player's private die."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.n = len(game.faces)
        self.chance = 1.0 / self.n
        self.regrets: dict[tuple[int, tuple[int, ...]], list[list[float]]] = {}
        self.totals: dict[tuple[int, tuple[int, ...]], list[list[float]]] = {}
        self.iterations = 0
        # Per bid: the opener's payoff matrix when it is called, by bidder parity.
        self._win = {
            i: [
                [1.0 if game.bid_holds(b, d0, d1) else -1.0 for d1 in game.faces]
                for d0 in game.faces
            ]
            for i, b in enumerate(game.bids)
        }

    def _current(self, key: tuple[int, tuple[int, ...]], k: int) -> list[list[float]]:
        regrets = self.regrets.get(key)
        if regrets is None:
            regrets = [[0.0] * k for _ in range(self.n)]
            self.regrets[key] = regrets
            self.totals[key] = [[0.0] * k for _ in range(self.n)]
        out = []
        for row in regrets:
            total = sum(row)
            out.append([r / total for r in row] if total > 0 else [1.0 / k] * k)
        return out

    def iterate(self, count: int = 1) -> None:
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):  # alternating updates
                self._walk((), [1.0] * self.n, [1.0] * self.n, player)

    def _terminal(self, history: tuple[int, ...], r0: list[float], r1: list[float]):
        win = self._win[history[-1]]
        sign = 1.0 if (len(history) - 1) % 2 == 0 else -1.0  # the bidder is the opener
        c = self.chance * self.chance
        v0 = [sign * c * sum(w * r for w, r in zip(row, r1, strict=True)) for row in win]
        v1 = [-sign * c * sum(win[i][j] * r0[i] for i in range(self.n)) for j in range(self.n)]
        return v0, v1

    def _walk(self, history: tuple[int, ...], r0: list[float], r1: list[float], updating: int):
        """Counterfactual values (opener's, follower's) per private die at this node."""
        game = self.game
        actions = game.actions(history)
        player = len(history) % 2
        key = (player, history)
        k = len(actions)
        sigma = self._current(key, k)
        own_reach = r0 if player == 0 else r1
        child_values = []
        for a, action in enumerate(actions):
            reach = [own_reach[s] * sigma[s][a] for s in range(self.n)]
            nr0, nr1 = (reach, r1) if player == 0 else (r0, reach)
            if action == LIAR:
                child_values.append(self._terminal(history, nr0, nr1))
            else:
                child_values.append(self._walk((*history, action), nr0, nr1, updating))
        mine = [0.0] * self.n
        theirs = [0.0] * self.n
        for a, (v0, v1) in enumerate(child_values):
            vp, vo = (v0, v1) if player == 0 else (v1, v0)
            for s in range(self.n):
                mine[s] += sigma[s][a] * vp[s]
                theirs[s] += vo[s]
        if player == updating:
            regrets = self.regrets[key]
            totals = self.totals[key]
            weight = self.iterations
            for a, (v0, v1) in enumerate(child_values):
                vp = v0 if player == 0 else v1
                for s in range(self.n):
                    regrets[s][a] = max(0.0, regrets[s][a] + vp[s] - mine[s])
                    totals[s][a] += weight * own_reach[s] * sigma[s][a]
        return (mine, theirs) if player == 0 else (theirs, mine)

    def average_policy(self) -> Policy:
        def policy(player: int, die: int, history: tuple[int, ...]) -> Sequence[float]:
            k = len(self.game.actions(history))
            totals = self.totals.get((player, history))
            row = totals[self.game.faces.index(die)] if totals else [0.0] * k
            total = sum(row)
            return [x / total for x in row] if total > 0 else [1.0 / k] * k

        return policy


def expected_value(game: Game, p0: Policy, p1: Policy) -> float:
    """The opener's expected payoff when player 0 plays `p0` and player 1 plays `p1`."""
    n = len(game.faces)
    chance = 1.0 / n

    def walk(history: tuple[int, ...], reach: list[list[float]]) -> float:
        actions = game.actions(history)
        player = len(history) % 2
        policy = p0 if player == 0 else p1
        rows = {}
        for i, d in enumerate(game.faces):
            for j, e in enumerate(game.faces):
                if reach[i][j]:
                    die = d if player == 0 else e
                    if die not in rows:
                        rows[die] = policy(player, die, history)
        total = 0.0
        for a, action in enumerate(actions):
            nxt = [
                [
                    reach[i][j] * rows[d if player == 0 else e][a] if reach[i][j] else 0.0
                    for j, e in enumerate(game.faces)
                ]
                for i, d in enumerate(game.faces)
            ]
            if action == LIAR:
                total += sum(
                    nxt[i][j] * game.payoff(history, d, e)
                    for i, d in enumerate(game.faces)
                    for j, e in enumerate(game.faces)
                )
            else:
                total += walk((*history, action), nxt)
        return total

    return walk((), [[chance * chance] * n for _ in range(n)])


def best_response_value(game: Game, opponent: Policy, responder: int) -> float:
    """What a best response playing seat `responder` wins (in its own payoff) against `opponent`."""
    n = len(game.faces)
    chance = 1.0 / n
    sign = 1.0 if responder == 0 else -1.0

    def walk(history: tuple[int, ...], reach: list[float]) -> list[float]:
        """Per responder die: sum over opponent dice of chance x opponent reach x payoff."""
        actions = game.actions(history)
        player = len(history) % 2
        values: list[list[float]] = []
        if player == responder:
            for action in actions:
                if action == LIAR:
                    values.append(_terminal(history, reach))
                else:
                    values.append(walk((*history, action), reach))
            return [max(v[s] for v in values) for s in range(n)]
        rows = [opponent(player, e, history) for e in game.faces]
        out = [0.0] * n
        for a, action in enumerate(actions):
            nxt = [reach[j] * rows[j][a] for j in range(n)]
            if not any(nxt):
                continue
            v = _terminal(history, nxt) if action == LIAR else walk((*history, action), nxt)
            out = [x + y for x, y in zip(out, v, strict=True)]
        return out

    def _terminal(history: tuple[int, ...], reach: list[float]) -> list[float]:
        out = []
        for d in game.faces:
            total = 0.0
            for j, e in enumerate(game.faces):
                if reach[j]:
                    dice = (d, e) if responder == 0 else (e, d)
                    total += chance * reach[j] * sign * game.payoff(history, *dice)
            out.append(total)
        return out

    return chance * sum(walk((), [1.0] * n))


def exploitability(game: Game, policy: Policy) -> float:
    """Mean over both seats of a best response's winnings against `policy` (0 at equilibrium)."""
    return 0.5 * (best_response_value(game, policy, 0) + best_response_value(game, policy, 1))


def bot_policy(game: Game, rules: Rules, decide_distribution) -> Policy:
    """A bot's exact mixed move at every information set of `game`, through a real SeatView."""
    cache: dict[tuple[int, int, tuple[int, ...]], list[float]] = {}

    def policy(player: int, die: int, history: tuple[int, ...]) -> Sequence[float]:
        key = (player, die, history)
        got = cache.get(key)
        if got is not None:
            return got
        view = SeatView(
            seat=player,
            rules=rules,
            hand=(die,),
            dice=(1, 1),
            round=1,
            phase=Phase.BIDDING,
            starter=0,
            turn=player,
            bids=tuple(PlacedBid(i % 2, game.bids[b]) for i, b in enumerate(history)),
            palifico_round=False,
            results=(),
            ranking=(),
            next_starter=None,
        )
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


def solve(game: Game, iterations: int) -> tuple[Solver, float, float]:
    """Run CFR+; the average policy's game value for the opener and its exploitability."""
    solver = Solver(game)
    solver.iterate(iterations)
    policy = solver.average_policy()
    return solver, expected_value(game, policy, policy), exploitability(game, policy)


def ours(mode: str) -> Rules:
    base = preset("classic") if mode == "classic" else preset("classic", ones="natural")
    return base.with_options(seats=2, starting_dice=1)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.equilibrium")
    parser.add_argument("--iterations", type=int, default=400, help="CFR+ iterations per game")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from p2pdice.bots.hard import hard_policy

    figures: dict[str, dict[str, float]] = {}
    games = [("openspiel", openspiel_liars_dice(), None)]
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
            row["hard_value_as_opener_vs_itself"] = expected_value(game, hard, hard)
        figures[name] = row
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
