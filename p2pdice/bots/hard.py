"""`hard`: reads the other seats' bids, then picks the move worth the most dice.

Theory of operation
-------------------
1. **Beliefs** (bots/belief.py): each opponent's hand is held as an exact distribution over
   face-count vectors, updated by every bid they made this round under a model of a noisy
   probability-threshold player. Their marginals on a face, convolved with each other and
   added to our own matching dice, give the chance that any bid holds or is exact.
2. **Values**, in dice: losing one of ours counts -1, one of an opponent's +`rival` (1 at a
   two-seat table, where their loss is our gain; less when several share the table), and
   regaining one by an exact call +1.
   - Liar: the bidder loses unless the bid holds.
   - Exact: +1 if the count is exact (0 at the cap), else -1.
   - Raise (or open) to b: the next seat calls it with the modelled chance given *their*
     hand, and whether b holds depends on their hand too, so the two are combined per
     possible count in their hand; if they do not call, the round moves on with a small
     value that depends on how sound b is.
3. **Choice**: the best value, except that at a controlled rate (`BLUFF_RATE`) it picks at
   random among raises nearly as good, bluffs included, so its bids cannot be read as
   "it holds what it bids". All randomness comes from the injected random.Random, so a seed
   fixes every decision.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..core.bids import Bid
from ..core.game import Action, Challenge, ExactCall, PlaceBid
from ..core.view import SeatView
from .belief import (
    CHALLENGE_BELOW,
    FACE_LIST,
    challenge_chance,
    convolve,
    face_marginals,
    tail_table,
)
from .odds import at_least, face_probability
from .reads import calling_thresholds

BLUFF_RATE = 0.08  #: share of raises picked at random among the nearly best
BLUFF_MARGIN = 0.06  #: how much worse (in dice) a bluff may be than the best raise
RIVAL_WEIGHT_MULTI = 0.3  #: value of an opponent's lost die when more than two seats remain
PASS_VALUE_HEADS_UP = 0.0  #: value of a raise the next seat does not call, heads-up
PASS_VALUE_MULTI = 0.0  #: the same with more than two seats: the risk moves on
SOUNDNESS_WEIGHT = 0.15  #: extra value per unit of chance that an uncalled raise holds
ADAPT = True  #: estimate each opponent's calling threshold from earlier reveals
RAISE_STEPS = 4  #: quantities tried per face above the lowest legal one


@dataclass(slots=True)
class _FaceOdds:
    """The count on one face: ours, the next seat's belief, and everyone else's combined."""

    own: int
    following: list[float]  #: belief over the next seat's matching dice
    rest_tail: list[float]  #: P(other opponents' matching dice >= k)
    all_dist: list[float]  #: belief over all opponents' matching dice
    all_tail: list[float]

    def holds(self, quantity: int) -> float:
        need = quantity - self.own
        if need <= 0:
            return 1.0
        return self.all_tail[need] if need < len(self.all_tail) else 0.0

    def exact(self, quantity: int) -> float:
        need = quantity - self.own
        return self.all_dist[need] if 0 <= need < len(self.all_dist) else 0.0


def hard(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    thresholds = calling_thresholds(view.rules, view.results) if ADAPT else {}
    odds = _face_odds(view, thresholds)
    survivors = view.survivors
    heads_up = len(survivors) == 2
    rival = 1.0 if heads_up else RIVAL_WEIGHT_MULTI
    follower = _next_seat(view)
    follower_unseen = view.dice_in_play - view.dice[follower]
    follower_calls_below = thresholds.get(follower, CHALLENGE_BELOW)
    pass_value = PASS_VALUE_HEADS_UP if heads_up else PASS_VALUE_MULTI

    calls: list[tuple[float, Action]] = []
    standing = view.standing_bid
    if standing is not None:
        holds = odds[standing.face].holds(standing.quantity)
        calls.append((-holds + rival * (1 - holds), Challenge(seat)))
        if view.can_exact:
            hit = odds[standing.face].exact(standing.quantity)
            gain = 1.0 if view.my_dice < view.rules.starting_dice else 0.0
            calls.append((hit * gain - (1 - hit), ExactCall(seat)))

    raises: list[tuple[float, Action]] = []
    for face, low in view.lowest_bids_per_face().items():
        face_odds = odds[face]
        p = face_probability(face, wild_ones=view.wild_ones)
        top = min(view.dice_in_play, low.quantity + RAISE_STEPS)
        for quantity in range(low.quantity, top + 1):
            value = _raise_value(
                face_odds, quantity, follower_unseen, follower_calls_below, p, rival, pass_value
            )
            raises.append((value, PlaceBid(seat, Bid(quantity, face))))

    best_value, best = max(calls + raises, key=lambda o: o[0])
    if raises and rng.random() < BLUFF_RATE:
        best_raise = max(v for v, _ in raises)
        if best_raise >= best_value - BLUFF_MARGIN:
            near = [a for v, a in raises if v >= best_raise - BLUFF_MARGIN]
            return rng.choice(near)
    return best


def _raise_value(
    odds: _FaceOdds,
    quantity: int,
    follower_unseen: int,
    follower_calls_below: float,
    p: float,
    rival: float,
    pass_value: float,
) -> float:
    """Expected dice of bidding `quantity` on this face, given the next seat's reply."""
    need = quantity - odds.own
    called_value = 0.0
    passed = 0.0
    for m, weight in enumerate(odds.following):
        if not weight:
            continue
        call = challenge_chance(at_least(quantity - m, follower_unseen, p), follower_calls_below)
        k = need - m
        if k <= 0:
            holds = 1.0
        elif k < len(odds.rest_tail):
            holds = odds.rest_tail[k]
        else:
            holds = 0.0
        called_value += weight * call * (rival * holds - (1 - holds))
        passed += weight * (1 - call)
    soundness = odds.holds(quantity)
    return called_value + passed * (pass_value + SOUNDNESS_WEIGHT * soundness)


def _next_seat(view: SeatView) -> int:
    seat = view.seat
    assert seat is not None
    n = len(view.dice)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if view.dice[candidate] > 0:
            return candidate
    return seat


def _face_odds(view: SeatView, thresholds: dict[int, float]) -> dict[int, _FaceOdds]:
    """Per face: our matching dice and the beliefs about everyone else's."""
    seat = view.seat
    follower = _next_seat(view)
    histories: dict[int, list[tuple[Bid | None, Bid]]] = {s: [] for s in view.survivors}
    previous: Bid | None = None
    for placed in view.bids:
        histories.setdefault(placed.seat, []).append((previous, placed.bid))
        previous = placed.bid
    marginals = {
        s: face_marginals(
            view.rules,
            view.palifico_round,
            view.dice_in_play,
            view.dice[s],
            tuple(histories[s]),
            thresholds.get(s, CHALLENGE_BELOW),
        )
        for s in view.survivors
        if s != seat
    }
    out: dict[int, _FaceOdds] = {}
    for face in FACE_LIST:
        rest: list[float] = [1.0]
        for s, marg in marginals.items():
            if s != follower:
                rest = convolve(rest, marg[face - 1])
        following = list(marginals[follower][face - 1]) if follower in marginals else [1.0]
        all_dist = convolve(rest, following)
        out[face] = _FaceOdds(
            own=view.own_matching(face),
            following=following,
            rest_tail=tail_table(rest),
            all_dist=all_dist,
            all_tail=tail_table(all_dist),
        )
    return out
