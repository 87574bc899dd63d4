"""Two readers of the stronger gauntlet (docs/bots.md): styles that take the other seats' bids
as evidence of their hands, the way a careful person at a real table does.

- `crediting-reader`: a plain probability-threshold player (medium's thresholds) that
  *believes* bids. Each opening or change of face credits its bidder with two dice of that
  face, each raise on the same face with one more (two for a jump of two or more), never
  more than the seat holds. The credited dice count as shown when it weighs a bid, for its
  calls, its exact calls and its raises alike (the rest of the unseen dice as chance has
  them), so it rides the face another seat named.
  Breaks "my bids can follow my hand": a player whose bids show its hand is raised on its
  own face and never called when it tells the truth.
- `sampler`: a Monte-Carlo player. It deals the unseen hands many times over, each seat's
  hand drawn in proportion to how well it explains every bid that seat made this round
  (a model of a noisy threshold player whose calling threshold and face choice are read
  from this game's reveals), and picks the action with the best estimated value: Liar,
  exact, or one of its best raises, each raise valued on the same deals by the next seat's
  modelled reply (call, or its most likely small raise) and, heads-up, by its own best
  answer to that reply.

Both are pure functions of the view and the injected random source, like every bot.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

from ..core.bids import Bid, count_matching, lowest_bids_per_face, ones_are_wild, shared_bid
from ..core.cache_tokens import rules_of_token, rules_token
from ..core.game import Action, Call, Challenge, ExactCall, PlaceBid, RoundResult
from ..core.rules import ExactReward, Rules
from ..core.view import SeatView
from .medium import CHALLENGE_BELOW, EXACT_AT_LEAST, RAISE_AT_LEAST, medium
from .odds import at_least, exactly, face_probability

# ---- the crediting reader --------------------------------------------------------------------

CREDIT_NEW_FACE = 2  #: dice credited to an opening or a change of face
CREDIT_STEP = 1  #: dice credited to a raise by one on the same face


def credited_dice(view: SeatView) -> dict[int, dict[int, int]]:
    """Dice credited to each other seat by its bids this round: seat -> face -> dice.

    A seat is never credited with more dice than it holds; earlier bids keep their credit.
    """
    credits: dict[int, dict[int, int]] = {}
    previous: Bid | None = None
    for placed in view.bids:
        bid = placed.bid
        if previous is None or bid.face != previous.face:
            amount = CREDIT_NEW_FACE
        else:
            amount = min(CREDIT_NEW_FACE, max(CREDIT_STEP, bid.quantity - previous.quantity))
        previous = bid
        if placed.seat == view.seat:
            continue
        held = credits.setdefault(placed.seat, {})
        amount = min(amount, view.dice[placed.seat] - sum(held.values()))
        if amount > 0:
            held[bid.face] = held.get(bid.face, 0) + amount
    return credits


@dataclass(frozen=True, slots=True)
class CreditedCount:
    """The count on one face as the reader sees it: its own dice, the credited dice that
    count toward it, and the unseen dice nobody was credited with (each counts with `p`).
    Dice credited to another face are taken to show that face: the reader rides the face a
    seat named rather than spreading its credit over the wild ones it might hold."""

    own: int
    credited: int
    free: int
    p: float

    def holds(self, quantity: int) -> float:
        return at_least(quantity - self.own - self.credited, self.free, self.p)

    def exact(self, quantity: int) -> float:
        return exactly(quantity - self.own - self.credited, self.free, self.p)


def credited_count(view: SeatView, credits: dict[int, dict[int, int]], face: int) -> CreditedCount:
    wild = view.wild_ones
    counting = credited = 0
    for held in credits.values():
        for credited_face, n in held.items():
            credited += n
            if credited_face == face or (wild and credited_face == 1):
                counting += n  # the face itself, or aces bid as aces: wild for every face
    return CreditedCount(
        own=view.own_matching(face),
        credited=counting,
        free=view.unseen_dice - credited,
        p=face_probability(face, wild_ones=wild),
    )


def _exact_pays(view: SeatView) -> bool:
    # At the starting dice a hit regains nothing, unless it costs every other seat a die.
    rules = view.rules
    return view.my_dice < rules.starting_dice or rules.exact_reward == ExactReward.OTHERS_LOSE


def crediting_reader(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    if standing is None:
        return medium(view, rng)  # nothing to credit yet: an honest opening
    credits = credited_dice(view)
    counts = {f: credited_count(view, credits, f) for f in range(1, 7)}
    odds = counts[standing.face]
    if view.can_exact and _exact_pays(view) and odds.exact(standing.quantity) >= EXACT_AT_LEAST:
        return ExactCall(seat)
    if odds.holds(standing.quantity) < CHALLENGE_BELOW:
        return Challenge(seat)
    candidates = [
        b
        for low in view.lowest_bids_per_face().values()
        for b in (low, Bid(low.quantity + 1, low.face))
        if b.quantity <= view.dice_in_play
    ]
    if not candidates:
        return Challenge(seat)
    # Most likely first; ties go to the smaller quantity, then the higher face.
    best = max(candidates, key=lambda b: (counts[b.face].holds(b.quantity), -b.quantity, b.face))
    if counts[best.face].holds(best.quantity) >= RAISE_AT_LEAST:
        return PlaceBid(seat, best)
    return Challenge(seat)


# ---- the Monte-Carlo sampler -----------------------------------------------------------------

SAMPLES = 300  #: joint deals of the unseen hands per decision
NOISE = 0.1  #: every modelled choice is mixed with this much of a uniform one
CALL_WIDTH = 0.08  #: logistic width of a modelled call around its threshold
CALL_PRIOR = 0.35  #: calling threshold assumed of a seat before evidence (the public anchor)
CALL_PRIOR_SD = 0.15
THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.75)
SHARPNESS = 2.0  #: face choice of a hand-led seat: softmax weight per die of surplus
HONEST_SURPLUS = 0.8  #: a hand-led seat's mean surplus on the faces it names
SURPLUS_PRIOR = 3  #: pseudo-observations of HONEST_SURPLUS before any reveal
PLAUSIBLE_AT = 0.2  #: a seat seldom bids what its own hand makes less likely than this
RAISE_STEPS = 2  #: quantities tried per face above the lowest legal one
LOOKAHEAD = 6  #: raises (most likely first) valued by the next seat's reply
PASS_RISK = 0.3  #: more than two seats: cost of a false raise the next seat lets pass


def _logistic(x: float) -> float:
    if x < -40:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


@lru_cache(maxsize=8)
def _hands(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """Every hand of `n` dice as a sorted tuple, with its chance under fair dice."""
    hands = tuple(combinations_with_replacement(range(1, 7), n))
    prior = []
    for hand in hands:
        ways = math.factorial(n)
        for face in range(1, 7):
            ways //= math.factorial(hand.count(face))
        prior.append(ways / 6**n)
    return hands, tuple(prior)


@lru_cache(maxsize=16)
def _vectors(n: int, wild: bool) -> tuple[tuple[int, ...], ...]:
    """Per hand of `n` dice: the dice counting toward each face (index 0 unused)."""
    return tuple(
        (0, *(count_matching((hand,), face, wild_ones=wild) for face in range(1, 7)))
        for hand in _hands(n)[0]
    )


def _lowest_raises(
    rules: Rules, previous: Bid | None, dice_in_play: int, palifico: bool, bidder_dice: int
) -> tuple[Bid, ...]:
    """The lowest legal bid on each face that has one, in face order."""
    quantity, face = (0, 0) if previous is None else (previous.quantity, previous.face)
    return _lowest_raises_cached(
        rules_token(rules), quantity, face, dice_in_play, palifico, bidder_dice
    )


@lru_cache(maxsize=4096)
def _lowest_raises_cached(
    rules_key: int, quantity: int, face: int, dice_in_play: int, palifico: bool, bidder_dice: int
) -> tuple[Bid, ...]:
    # Keyed by numbers (a quantity of 0: no bid yet) to keep the keys out of the garbage
    # collector's walks; the shared Bids of the value are a handful of objects in all.
    lowest = lowest_bids_per_face(
        rules_of_token(rules_key),
        None if quantity == 0 else shared_bid(quantity, face),
        dice_in_play=dice_in_play,
        palifico_round=palifico,
        bidder_dice=bidder_dice,
    )
    return tuple(lowest.values())


def _chance(matching: int, bid: Bid, unseen: int, wild: bool) -> float:
    p = face_probability(bid.face, wild_ones=wild)
    return at_least(bid.quantity - matching, unseen, p)


@lru_cache(maxsize=4096)
def _bid_likelihood(
    n: int,
    dice_in_play: int,
    previous: Bid | None,
    bid: Bid,
    faces: tuple[int, ...],
    wild: bool,
    calls_below: float,
    sharpness: float,
) -> tuple[float, ...]:
    """Per hand of `n` dice: how likely a seat holding it was to make `bid` after `previous`.

    Three things a threshold player's bid says: it did not call `previous` (so that bid was
    not too unlikely from its hand), it named this face among those open to it (a softmax
    over its surplus on each, half as sharp for a step on the same face), and the bid is
    not one its own hand makes very unlikely.
    """
    unseen = dice_in_play - n
    change = previous is None or bid.face != previous.face
    beta = sharpness if change else sharpness / 2
    expected = {g: n * face_probability(g, wild_ones=wild) for g in faces}
    out = []
    for m in _vectors(n, wild):
        like = 1.0
        if previous is not None:
            seen = _chance(m[previous.face], previous, unseen, wild)
            like *= NOISE + (1 - NOISE) * _logistic((seen - calls_below) / CALL_WIDTH)
        weights = {g: math.exp(beta * (m[g] - expected[g])) for g in faces}
        share = weights.get(bid.face, 0.0) / sum(weights.values())
        like *= NOISE / len(faces) + (1 - NOISE) * share
        seen = _chance(m[bid.face], bid, unseen, wild)
        like *= NOISE + (1 - NOISE) * _logistic((seen - PLAUSIBLE_AT) / CALL_WIDTH)
        out.append(like)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class SeatRead:
    """What this game's reveals say about how one seat plays."""

    calls_below: float = CALL_PRIOR  #: the threshold under which it calls a bid
    sharpness: float = SHARPNESS  #: how strongly the faces it names follow its hand (< 0: away)


