"""CFR+ for heads-up one-round Liar's Dice with several dice each, vectorised with numpy.

Theory of operation
-------------------
Bids are totally ordered (quantity, then face) and every raise is to a later bid, so a public
bid sequence is exactly a set of bid indices: the tree has 2^B nodes for B bids, and the
node of a set S has one parent (S without its highest bid). Nodes are laid out level by
level (level d holds the sequences of d bids), and each node's children are contiguous in
the next level, so "sum over a node's moves" is one `np.add.reduceat` and "the parent's
value" one fancy index. Every array is (nodes of a level) x (private hands).

A private hand is a multiset of dice (21 hands for two six-sided dice), weighted by its
chance. The two seats may hold different numbers of dice (one against two, say): each
seat's arrays have its own hands, and the round's result may be worth less than the game
(`ArrayGame.round_lost`), as when the loser of a round with two dice plays on with one. The walk is chance-exact, as in p2pdice/bots/cfr.py (which solves the 1-die games
with plain Python and gives hard its endgame table); this module is for games too big for
that: two dice each in classic (20 bids, 2^20 sequences) and natural (24 bids, 2^24).

Updates are CFR+: regret matching on clipped regrets, alternating players, averages
weighted by the iteration number. Values are for the opener (player 0) in rounds won minus
lost (+1 / -1); the loser of the call loses the round.

numpy is a test and benchmark dependency only: the package itself never imports this.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from p2pdice.bots.odds import unsupported
from p2pdice.core.bids import Bid, count_matching, legal_bids
from p2pdice.core.rules import Ones, Rules

#: A mixed move: for (player, hand, bid history as indices), the chance of each bid index
#: that may follow and, last, of calling ("liar"; absent before the first bid).
HandPolicy = Callable[[int, tuple[int, ...], tuple[int, ...]], Sequence[float]]


Hands = tuple[tuple[int, ...], ...]  #: a seat's possible hands, each a sorted multiset


@dataclass(frozen=True)
class ArrayGame:
    """A heads-up round: seat 0 (the opener) and seat 1 hold `seat_hands[p]`'s hands with
    chances `seat_chance[p]`; `holds[b][i, j]` says whether bid b stands when the opener
    holds seat_hands[0][i] and the follower seat_hands[1][j]."""

    name: str
    bids: tuple[Bid, ...]
    seat_hands: tuple[Hands, Hands]
    seat_chance: tuple[np.ndarray, np.ndarray]  #: (H_p,) the chance of each hand of seat p
    holds: np.ndarray  #: (B, H_0, H_1) bool
    #: the opener's result when seat 0 / seat 1 loses the round: (-1, +1) when the round
    #: decides the game, the value of the game that follows when it does not.
    round_lost: tuple[float, float] = (-1.0, 1.0)

    @property
    def hands(self) -> Hands:
        """The opener's hands (both seats' when they hold as many dice)."""
        return self.seat_hands[0]

    @property
    def chance(self) -> np.ndarray:
        """The chance of each of the opener's hands."""
        return self.seat_chance[0]


def array_game(
    rules: Rules,
    dice: int | tuple[int, int],
    faces: int = 6,
    round_lost: tuple[float, float] = (-1.0, 1.0),
) -> ArrayGame:
    """Our rules, heads-up, one round (no exact calls, no palifico): `dice` dice each, or
    (the opener's, the follower's); `round_lost` as ArrayGame says.

    Raises if the rules' raises are not "any later bid in (quantity, face) order", the
    property the subset tree rests on (true of classic and natural).
    """
    seat_dice = (dice, dice) if isinstance(dice, int) else dice
    total = sum(seat_dice)
    bids: tuple[Bid, ...] = ()
    for bidder_dice in sorted(set(seat_dice)):
        opening = legal_bids(
            rules, None, dice_in_play=total, palifico_round=False, bidder_dice=bidder_dice
        )
        if bids and tuple(opening) != bids:
            raise ValueError(f"{rules.summary()}: the seats may open on different bids")
        bids = tuple(opening)
        for i, bid in enumerate(bids):
            after = legal_bids(
                rules, bid, dice_in_play=total, palifico_round=False, bidder_dice=bidder_dice
            )
            if tuple(after) != bids[i + 1 :]:
                raise ValueError(f"{rules.summary()}: raises after {bid} are not the later bids")
    wild = rules.ones != Ones.NATURAL
    each = f"{dice} dice each" if isinstance(dice, int) else "{} dice against {}".format(*dice)
    return _game(
        f"p2pdice {rules.summary()}, heads-up, {each}",
        bids,
        seat_dice,
        faces,
        lambda bid, a, b: count_matching((a, b), bid.face, wild_ones=wild) >= bid.quantity,
        round_lost,
    )


