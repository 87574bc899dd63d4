"""How often a bot bluffs when it opens and when it changes face, in heads-up self-play.

    python -m benchmarks.bluff_shares [--mode classic] [--games 500] [--seed 1] [--json]

A bid bluffs when it names a face the bidder's hand does not support: no more dice counting
toward it than an average hand of its size holds (as benchmarks/cfr_arrays.py's
`opening_bluff_share` and `change_bluff_share` count the solved two-dice game's). Every
decision of the bot, in games against itself, adds its mixed move (`hard_policy`), each bid
weighed by its chance, to the row of (its dice, the other seat's dice): the solved game's
figures (0.340 at openings, 0.242 at changes of face, two dice each) are to be read against
the (2, 2) row. The games are drawn from those chances, so positions come as often as that
play reaches them.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2pdice.bots.hard import drawn
from p2pdice.bots.odds import unsupported
from p2pdice.bots.sim import play_game
from p2pdice.bots.tournament import game_rng
from p2pdice.core.game import Action, PlaceBid
from p2pdice.core.rules import Rules
from p2pdice.core.view import SeatView

from .common import RULE_MODES

MixedMove = Callable[[SeatView], list[tuple[float, Action]]]


@dataclass
class Shares:
    """One (own dice, other's dice) row: bid chances summed, and those that bluff."""

    openings: float = 0.0
    opening_bluffs: float = 0.0
    changes: float = 0.0
    change_bluffs: float = 0.0

    @property
    def opening_share(self) -> float:
        return self.opening_bluffs / self.openings if self.openings else math.nan

    @property
    def change_share(self) -> float:
        return self.change_bluffs / self.changes if self.changes else math.nan


def unsupported_by_hand(view: SeatView, face: int) -> bool:
    """The seat's hand holds no more dice counting toward `face` than an average hand."""
    return unsupported(view.own_matching(face), view.my_dice, face, wild_ones=view.wild_ones)


def self_play(
    rules: Rules, policy: MixedMove, *, games: int, seed: int
) -> dict[tuple[int, int], Shares]:
    """Heads-up games of `policy` against itself; the rows by (own dice, other's dice)."""
    rows: dict[tuple[int, int], Shares] = {}

    def bot(view: SeatView, rng: random.Random) -> Action:
        mixed = policy(view)
        own = view.my_dice
        row = rows.setdefault((own, view.dice_in_play - own), Shares())
        standing = view.standing_bid
        for chance, action in mixed:
            if not isinstance(action, PlaceBid):
                continue
            bluff = chance * unsupported_by_hand(view, action.bid.face)
            if standing is None:
                row.openings += chance
                row.opening_bluffs += bluff
            elif action.bid.face != standing.face:
                row.changes += chance
                row.change_bluffs += bluff
        return drawn(mixed, rng)

    heads_up = rules.with_options(seats=2)
    for game in range(games):
        play_game(heads_up, [bot, bot], game_rng(seed, game))
    return dict(sorted(rows.items()))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bluff_shares")
    parser.add_argument("--mode", choices=sorted(RULE_MODES), default="classic")
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from p2pdice.bots.hard import hard_policy

    rows = self_play(RULE_MODES[args.mode], hard_policy, games=args.games, seed=args.seed)
    if args.json:
        print(
            json.dumps(
                {
                    f"{own},{other}": {
                        "opening_share": row.opening_share,
                        "openings": row.openings,
                        "change_share": row.change_share,
                        "changes": row.changes,
                    }
                    for (own, other), row in rows.items()
                }
            )
        )
        return 0
    print(f"hard against itself, heads-up, {args.mode}, {args.games} games, seed {args.seed}")
    print(
        "dice (own, other)  openings: bluff share (weight)  changes of face: bluff share (weight)"
    )
    for (own, other), row in rows.items():
        print(
            f"  ({own}, {other})            {row.opening_share:6.3f} ({row.openings:7.1f})"
            f"            {row.change_share:6.3f} ({row.changes:7.1f})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