@lru_cache(maxsize=256)
def seat_reads(results: tuple[RoundResult, ...], rules: Rules) -> dict[int, SeatRead]:
    """Each seat's read from every finished round: its calls and raises against the chance its
    own hand gave the bid it faced, and its surplus on each face it opened or changed to."""
    faced: dict[int, list[tuple[float, bool]]] = {}
    surplus: dict[int, list[float]] = {}
    for result in results:
        if not result.bids or result.call is None:
            continue
        wild = ones_are_wild(rules, result.palifico_round)
        in_play = sum(result.dice_before)
        previous: Bid | None = None
        for placed in result.bids:
            hand = result.hands[placed.seat] if placed.seat < len(result.hands) else None
            if hand:
                unseen = in_play - len(hand)
                if previous is not None:
                    own = count_matching((hand,), previous.face, wild_ones=wild)
                    faced.setdefault(placed.seat, []).append(
                        (_chance(own, previous, unseen, wild), False)
                    )
                if previous is None or placed.bid.face != previous.face:
                    face = placed.bid.face
                    own = count_matching((hand,), face, wild_ones=wild)
                    p = face_probability(face, wild_ones=wild)
                    surplus.setdefault(placed.seat, []).append(own - len(hand) * p)
            previous = placed.bid
        caller = result.caller
        if result.call == Call.CHALLENGE and caller is not None and previous is not None:
            hand = result.hands[caller] if caller < len(result.hands) else None
            if hand:
                own = count_matching((hand,), previous.face, wild_ones=wild)
                seen = _chance(own, previous, in_play - len(hand), wild)
                faced.setdefault(caller, []).append((seen, True))
    reads = {}
    for seat in set(faced) | set(surplus):
        names = surplus.get(seat, [])
        mean = (sum(names) + SURPLUS_PRIOR * HONEST_SURPLUS) / (len(names) + SURPLUS_PRIOR)
        trust = max(-1.0, min(1.0, mean / HONEST_SURPLUS))
        reads[seat] = SeatRead(
            calls_below=_threshold(faced.get(seat, [])),
            sharpness=round(4 * SHARPNESS * trust) / 4,  # on a grid, for the caches
        )
    return reads


