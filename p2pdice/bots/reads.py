"""Reads on opponents from earlier reveals: how readily each seat calls, and how its bids follow its hand.

Every finished round shows every hand, so each decision a seat made in it can be replayed
from that seat's side, and two traits of each opponent are learnt within the game:

* **Calling threshold.** Facing bid B with hand h, the bid was `s` likely from h alone, and
  they either raised (did not call) or called. Under the logistic model of bots/belief.py
  the threshold is the most probable value on a grid from 0 (calls only the impossible) to
  1 (calls everything), with a prior centred on the public anchor (call below 35%).
* **Bid sharpness.** Each raise they made was one of the small raises open to them; under
  the softmax of bots/belief.py its chance depends on how much their hand supported it. The
  sharpness is read on a grid: strongly hand-led (the anchor), mildly, at random, or *away*
  from the hand (a misleading bidder), with a prior on the anchor. Against that grid stands
  a **habit** model that ignores the hand: the seat picks a kind of raise (on aces or not,
  the smallest step or more) at the rates seen so far from it, then one raise of that kind
  at random. A seat that always raises the same kind whatever it holds (in perudo the
  misleading bidder always bids aces: it holds fewest of them, as every hand does) fits the
  habit far better than any softmax over its hand, which reads such steady safe bids as
  "mildly hand-led" and would credit it with aces it does not hold. When the habit wins,
  the sharpness is 0: its raises say nothing about its hand.

Both are snapped to their grids so the belief caches stay effective. A seat with no
evidence gets the anchor values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..core.bids import Bid, count_matching, lowest_bids_per_face, ones_are_wild
from ..core.game import Call, Outcome, RoundResult
from ..core.rules import Rules
from .belief import CHALLENGE_BELOW, NOISE, PICK_SHARPNESS, challenge_chance
from .odds import at_least, face_probability

THRESHOLDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.85, 1.0)
PRIOR_WIDTH = 0.12  #: standard deviation of the threshold prior around CHALLENGE_BELOW
SHARPNESSES = (-20.0, 0.0, 5.0, PICK_SHARPNESS)  #: the sharpness grid
SHARPNESS_LOG_PRIOR = (-3.0, -2.0, -1.0, 0.0)  #: favours the anchor until evidence is clear
HABIT_LOG_PRIOR = -2.0  #: prior of the hand-blind habit model (as for sharpness 0)
HABIT_KINDS = 4  #: kinds of raise: on aces or not, times smallest step or more
HABIT_SHARPNESS = 0.0  #: the sharpness a seat read as playing by habit gets

#: One raise's habit evidence: its kind, how many open raises share that kind, how many in all.
Habit = tuple[tuple[bool, bool], int, int]


UNREAD_TRUST = 0.5  #: chance that a seat not yet seen at a reveal bids by its hand


@dataclass(frozen=True, slots=True)
class OpponentRead:
    calls_below: float = CHALLENGE_BELOW
    sharpness: float = PICK_SHARPNESS
    trust: float = 1.0  #: chance that its bids follow its hand at `sharpness` (else hand-blind)


ANCHOR = OpponentRead()
#: A seat with no reveal yet: the anchor's threshold, but its bids only half believed, since
#: a stranger who raises the same safe-looking bid whatever they hold is common enough (the
#: perudo misleading bidder, a beginner who always bids aces) that taking every raise at
#: face value hands them the round.
UNREAD = OpponentRead(trust=UNREAD_TRUST)


def _support(bid: Bid, own: int, unseen: int, wild: bool) -> float:
    return at_least(bid.quantity - own, unseen, face_probability(bid.face, wild_ones=wild))


@lru_cache(maxsize=4096)
def _round_evidence(
    rules: Rules, result: RoundResult
) -> tuple[tuple[int, tuple[float, ...], tuple[float, ...], Habit | None], ...]:
    """Per decision in a finished round: the seat, its log-likelihood per threshold and per
    sharpness, and for a raise its habit evidence (None for a call)."""
    if result.outcome == Outcome.FORFEIT or any(h is None for h in result.hands):
        return ()
    wild = ones_are_wild(rules, result.palifico_round)
    in_play = sum(result.dice_before)
    decisions: list[tuple[int, int, bool]] = []  # (seat, index of the bid faced, called)
    for i in range(1, len(result.bids)):
        decisions.append((result.bids[i].seat, i - 1, False))
    if result.call == Call.CHALLENGE and result.caller is not None and result.bids:
        decisions.append((result.caller, len(result.bids) - 1, True))
    flat = (0.0,) * len(SHARPNESSES)
    out = []
    for seat, index, called in decisions:
        hand = result.hands[seat]
        assert hand is not None
        unseen = in_play - len(hand)
        faced = result.bids[index].bid
        own = count_matching((hand,), faced.face, wild_ones=wild)
        support = _support(faced, own, unseen, wild)
        row = []
        for theta in THRESHOLDS:
            chance = challenge_chance(support, theta)
            row.append(math.log(chance if called else 1.0 - chance))
        picks = flat
        habit = None
        if not called:
            picks, habit = _pick_evidence(
                rules,
                result.palifico_round,
                in_play,
                tuple(hand),
                faced,
                result.bids[index + 1].bid,
            )
        out.append((seat, tuple(row), picks, habit))
    return tuple(out)


def _pick_evidence(
    rules: Rules, palifico: bool, in_play: int, hand: tuple[int, ...], previous: Bid, bid: Bid
) -> tuple[tuple[float, ...], Habit]:
    """Log-chance of raising `previous` to `bid` from `hand`, per sharpness on the grid, and
    the raise's habit evidence (its kind among the raises open to the seat)."""
    wild = ones_are_wild(rules, palifico)
    lowest = lowest_bids_per_face(
        rules, previous, dice_in_play=in_play, palifico_round=palifico, bidder_dice=len(hand)
    )
    options = {b for low in lowest.values() for b in (low, Bid(low.quantity + 1, low.face))}
    options = {b for b in options if b.quantity <= in_play}
    options.add(bid)
    unseen = in_play - len(hand)
    supports = {
        b: _support(b, count_matching((hand,), b.face, wild_ones=wild), unseen, wild)
        for b in options
    }
    out = []
    for sharp in SHARPNESSES:
        top = max(sharp * x for x in supports.values())
        total = sum(math.exp(sharp * x - top) for x in supports.values())
        chance = math.exp(sharp * supports[bid] - top) / total
        out.append(math.log((1 - NOISE) * chance + NOISE / len(options)))

    def kind(b: Bid) -> tuple[bool, bool]:
        return (b.face == 1, b.quantity > lowest[b.face].quantity)

    same_kind = sum(1 for b in options if kind(b) == kind(bid))
    return tuple(out), (kind(bid), same_kind, len(options))