def plain_array_game(
    dice: int | tuple[int, int], faces: int, round_lost: tuple[float, float] = (-1.0, 1.0)
) -> ArrayGame:
    """`dice` dice each (or the opener's and the follower's) of `faces` faces, every face
    biddable, nothing wild."""
    seat_dice = (dice, dice) if isinstance(dice, int) else dice
    bids = tuple(Bid(q, f) for q in range(1, sum(seat_dice) + 1) for f in range(1, faces + 1))
    return _game(
        f"{seat_dice[0]} and {seat_dice[1]} dice, {faces} faces, no wilds",
        bids,
        seat_dice,
        faces,
        lambda bid, a, b: sum(d == bid.face for d in a + b) >= bid.quantity,
        round_lost,
    )


def _game(
    name: str,
    bids: tuple[Bid, ...],
    dice: tuple[int, int],
    faces: int,
    stands: Callable[[Bid, tuple[int, ...], tuple[int, ...]], bool],
    round_lost: tuple[float, float] = (-1.0, 1.0),
) -> ArrayGame:
    hands: list[Hands] = []
    chances: list[np.ndarray] = []
    for count in dice:
        rolls = Counter(
            tuple(sorted(r)) for r in itertools.product(range(1, faces + 1), repeat=count)
        )
        hands.append(tuple(sorted(rolls)))
        chances.append(np.array([rolls[h] for h in hands[-1]], dtype=np.float64) / faces**count)
    holds = np.array(
        [[[stands(bid, a, b) for b in hands[1]] for a in hands[0]] for bid in bids], dtype=bool
    )
    return ArrayGame(name, bids, (hands[0], hands[1]), (chances[0], chances[1]), holds, round_lost)


