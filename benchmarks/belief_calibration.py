"""How well `hard`'s chances match what the reveals show, against one style.

Whenever `hard` faces a bid it gives it two chances: that the bid holds and that it is
exactly right (`hard.believed_chances`, the figures it decides by). This plays whole games
of `hard` against a style, keeps those chances at every bid `hard` faced, and sets them
against the hands the reveal showed. A well-calibrated player's "30%" bids hold 30% of the
time; a gap says which way its model of that opponent is wrong:

* **faced**: every bid `hard` faced; mean chance it gave them against the share that held;
* **Liar calls** and **exact calls**: the same over the bids it called, where a gap costs
  dice (a selection effect makes the called bids look worse than the model's average, so
  compare a style's line with `medium`'s rather than with zero);
* the same split by stage of the game (the fewer dice of `hard` and the bidder: both at four
  or more, two or three, one), and a reliability table in tenths of the stated chance.

    python -m benchmarks.belief_calibration [--style sampler] [--mode classic] [--seats 2]
                                            [--games 300] [--seed 7] [--json]

Seats are rotated as in tournaments (`bots.tournament.seating`, the same random source per
game), so `--seed` fixes the games.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2pdice.bots import hard
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.bots.tournament import game_rng, seating
from p2pdice.core.bids import Bid, count_matching, ones_are_wild
from p2pdice.core.game import Action, Challenge, ExactCall, RoundResult
from p2pdice.core.rules import Rules
from p2pdice.core.view import SeatView

from .common import RULE_MODES

STAGES = ("both 4+", "2-3", "last die")

#: `believe(view, bid)`: the chances that `bid` holds and that it is exactly right.
Believe = Callable[[SeatView, Bid], tuple[float, float]]


@dataclass(frozen=True, slots=True)
class FacedBid:
    """One bid `hard` faced: the chances it gave it, what it did, what the reveal showed."""

    stage: str
    holds: float
    exact: float
    action: str  #: "raise", "liar" or "exact"
    held: bool
    was_exact: bool


@dataclass(frozen=True, slots=True)
class _Pending:
    """A faced bid until its round's reveal: where it was, and FacedBid's fields so far."""

    round: int
    bids_before: int  #: how many bids had been placed when `hard` faced this one
    seen: tuple[str, float, float, str]  #: stage, holds, exact, action


def stage_of(own_dice: int, bidder_dice: int) -> str:
    fewer = min(own_dice, bidder_dice)
    return STAGES[0] if fewer >= 4 else STAGES[1] if fewer >= 2 else STAGES[2]


class _Recording:
    """`hard` as it plays, keeping the chances it gave every bid it faced."""

    def __init__(self, believe: Believe) -> None:
        self.believe = believe
        self.pending: list[_Pending] = []

    def __call__(self, view: SeatView, rng: random.Random) -> Action:
        action = hard.hard(view, rng)
        bid, bidder, seat = view.standing_bid, view.standing_bidder, view.seat
        if bid is not None and bidder is not None and seat is not None:
            holds, exact = self.believe(view, bid)
            kind = (
                "exact"
                if isinstance(action, ExactCall)
                else "liar"
                if isinstance(action, Challenge)
                else "raise"
            )
            stage = stage_of(view.dice[seat], view.dice[bidder])
            self.pending.append(_Pending(view.round, len(view.bids), (stage, holds, exact, kind)))
        return action


def _settled(rules: Rules, pending: _Pending, result: RoundResult) -> FacedBid:
    bid = result.bids[pending.bids_before - 1].bid
    hands = [h for h in result.hands if h]
    count = count_matching(hands, bid.face, wild_ones=ones_are_wild(rules, result.palifico_round))
    return FacedBid(*pending.seen, held=count >= bid.quantity, was_exact=count == bid.quantity)


def faced_bids(
    style: str, rules: Rules, *, games: int, seed: int, believe: Believe | None = None
) -> tuple[list[FacedBid], int]:
    """Every bid `hard` faced in `games` games against `style` (every other seat), with
    its chances and the truth; and how many games `hard` won."""
    opponent = load_bot(style)
    out: list[FacedBid] = []
    wins = 0
    for g in range(games):
        # `hard` is the first listed bot, wherever the rotation seats it; found by a label of
        # its own, since the style may be `hard` too.
        hard_seat = seating(["measured"] + [style] * (rules.seats - 1), g).index("measured")
        recording = _Recording(believe or hard.believed_chances)
        bots = [recording if s == hard_seat else opponent for s in range(rules.seats)]
        record = play_game(rules, bots, game_rng(seed, g))
        wins += record.ranking[0] == hard_seat
        by_round = {r.round: r for r in record.results}
        # A round forfeited or ended without a reveal shows no hands: nothing to settle.
        out.extend(
            _settled(rules, p, by_round[p.round])
            for p in recording.pending
            if p.round in by_round and by_round[p.round].count is not None
        )
    return out, wins


@dataclass(slots=True)
class Line:
    """Mean stated chance against the share that came true, over some faced bids."""

    n: int = 0
    stated: float = 0.0
    true: int = 0

    def add(self, chance: float, came: bool) -> None:
        self.n += 1
        self.stated += chance
        self.true += came

    def to_json(self) -> dict[str, float | int]:
        return {
            "n": self.n,
            "stated": round(self.stated / self.n, 4) if self.n else 0.0,
            "true": round(self.true / self.n, 4) if self.n else 0.0,
        }


@dataclass(slots=True)
class Calibration:
    faced: dict[str, Line] = field(default_factory=dict)
    liar_calls: dict[str, Line] = field(default_factory=dict)
    exact_calls: dict[str, Line] = field(default_factory=dict)
    reliability: dict[str, Line] = field(default_factory=dict)  #: holds, by tenth stated


def calibration(faced: Sequence[FacedBid]) -> Calibration:
    out = Calibration()
    for f in faced:
        for stage in (f.stage, "all"):
            out.faced.setdefault(stage, Line()).add(f.holds, f.held)
            if f.action == "liar":
                out.liar_calls.setdefault(stage, Line()).add(f.holds, f.held)
            elif f.action == "exact":
                out.exact_calls.setdefault(stage, Line()).add(f.exact, f.was_exact)
        tenth = min(int(f.holds * 10), 9)
        out.reliability.setdefault(f"{tenth / 10:.1f}-{(tenth + 1) / 10:.1f}", Line()).add(
            f.holds, f.held
        )
    return out


def _table(title: str, lines: dict[str, Line], keys: Sequence[str]) -> list[str]:
    if not lines:
        return []  # e.g. exact calls under rules without them
    rows = [f"{title:<22} {'n':>6} {'stated':>7} {'true':>7}"]
    for key in keys:
        line = lines.get(key)
        if line and line.n:
            j = line.to_json()
            rows.append(f"  {key:<20} {line.n:>6} {j['stated']:>7.3f} {j['true']:>7.3f}")
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.belief_calibration")
    parser.add_argument("--style", default="sampler")
    parser.add_argument("--mode", choices=sorted(RULE_MODES), default="classic")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rules = dataclasses.replace(RULE_MODES[args.mode], seats=args.seats)
    faced, wins = faced_bids(args.style, rules, games=args.games, seed=args.seed)
    cal = calibration(faced)
    if args.json:
        print(
            json.dumps(
                {
                    "style": args.style,
                    "mode": args.mode,
                    "seats": args.seats,
                    "games": args.games,
                    "seed": args.seed,
                    "hard_wins": wins,
                    **{
                        name: {k: v.to_json() for k, v in getattr(cal, name).items()}
                        for name in ("faced", "liar_calls", "exact_calls", "reliability")
                    },
                }
            )
        )
        return 0
    print(
        f"hard against {args.style}, {args.mode}, {args.seats} seats, {args.games} games "
        f"(seed {args.seed}): hard won {wins}"
    )
    stages = (*STAGES, "all")
    for rows in (
        _table("faced: holds", cal.faced, stages),
        _table("Liar calls: holds", cal.liar_calls, stages),
        _table("exact calls: exact", cal.exact_calls, stages),
        _table("reliability: holds", cal.reliability, sorted(cal.reliability)),
    ):
        if rows:
            print("\n".join(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