def _threshold(evidence: Iterable[tuple[float, bool]]) -> float:
    """The most probable calling threshold on the grid, given (chance faced, called) pairs."""
    evidence = list(evidence)

    def score(theta: float) -> float:
        total = -((theta - CALL_PRIOR) ** 2) / (2 * CALL_PRIOR_SD**2)
        for seen, called in evidence:
            call = _logistic((theta - seen) / CALL_WIDTH)
            total += math.log(NOISE / 2 + (1 - NOISE) * (call if called else 1 - call))
        return total

    return max(THRESHOLDS, key=score)


def _next_seat(view: SeatView) -> int:
    seat = view.seat
    assert seat is not None
    n = len(view.dice)
    return next((seat + k) % n for k in range(1, n) if view.dice[(seat + k) % n] > 0)


@dataclass(slots=True)
class Deals:
    """Joint deals of the unseen hands: per sample, the hand index of each other seat (into
    `_hands(dice)`) and the count of every face over all hands, ours included."""

    picks: dict[int, list[int]]
    counts: list[tuple[int, ...]]

    def hands(self, view: SeatView) -> list[tuple[tuple[int, ...], ...]]:
        """Each sample as a hand per seat: ours, the sampled ones, () for seats that are out."""
        deals = []
        for j in range(len(self.counts)):
            deal = []
            for seat, n in enumerate(view.dice):
                if seat == view.seat:
                    deal.append(tuple(sorted(view.hand)))
                elif seat in self.picks:
                    deal.append(_hands(n)[0][self.picks[seat][j]])
                else:
                    deal.append(())
            deals.append(tuple(deal))
        return deals