class Tree:
    """The public bid tree of a game, level by level (see the module's docstring)."""

    def __init__(self, game: ArrayGame) -> None:
        n_bids = len(game.bids)
        self.game = game
        self.last: list[np.ndarray] = [np.array([-1])]  #: the standing bid of each node
        self.parent: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        self.first_child: list[np.ndarray] = []
        self.children: list[np.ndarray] = []  #: how many raises each node allows
        while True:
            last = self.last[-1]
            counts = n_bids - 1 - last
            starts = np.cumsum(counts) - counts
            self.children.append(counts)
            self.first_child.append(starts)
            total = int(counts.sum())
            if total == 0:
                break
            parent = np.repeat(np.arange(len(last)), counts)
            offset = np.arange(total) - np.repeat(starts, counts)
            self.parent.append(parent)
            self.last.append(last[parent] + 1 + offset)
        self.depth = len(self.last)
        # Per level, the node indices grouped by standing bid (for the terminal payoffs).
        self.by_bid = [
            [(b, np.flatnonzero(last == b)) for b in np.unique(last) if b >= 0]
            for last in self.last
        ]
        # Per bidder, the opener's result of each called bid (B x H_0 x H_1): if the bid
        # stands the caller loses the round, else the bidder does.
        lost = game.round_lost
        self.opener_result = [
            np.where(game.holds, lost[1 - bidder], lost[bidder]) for bidder in (0, 1)
        ]

    def hands(self, player: int) -> int:
        """How many hands `player` may hold (the width of their arrays)."""
        return len(self.game.seat_hands[player])

    def mover_hands(self, d: int) -> int:
        """The width of level d's move arrays: the hands of the player moving there."""
        return self.hands(d % 2)

    @property
    def nodes(self) -> int:
        return sum(len(x) for x in self.last)

    def moves(self, d: int) -> np.ndarray:
        """How many moves each node of level d allows (its raises, and a call after a bid)."""
        return self.children[d] + (1 if d > 0 else 0)

    def child_sum(self, d: int, values: np.ndarray) -> np.ndarray:
        """Per node of level d, the sum of `values` (rows of level d+1) over its children."""
        return self._over_children(d, values, np.add, 0.0)

    def child_max(self, d: int, values: np.ndarray) -> np.ndarray:
        """Per node of level d, the largest of `values` over its children (-inf: none)."""
        return self._over_children(d, values, np.maximum, -np.inf)

    def _over_children(
        self, d: int, values: np.ndarray, combine: np.ufunc, empty: float
    ) -> np.ndarray:
        counts = self.children[d]
        out = np.full((len(counts), values.shape[1]), empty)
        some = counts > 0
        if values.shape[0]:
            out[some] = combine.reduceat(values, self.first_child[d][some], axis=0)
        return out

    def called(self, d: int, player: int, opponent_reach: np.ndarray) -> np.ndarray:
        """Counterfactual value for `player` of calling each node of level d (d >= 1), per
        hand of theirs, given the opponent's reach of that call."""
        result = self.opener_result[(d - 1) % 2]
        weighted = opponent_reach * self.game.seat_chance[1 - player]
        out = np.zeros((opponent_reach.shape[0], self.hands(player)))
        for b, rows in self.by_bid[d]:
            if player == 0:
                out[rows] = weighted[rows] @ result[b].T
            else:
                out[rows] = -(weighted[rows] @ result[b])
        return out


class Strategy:
    """Both players' play: per level d (where player d % 2 moves), the chance of each raise
    (rows of level d+1) and of calling (rows of level d; zero at the root)."""

    def __init__(self, raises: list[np.ndarray], calls: list[np.ndarray]) -> None:
        self.raises, self.calls = raises, calls

    @classmethod
    def from_weights(
        cls, tree: Tree, raise_w: list[np.ndarray], call_w: list[np.ndarray]
    ) -> Strategy:
        """Normalise non-negative weights per information set; uniform where all are zero."""
        raises, calls = [], []
        for d in range(tree.depth):
            below = raise_w[d]
            total = tree.child_sum(d, below) + call_w[d]
            moves = tree.moves(d)[:, None]
            positive = total > 0
            safe = np.where(positive, total, 1.0)
            calls.append(np.where(positive, call_w[d] / safe, 1.0 / moves) if d else call_w[d])
            parent = tree.parent[d + 1] if d + 1 < tree.depth else np.zeros(0, dtype=np.int64)
            raises.append(np.where(positive[parent], below / safe[parent], 1.0 / moves[parent]))
        return cls(raises, calls)