_LOG_PRIOR = tuple(-0.5 * ((t - CHALLENGE_BELOW) / PRIOR_WIDTH) ** 2 for t in THRESHOLDS)


def opponent_reads(rules: Rules, results: tuple[RoundResult, ...]) -> dict[int, OpponentRead]:
    """The read of every seat with evidence in `results` (others: use ANCHOR)."""
    calls: dict[int, list[float]] = {}
    picks: dict[int, list[float]] = {}
    habits: dict[int, float] = {}
    kinds_seen: dict[int, dict[tuple[bool, bool], int]] = {}
    for result in results:
        for seat, row, pick_row, habit in _round_evidence(rules, result):
            acc = calls.setdefault(seat, list(_LOG_PRIOR))
            for k, x in enumerate(row):
                acc[k] += x
            pacc = picks.setdefault(seat, list(SHARPNESS_LOG_PRIOR))
            for k, x in enumerate(pick_row):
                pacc[k] += x
            habits.setdefault(seat, HABIT_LOG_PRIOR)
            if habit is not None:
                # The habit's chance of this raise: its kind at the rate seen so far from
                # this seat (add-one), then one of the open raises of that kind.
                kind, same_kind, n_options = habit
                seen = kinds_seen.setdefault(seat, {})
                rate = (seen.get(kind, 0) + 1) / (sum(seen.values()) + HABIT_KINDS)
                chance = (1 - NOISE) * rate / same_kind + NOISE / n_options
                habits[seat] += math.log(chance)
                seen[kind] = seen.get(kind, 0) + 1
    return {seat: _read(acc, picks[seat], habits[seat]) for seat, acc in calls.items()}


def _read(calls: list[float], picks: list[float], habit: float) -> OpponentRead:
    best_pick = max(range(len(SHARPNESSES)), key=picks.__getitem__)
    return OpponentRead(
        calls_below=THRESHOLDS[max(range(len(THRESHOLDS)), key=calls.__getitem__)],
        sharpness=HABIT_SHARPNESS if habit > picks[best_pick] else SHARPNESSES[best_pick],
    )