def every_hand(n: int) -> tuple[tuple[int, ...], ...]:
    """Every hand of `n` dice as a sorted tuple, in the order of `hand_posterior`'s weights."""
    return _hands(n)[0]


def hand_posterior(view: SeatView, seat: int, read: SeatRead) -> list[float]:
    """Weight of each hand of `seat` (in `every_hand` order): its prior times how well it explains
    every bid that seat made this round (unnormalised)."""
    n = view.dice[seat]
    weights = list(_hands(n)[1])
    wild = view.wild_ones
    previous: Bid | None = None
    for placed in view.bids:
        if placed.seat == seat:
            faces = tuple(
                low.face
                for low in _lowest_raises(
                    view.rules, previous, view.dice_in_play, view.palifico_round, n
                )
            )
            like = _bid_likelihood(
                n,
                view.dice_in_play,
                previous,
                placed.bid,
                faces or (placed.bid.face,),
                wild,
                read.calls_below,
                read.sharpness,
            )
            weights = [w * x for w, x in zip(weights, like, strict=True)]
        previous = placed.bid
    return weights


def sample_deals(view: SeatView, rng: random.Random, samples: int = SAMPLES) -> Deals:
    """`samples` joint deals of the other seats' hands, each seat's drawn from its posterior."""
    reads = seat_reads(view.results, view.rules)
    wild = view.wild_ones
    picks: dict[int, list[int]] = {}
    for seat, n in enumerate(view.dice):
        if seat == view.seat or n == 0:
            continue
        weights = hand_posterior(view, seat, reads.get(seat, SeatRead()))
        picks[seat] = rng.choices(range(len(weights)), weights=weights, k=samples)
    own = (0, *(view.own_matching(face) for face in range(1, 7)))
    counts = []
    for j in range(samples):
        total = list(own)
        for seat, chosen in picks.items():
            m = _vectors(view.dice[seat], wild)[chosen[j]]
            for face in range(1, 7):
                total[face] += m[face]
        counts.append(tuple(total))
    return Deals(picks=picks, counts=counts)


def _reply(
    rules: Rules,
    palifico: bool,
    dice_in_play: int,
    n: int,
    hand: int,
    bid: Bid,
    calls_below: float,
) -> tuple[float, Bid | None]:
    """The next seat's modelled answer to `bid` holding hand number `hand` of `n` dice: the
    chance it calls, and the raise it makes otherwise (its most likely small raise)."""
    call, quantity, face = _reply_cached(
        rules_token(rules), palifico, dice_in_play, n, hand, bid.quantity, bid.face, calls_below
    )
    return call, None if quantity == 0 else shared_bid(quantity, face)


@lru_cache(maxsize=65536)
def _reply_cached(
    rules_key: int,
    palifico: bool,
    dice_in_play: int,
    n: int,
    hand: int,
    quantity: int,
    face: int,
    calls_below: float,
) -> tuple[float, int, int]:
    # Plain numbers in and out (a quantity of 0: no raise): the cache holds tens of thousands
    # of entries, and keys and values of numbers leave the garbage collector's view, where
    # Rules and Bids would keep every entry in each full collection's walk, a pause that
    # lands in whichever player's decision is running (docs/bots.md, "Decision time").
    rules = rules_of_token(rules_key)
    bid = shared_bid(quantity, face)
    wild = ones_are_wild(rules, palifico)
    m = _vectors(n, wild)[hand]
    unseen = dice_in_play - n
    seen = _chance(m[bid.face], bid, unseen, wild)
    call = NOISE / 2 + (1 - NOISE) * _logistic((calls_below - seen) / CALL_WIDTH)
    options = [
        b
        for low in _lowest_raises(rules, bid, dice_in_play, palifico, n)
        for b in (low, shared_bid(low.quantity + 1, low.face))
        if b.quantity <= dice_in_play
    ]
    if not options:
        return 1.0, 0, 0
    raise_to = max(
        options, key=lambda b: (_chance(m[b.face], b, unseen, wild), -b.quantity, b.face)
    )
    return call, raise_to.quantity, raise_to.face


