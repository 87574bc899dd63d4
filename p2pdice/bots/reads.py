"""Reads on opponents from earlier reveals: how readily each seat calls "Liar".

Every finished round shows every hand, so each decision a seat made in it can be replayed
from that seat's side: facing bid B with hand h, the bid was `s` likely from h alone, and
they either raised (did not call) or called. A seat's calling threshold is then estimated as
the most probable value on a small grid under the logistic model of bots/belief.py, with a
prior centred on the public anchor (call below 35%) so a few rounds move it only when the
evidence is clear. Snapping to the grid keeps the belief caches effective.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..core.bids import count_matching, ones_are_wild
from ..core.game import Call, Outcome, RoundResult
from ..core.rules import Rules
from .belief import CHALLENGE_BELOW, challenge_chance
from .odds import at_least, face_probability

THRESHOLDS = (0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)  #: the grid
PRIOR_WIDTH = 0.1  #: standard deviation of the prior around CHALLENGE_BELOW


@lru_cache(maxsize=4096)
def _round_evidence(rules: Rules, result: RoundResult) -> tuple[tuple[int, tuple[float, ...]], ...]:
    """Per decision in a finished round: the deciding seat and its log-likelihood per threshold."""
    if result.outcome == Outcome.FORFEIT or any(h is None for h in result.hands):
        return ()
    wild = ones_are_wild(rules, result.palifico_round)
    in_play = sum(result.dice_before)
    decisions: list[tuple[int, int, bool]] = []  # (seat, index of the bid faced, called)
    for i in range(1, len(result.bids)):
        decisions.append((result.bids[i].seat, i - 1, False))
    if result.call == Call.CHALLENGE and result.caller is not None and result.bids:
        decisions.append((result.caller, len(result.bids) - 1, True))
    out = []
    for seat, index, called in decisions:
        hand = result.hands[seat]
        assert hand is not None
        bid = result.bids[index].bid
        own = count_matching((hand,), bid.face, wild_ones=wild)
        support = at_least(
            bid.quantity - own, in_play - len(hand), face_probability(bid.face, wild_ones=wild)
        )
        row = []
        for theta in THRESHOLDS:
            chance = challenge_chance(support, theta)
            row.append(math.log(chance if called else 1.0 - chance))
        out.append((seat, tuple(row)))
    return tuple(out)


_LOG_PRIOR = tuple(-0.5 * ((t - CHALLENGE_BELOW) / PRIOR_WIDTH) ** 2 for t in THRESHOLDS)


def calling_thresholds(rules: Rules, results: tuple[RoundResult, ...]) -> dict[int, float]:
    """The estimated calling threshold of every seat with evidence (others: the anchor)."""
    totals: dict[int, list[float]] = {}
    for result in results:
        for seat, row in _round_evidence(rules, result):
            acc = totals.setdefault(seat, list(_LOG_PRIOR))
            for k, x in enumerate(row):
                acc[k] += x
    return {
        seat: THRESHOLDS[max(range(len(THRESHOLDS)), key=acc.__getitem__)]
        for seat, acc in totals.items()
    }
