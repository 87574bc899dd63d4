"""`hard`: reads the other seats' bids, then picks the move worth the most dice.

Theory of operation
-------------------
1. **Beliefs** (bots/belief.py): each opponent's hand is held as an exact distribution over
   face-count vectors, updated by every bid they made this round under a model of a noisy
   probability-threshold player. Their marginals on a face, convolved with each other and
   added to our own matching dice, give the chance that any bid holds or is exact.
2. **Values**, in dice: losing one of ours counts -1 (a little more when it is our last,
   `LAST_DIE_PREMIUM`), one of an opponent's +`rival` (1 at a two-seat table, where their
   loss is our gain; `RIVAL_WEIGHT_MULTI` when several share the table, since another
   seat's loss helps us less), and regaining one by an exact call +1 (0 at the cap).
   - Liar: the bidder loses unless the bid holds.
   - Exact: we regain a die if the count is exact, else we lose one.
   - Raise (or open) to b: the next seat calls it with the modelled chance given *their*
     hand (and their calling threshold as read from earlier reveals, bots/reads.py), and
     whether b holds depends on their hand too, so the two are combined per possible count
     in their hand; if they do not call, the round moves on with a small value that grows
     with the chance that b holds (a sound bid is a safe floor for the rest of the round).
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
    FACE_LIST,
    challenge_chance,
    convolve,
    face_marginals,
    hand_weights,
    match_column,
    reply_model,
    tail_table,
)
from .odds import at_least, face_probability
from .reads import ANCHOR, OpponentRead, opponent_reads

BLUFF_RATE = 0.08  #: share of raises picked at random among the nearly best
BLUFF_MARGIN = 0.06  #: how much worse (in dice) a bluff may be than the best raise
RIVAL_WEIGHT_MULTI = 0.3  #: value of an opponent's lost die when more than two seats remain
PASS_VALUE_HEADS_UP = 0.0  #: value of a raise the next seat does not call, heads-up
PASS_VALUE_MULTI = 0.0  #: the same with more than two seats: the risk moves on
SOUNDNESS_WEIGHT = 0.15  #: extra value per unit of chance that an uncalled raise holds
LAST_DIE_PREMIUM = 0.3  #: extra cost of losing our last die (it ends our game)
ADAPT = True  #: read each opponent's calling threshold and bid sharpness from earlier reveals
RAISE_STEPS = 4  #: quantities tried per face above the lowest legal one
LOOKAHEAD_RAISES = 8  #: heads-up: raises (best one-step values first) valued by look-ahead
LEAF_RAISE_VALUE = 0.15  #: look-ahead leaf: worth of raising again after the reply, per unit chance


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


@dataclass(frozen=True, slots=True)
class _Stakes:
    """What each outcome is worth to us, in dice, at this table and dice count."""

    own_loss: float  #: cost of losing one of our dice (more when it is our last)
    rival_loss: float  #: worth of an opponent losing one
    regain: float  #: worth of regaining a die by an exact call (0 at the cap)
    pass_value: float  #: worth of a raise the next seat does not call

    @classmethod
    def of(cls, view: SeatView) -> _Stakes:
        heads_up = len(view.survivors) == 2
        last_die = view.my_dice == 1
        return cls(
            own_loss=1.0 + (LAST_DIE_PREMIUM if last_die else 0.0),
            rival_loss=1.0 if heads_up else RIVAL_WEIGHT_MULTI,
            regain=(1.0 + (LAST_DIE_PREMIUM if last_die else 0.0))
            if view.my_dice < view.rules.starting_dice
            else 0.0,
            pass_value=PASS_VALUE_HEADS_UP if heads_up else PASS_VALUE_MULTI,
        )


@dataclass(frozen=True, slots=True)
class _Follower:
    """The next seat: the one who answers our raise."""

    seat: int
    dice: int  #: dice they hold
    unseen: int  #: dice they cannot see
    read: OpponentRead  #: their calling threshold and bid sharpness

    @property
    def calls_below(self) -> float:
        return self.read.calls_below


def hard(view: SeatView, rng: random.Random) -> Action:
    calls, raises = _options(view)
    seat = view.seat
    assert seat is not None
    options = calls + [(v, PlaceBid(seat, b)) for v, b in raises]
    best_value, best = max(options, key=lambda o: o[0])
    if raises and rng.random() < BLUFF_RATE:
        best_raise = max(v for v, _ in raises)
        if best_raise >= best_value - BLUFF_MARGIN:
            near = [PlaceBid(seat, b) for v, b in raises if v >= best_raise - BLUFF_MARGIN]
            return rng.choice(near)
    return best


def hard_policy(view: SeatView) -> list[tuple[float, Action]]:
    """The exact mixed move `hard` makes in `view`: (chance, action) pairs summing to 1.

    The same choice as hard() without drawing from a random source, for analysis (the
    exploitability check of benchmarks/equilibrium.py).
    """
    calls, raises = _options(view)
    seat = view.seat
    assert seat is not None
    options = calls + [(v, PlaceBid(seat, b)) for v, b in raises]
    best_value, best = max(options, key=lambda o: o[0])
    out: list[tuple[float, Action]] = []
    bluff = 0.0
    if raises:
        best_raise = max(v for v, _ in raises)
        if best_raise >= best_value - BLUFF_MARGIN:
            bluff = BLUFF_RATE
            near = [PlaceBid(seat, b) for v, b in raises if v >= best_raise - BLUFF_MARGIN]
            out = [(bluff / len(near), a) for a in near]
    out.append((1.0 - bluff, best))
    return out


def _options(view: SeatView) -> tuple[list[tuple[float, Action]], list[tuple[float, Bid]]]:
    """The calls open to us and the raises we consider, each with its value in dice."""
    seat = view.seat
    assert seat is not None
    reads = opponent_reads(view.rules, view.results) if ADAPT else {}
    odds = _face_odds(view, reads)
    stakes = _Stakes.of(view)
    nxt = _next_seat(view)
    follower = _Follower(
        seat=nxt,
        dice=view.dice[nxt],
        unseen=view.dice_in_play - view.dice[nxt],
        read=reads.get(nxt, ANCHOR),
    )

    calls: list[tuple[float, Action]] = []
    standing = view.standing_bid
    if standing is not None:
        holds = odds[standing.face].holds(standing.quantity)
        calls.append((stakes.rival_loss * (1 - holds) - stakes.own_loss * holds, Challenge(seat)))
        if view.can_exact:
            hit = odds[standing.face].exact(standing.quantity)
            calls.append((stakes.regain * hit - stakes.own_loss * (1 - hit), ExactCall(seat)))

    raises: list[tuple[float, Bid]] = []
    for face, low in view.lowest_bids_per_face().items():
        face_odds = odds[face]
        p = face_probability(face, wild_ones=view.wild_ones)
        top = min(view.dice_in_play, low.quantity + RAISE_STEPS)
        for quantity in range(low.quantity, top + 1):
            value = _raise_value(face_odds, quantity, p, follower, stakes)
            raises.append((value, Bid(quantity, face)))
    if len(view.survivors) == 2 and raises:
        # Heads-up the rest of the round is the two of us: value the best raises by search.
        raises.sort(key=lambda o: -o[0])
        raises = _lookahead(view, [b for _, b in raises[:LOOKAHEAD_RAISES]], follower, stakes)
    return calls, raises


def _lookahead(
    view: SeatView, candidates: list[Bid], follower: _Follower, stakes: _Stakes
) -> list[tuple[float, Bid]]:
    """Heads-up values of `candidates`: the follower's reply, then our best answer to it.

    The follower's hand is held as the belief over its count vectors (their bids this round
    read with their learnt traits); for each raise b of ours they call or raise to some r
    with the chances of belief.reply_model, and after a raise r we take the best of calling
    r, calling it exact, or raising again (a leaf worth LEAF_RAISE_VALUE). Every value is
    exact under the model: the beliefs are updated by the reply itself, per count vector.
    """
    rules = view.rules
    wild = view.wild_ones
    read = follower.read
    history: list[tuple[Bid | None, Bid]] = []
    previous: Bid | None = None
    for placed in view.bids:
        if placed.seat == follower.seat:
            history.append((previous, placed.bid))
        previous = placed.bid
    weights = hand_weights(
        rules,
        view.palifico_round,
        view.dice_in_play,
        follower.dice,
        tuple(history),
        read.calls_below,
        read.sharpness,
    )
    own = {f: view.own_matching(f) for f in FACE_LIST}
    size = follower.dice + 1
    out = []
    for bid in candidates:
        call, replies = reply_model(
            rules,
            view.palifico_round,
            view.dice_in_play,
            follower.dice,
            bid,
            read.calls_below,
            read.sharpness,
        )
        need = bid.quantity - own[bid.face]
        value = 0.0
        for w, c, m in zip(weights, call, match_column(follower.dice, bid.face, wild), strict=True):
            value += w * c * (stakes.rival_loss if m >= need else -stakes.own_loss)
        for reply, picks in replies:
            dist = [0.0] * size
            for w, x, m in zip(
                weights, picks, match_column(follower.dice, reply.face, wild), strict=True
            ):
                dist[m] += w * x
            mass = sum(dist)
            if mass < 1e-9:
                continue
            need_r = reply.quantity - own[reply.face]
            holds = sum(dist[max(0, need_r) :]) if need_r < size else 0.0
            best = max(
                stakes.rival_loss * (mass - holds) - stakes.own_loss * holds,
                LEAF_RAISE_VALUE * mass,
            )
            if rules.exact_call:
                hit = dist[need_r] if 0 <= need_r < size else 0.0
                best = max(best, stakes.regain * hit - stakes.own_loss * (mass - hit))
            value += best
        out.append((value, bid))
    return out


def _raise_value(
    odds: _FaceOdds, quantity: int, p: float, follower: _Follower, stakes: _Stakes
) -> float:
    """Expected dice of bidding `quantity` on this face, given the next seat's reply."""
    need = quantity - odds.own
    called_value = 0.0
    passed = 0.0
    for m, weight in enumerate(odds.following):
        if not weight:
            continue
        # Their call depends on their hand; so does whether the bid holds: combine per count.
        call = challenge_chance(at_least(quantity - m, follower.unseen, p), follower.calls_below)
        k = need - m
        if k <= 0:
            holds = 1.0
        elif k < len(odds.rest_tail):
            holds = odds.rest_tail[k]
        else:
            holds = 0.0
        called_value += weight * call * (stakes.rival_loss * holds - stakes.own_loss * (1 - holds))
        passed += weight * (1 - call)
    soundness = odds.holds(quantity)
    return called_value + passed * (stakes.pass_value + SOUNDNESS_WEIGHT * soundness)


def _next_seat(view: SeatView) -> int:
    seat = view.seat
    assert seat is not None
    n = len(view.dice)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if view.dice[candidate] > 0:
            return candidate
    return seat


def _face_odds(view: SeatView, reads: dict[int, OpponentRead]) -> dict[int, _FaceOdds]:
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
            reads.get(s, ANCHOR).calls_below,
            reads.get(s, ANCHOR).sharpness,
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