class _Judge:
    """Values of our actions, in dice, estimated on one set of deals."""

    def __init__(self, view: SeatView, deals: Deals) -> None:
        self.view = view
        self.deals = deals
        self.size = len(deals.counts)
        survivors = len(view.survivors)
        self.heads_up = survivors == 2
        self.rival = 1.0 if self.heads_up else 1.0 / (survivors - 1)
        rules = view.rules
        if rules.exact_reward == ExactReward.OTHERS_LOSE:
            self.regain = self.rival * (survivors - 1)
        else:
            self.regain = 1.0 if view.my_dice < rules.starting_dice else 0.0

    def holds_share(self, bid: Bid, members: Iterable[tuple[int, float]] | None = None) -> float:
        f, q = bid.face, bid.quantity
        if members is None:
            return sum(1 for c in self.deals.counts if c[f] >= q) / self.size
        members = list(members)
        weight = sum(w for _, w in members)
        return sum(w for j, w in members if self.deals.counts[j][f] >= q) / weight

    def exact_share(self, bid: Bid, members: Iterable[tuple[int, float]] | None = None) -> float:
        f, q = bid.face, bid.quantity
        if members is None:
            return sum(1 for c in self.deals.counts if c[f] == q) / self.size
        members = list(members)
        weight = sum(w for _, w in members)
        return sum(w for j, w in members if self.deals.counts[j][f] == q) / weight

    def call(self, bid: Bid, members: list[tuple[int, float]] | None = None) -> float:
        true = self.holds_share(bid, members)
        return (1 - true) * self.rival - true

    def exact(self, bid: Bid, members: list[tuple[int, float]] | None = None) -> float:
        hit = self.exact_share(bid, members)
        return hit * self.regain - (1 - hit)

    def answer(self, bid: Bid, members: list[tuple[int, float]]) -> float:
        """Heads-up: our best answer to the next seat's raise `bid`, on the deals in which it
        would have made it (weighted by the chance it did)."""
        view = self.view
        best = self.call(bid, members)
        if view.rules.exact_call:
            best = max(best, self.exact(bid, members))
        for low in _lowest_raises(
            view.rules, bid, view.dice_in_play, view.palifico_round, view.my_dice
        ):
            best = max(best, 2 * self.holds_share(low, members) - 1)
        return best

    def raise_value(self, bid: Bid) -> float:
        view = self.view
        follower = _next_seat(view)
        read = seat_reads(view.results, view.rules).get(follower, SeatRead())
        n = view.dice[follower]
        picks = self.deals.picks[follower]
        total = 0.0
        answered: dict[Bid | None, list[tuple[int, float]]] = {}
        for j, c in enumerate(self.deals.counts):
            call, raise_to = _reply(
                view.rules,
                view.palifico_round,
                view.dice_in_play,
                n,
                picks[j],
                bid,
                read.calls_below,
            )
            holds = c[bid.face] >= bid.quantity
            total += call * (self.rival if holds else -1.0)
            if raise_to is None or call >= 1.0:
                continue
            if self.heads_up:
                answered.setdefault(raise_to, []).append((j, 1 - call))
            elif not holds:
                total -= (1 - call) * PASS_RISK
        for raise_to, members in answered.items():
            assert raise_to is not None
            total += sum(w for _, w in members) * self.answer(raise_to, members)
        return total / self.size


def _candidates(view: SeatView) -> list[Bid]:
    """Raises worth valuing: per face its lowest legal quantity and RAISE_STEPS more; an
    opening starts a step below the expected count instead, since lower says little."""
    out = []
    for face, low in sorted(view.lowest_bids_per_face().items()):
        start = low.quantity
        if view.standing_bid is None:
            p = face_probability(face, wild_ones=view.wild_ones)
            start = max(start, math.floor(view.own_matching(face) + view.unseen_dice * p) - 1)
        for q in range(start, min(start + RAISE_STEPS, view.dice_in_play) + 1):
            out.append(Bid(q, face))
    return out


def sampler(view: SeatView, rng: random.Random) -> Action:
    seat = view.seat
    assert seat is not None
    judge = _Judge(view, sample_deals(view, rng))
    standing = view.standing_bid
    options: list[tuple[float, Action]] = []
    if standing is not None:
        options.append((judge.call(standing), Challenge(seat)))
        if view.can_exact:
            options.append((judge.exact(standing), ExactCall(seat)))
    raises = sorted(_candidates(view), key=judge.holds_share, reverse=True)[:LOOKAHEAD]
    options.extend((judge.raise_value(b), PlaceBid(seat, b)) for b in raises)
    if not options:  # no bid, and nothing to call: cannot happen on a legal turn
        return PlaceBid(seat, view.legal_bids()[0])
    return max(options, key=lambda option: option[0])[1]