def zeros(tree: Tree) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Empty per-move arrays: [rows of level d+1 per level d], [rows of level d], each as
    wide as the hands of the player moving at level d."""
    width = [tree.mover_hands(d) for d in range(tree.depth)]
    below = [np.zeros((len(x), width[d])) for d, x in enumerate(tree.last[1:])]
    below.append(np.zeros((0, width[-1])))
    return below, [np.zeros((len(x), width[d])) for d, x in enumerate(tree.last)]


def reaches(tree: Tree, strategy: Strategy, player: int) -> list[np.ndarray]:
    """`player`'s own reach of every node, per hand (the product of their moves' chances)."""
    out = [np.ones((1, tree.hands(player)))]
    for d in range(tree.depth - 1):
        step = out[d][tree.parent[d + 1]]
        out.append(step * strategy.raises[d] if d % 2 == player else step)
    return out


#: Called at each level of the player's own moves with (level, children's values, values of
#: calling, the level's values), for CFR's regret updates.
Visit = Callable[[int, np.ndarray, np.ndarray, np.ndarray], None]


def backward(
    tree: Tree, player: int, strategy: Strategy, *, best: bool, visit: Visit | None = None
) -> np.ndarray:
    """`player`'s counterfactual values at the root, per hand. The opponent plays
    `strategy`; `player` plays it too, or best-responds (`best`)."""
    opponent = reaches(tree, strategy, 1 - player)
    hands = tree.hands(player)
    below = np.zeros((0, hands))
    no_call = np.zeros((1, hands))
    for d in reversed(range(tree.depth)):
        mine = d % 2 == player
        if d == 0:
            call = no_call
        else:
            reach = opponent[d] if mine else opponent[d] * strategy.calls[d]
            call = tree.called(d, player, reach)
        if not mine:
            here = tree.child_sum(d, below) + call
        elif best:
            here = tree.child_max(d, below)
            if d:
                here = np.maximum(here, call)
        else:
            here = tree.child_sum(d, strategy.raises[d] * below) + strategy.calls[d] * call
        if mine and visit is not None:
            visit(d, below, call, here)
        below = here
    return below[0]


def value(tree: Tree, strategy: Strategy) -> float:
    """The opener's expected result when both play `strategy`."""
    return float(tree.game.seat_chance[0] @ backward(tree, 0, strategy, best=False))


def best_response(tree: Tree, strategy: Strategy, player: int) -> float:
    """What a best response in seat `player` wins against `strategy` (its own payoff)."""
    return float(tree.game.seat_chance[player] @ backward(tree, player, strategy, best=True))


def exploitability(tree: Tree, strategy: Strategy) -> float:
    """Mean over both seats of a best response's winnings against `strategy`."""
    return 0.5 * (best_response(tree, strategy, 0) + best_response(tree, strategy, 1))


class CfrPlus:
    """CFR+ over a Tree: alternating updates, clipped regrets, linearly weighted averages."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.raise_regret, self.call_regret = zeros(tree)
        self.raise_total, self.call_total = zeros(tree)
        self.iterations = 0

    def current(self) -> Strategy:
        return Strategy.from_weights(self.tree, self.raise_regret, self.call_regret)

    def average(self) -> Strategy:
        return Strategy.from_weights(self.tree, self.raise_total, self.call_total)

    def iterate(self, count: int = 1) -> None:
        for _ in range(count):
            self.iterations += 1
            for player in (0, 1):
                self._update(player, float(self.iterations))

    def _update(self, player: int, weight: float) -> None:
        tree = self.tree
        sigma = self.current()
        own = reaches(tree, sigma, player)

        def visit(d: int, below: np.ndarray, call: np.ndarray, here: np.ndarray) -> None:
            if below.shape[0]:
                parent = tree.parent[d + 1]
                regret = self.raise_regret[d]
                regret += below - here[parent]
                np.maximum(regret, 0.0, out=regret)
                self.raise_total[d] += weight * own[d][parent] * sigma.raises[d]
            if d:
                regret = self.call_regret[d]
                regret += call - here
                np.maximum(regret, 0.0, out=regret)
                self.call_total[d] += weight * own[d] * sigma.calls[d]

        backward(tree, player, sigma, best=False, visit=visit)


def mixed(tree: Tree, first: Strategy, second: Strategy) -> Strategy:
    """The opener playing `first` and the follower `second`."""
    pick = [first if d % 2 == 0 else second for d in range(tree.depth)]
    return Strategy(
        [p.raises[d] for d, p in enumerate(pick)], [p.calls[d] for d, p in enumerate(pick)]
    )


def history(tree: Tree, d: int, node: int) -> tuple[int, ...]:
    """The bid indices of node `node` of level d, in the order they were made."""
    out = []
    while d > 0:
        out.append(int(tree.last[d][node]))
        node = int(tree.parent[d][node])
        d -= 1
    return tuple(reversed(out))


def policy_strategy(
    tree: Tree, policy: HandPolicy, player: int, *, limit: int = 10_000_000
) -> tuple[Strategy, int]:
    """`player`'s play as `policy` gives it, read wherever that play can reach (the rest of
    the tree keeps uniform chances, which no best response against it can meet); also how
    many information sets were read. Raises past `limit` reads."""
    raises, calls = zeros(tree)
    hands = tree.game.seat_hands[player]
    reach = np.ones((1, len(hands)))
    reads = 0
    for d in range(tree.depth):
        moves = tree.moves(d)
        parent = tree.parent[d + 1] if d + 1 < tree.depth else np.zeros(0, dtype=np.int64)
        if d % 2 != player:
            calls[d][:] = (1.0 / moves[:, None]) if d else 0.0
            raises[d][:] = 1.0 / moves[parent, None]
        else:
            first = tree.first_child[d]
            for node, hand in zip(*np.nonzero(reach > 0), strict=True):
                reads += 1
                if reads > limit:
                    raise RuntimeError(f"more than {limit} information sets to read")
                row = policy(player, hands[hand], history(tree, d, int(node)))
                count = int(tree.children[d][node])
                raises[d][first[node] : first[node] + count, hand] = row[:count]
                if d:
                    calls[d][node, hand] = row[count]
        if d + 1 < tree.depth:
            reach = reach[parent] * raises[d] if d % 2 == player else reach[parent]
            reach = np.where(reach > 1e-12, reach, 0.0)
    return Strategy(raises, calls), reads


def bluffs(game: ArrayGame, *, wild: bool, player: int = 0) -> np.ndarray:
    """(bids x hands of `player`) whether bid b from hand h names a face the hand does not
    support (odds.unsupported)."""
    dice = len(game.seat_hands[player][0])
    return np.array(
        [
            [
                unsupported(
                    count_matching((hand,), bid.face, wild_ones=wild),
                    dice,
                    bid.face,
                    wild_ones=wild,
                )
                for hand in game.seat_hands[player]
            ]
            for bid in game.bids
        ]
    )


def opening_bluff_share(game: ArrayGame, strategy: Strategy, *, wild: bool) -> float:
    """How often the opener, playing `strategy`, names a face its hand does not support (no
    more dice counting toward it than an average hand of its size: a bluff), over its hands
    by their chances: the figure hard's heads-up decoys are set to match
    (hard.HEADS_UP_DECOY_SHARE; for one die, bots/cfr.py's opening_bluff_share)."""
    return float((game.chance * strategy.raises[0] * bluffs(game, wild=wild)).sum())


def change_bluff_share(tree: Tree, strategy: Strategy, *, wild: bool) -> float:
    """How often a raise that changes face, after the opening, names a face the mover's hand
    does not support (as `opening_bluff_share` counts one), over every such raise by the
    chance that it is made: each weighed by both players' reach of its node and the mover's
    hand; NaN when no face changes. The solved two-dice classic game bluffs less here than
    at its openings (0.242 against 0.340, 100 CFR+ iterations; `python -m
    benchmarks.equilibrium --two-dice 100`); hard's own, in self-play, come from
    benchmarks/bluff_shares.py (docs/bots.md, "Two dice each")."""
    game = tree.game
    faces = np.array([bid.face for bid in game.bids])
    bluff = [bluffs(game, wild=wild, player=player) for player in (0, 1)]
    reach = [reaches(tree, strategy, player) for player in (0, 1)]
    chance = game.seat_chance
    bluffed = changes = 0.0
    for d in range(1, tree.depth - 1):
        mover = d % 2
        # The chance of reaching each node with each hand of the mover's.
        here = chance[mover] * reach[mover][d] * (reach[1 - mover][d] @ chance[1 - mover])[:, None]
        parent = tree.parent[d + 1]
        bid = tree.last[d + 1]
        change = faces[bid] != faces[tree.last[d][parent]]
        made = (here[parent] * strategy.raises[d])[change]
        bluffed += float((made * bluff[mover][bid[change]]).sum())
        changes += float(made.sum())
    return bluffed / changes if changes else float("nan")
