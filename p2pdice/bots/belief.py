"""What a seat can infer about another seat's hidden dice from that seat's bids this round.

Theory of operation
-------------------
A hand of `n` dice is, for counting purposes, a vector of face counts; with n <= 5 there are
at most C(n + 5, 5) = 252 of them, so a belief about one opponent is held exactly, as a
weight per count vector, with no sampling. The prior weight is the multinomial chance of
the vector. Each bid the opponent made this round multiplies the weights by the likelihood
of that bid given the vector, under a model of how people (and bots) bid:

* **Raising.** A player who raises did not challenge, which is likelier the more they hold
  of the standing bid's face; and among the small raises open to them (the lowest legal
  quantity on each face and one more) they pick the ones their own dice support, a softmax
  over "how likely is this bid, from my hand alone". That is the public anchor, the tuned
  probability-threshold player, made noisy.
* **Opening.** The opener picks a face they hold much of (a softmax over their count) and a
  quantity near their own count plus the expected count among the dice they cannot see.

* **Riding.** A player may judge bids not from their own hand alone but from their hand
  *and what the other seats' bids showed* (a bid-crediting reader): an opening or a change of
  face shows about two dice of that face, a step on the same face one more. Such a player
  raises on a face another seat named whatever they hold of it, so their raise says little
  about their own dice. Each seat's *credit* (bots/reads.py) is the chance that it plays so:
  the belief is a mixture of the two models (a bid's chance to them from their hand alone,
  or from their hand plus the dice the others' bids showed them, `bid_credits`), weighted
  by that chance and then by how well each explains the seat's bids this round.

Every likelihood is mixed with a small uniform share, so a bluff or a strange bot bends the
belief instead of breaking it. Opponents' hands are independent given the public record (a
bid depends only on its bidder's hand and on public facts), so the beliefs factor per
opponent, and the total count on a face is the convolution of per-opponent marginals.

Everything is a pure function of public facts and is cached: the bids of a round recur in
every later decision of the round, and contexts recur across rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache, reduce
from itertools import combinations_with_replacement
from operator import add, mul, truediv

from ..core.bids import Bid, lowest_bids_per_face, ones_are_wild, shared_bid
from ..core.cache_tokens import rules_of_token, rules_token
from ..core.rules import Rules
from .medium import (
    CHALLENGE_BELOW,  # the modelled player calls bids less likely than this
    RAISE_AT_LEAST,  # ... and, when cornered, if no raise of its is this likely
)
from .odds import at_least, face_probability
from .reply_calibration import shifted

FACE_LIST = (1, 2, 3, 4, 5, 6)

# The opponent model (module constants so the caches stay valid; documented in docs/bots.md).
PICK_SHARPNESS = 20.0  #: softmax weight on "how likely is this raise from my own hand"
CHALLENGE_SOFTNESS = 0.05  #: width of the logistic step around CHALLENGE_BELOW
OPEN_FACE_SHARPNESS = 1.5  #: softmax weight on the opener's count of a face
OPEN_QUANTITY_SHARPNESS = 0.7  #: how tightly an opening sits on own count + expected unseen
NOISE = 0.05  #: uniform share mixed into every likelihood
CREDIT_NEW_FACE = 2  #: dice an opening or a change of face shows, to a seat that credits bids
CREDIT_STEP = 1  #: dice a step on the same face shows (a jump of two or more: two)

#: What a seat takes the others' bids this round to have shown: the total of dice shown,
#: then per face 1..6 the shown dice that count toward a bid on it (aces shown count for
#: every face when ones are wild).
Credit = tuple[int, int, int, int, int, int, int]
NO_CREDIT: Credit = (0, 0, 0, 0, 0, 0, 0)
#: What a seat that reasons about the others' hands from their bids (a Bayesian reader,
#: bots/bayes_reader.py) expects of the dice it cannot see: per face 1..6, P(their matching
#: dice >= k) for k = 0.. (the last entry 0).
Seen = tuple[tuple[float, ...], ...]
#: A bid as the belief reads it: the bid it answered (None: an opening), the bid, what the
#: bidder had been shown by the others' bids before it, and (optionally) what it expected of
#: the others' dice as a Bayesian reader (None: not computed, it reads as its hand alone).
Step = tuple[Bid | None, Bid, Credit] | tuple[Bid | None, Bid, Credit, Seen | None]
#: A history as the caches key it: each step with its two bids as bid_key numbers. The
#: beliefs' caches hold tens of thousands of entries, and a key holding Bids or Rules stays
#: in every full walk of the garbage collector, a pause that lands in whichever player's
#: decision is running; a key of numbers leaves its view (docs/bots.md, "Decision time").
HistoryKey = tuple[
    tuple[int, int] | tuple[int, int, Credit] | tuple[int, int, Credit, Seen | None], ...
]


def bid_key(bid: Bid | None) -> int:
    """A bid as one number for a cache key (0: no bid); bid_of_key turns it back."""
    return 0 if bid is None else bid.quantity * 8 + bid.face


def bid_of_key(key: int) -> Bid | None:
    """The bid bid_key made `key` of (None for 0)."""
    return None if key == 0 else shared_bid(key >> 3, key & 7)


def history_key(history: tuple[Step | tuple[Bid | None, Bid], ...]) -> HistoryKey:
    """`history` with its bids as bid_key numbers, for the beliefs' cache keys."""
    return tuple((bid_key(step[0]), bid_key(step[1]), *step[2:]) for step in history)  # type: ignore[misc]


def shown_by(previous: Bid | None, bid: Bid) -> int:
    """Dice a bid shows to a seat that credits bids: two for an opening or a change of face,
    one for a step on the same face (two for a jump of two or more)."""
    if previous is None or bid.face != previous.face:
        return CREDIT_NEW_FACE
    return min(CREDIT_NEW_FACE, max(CREDIT_STEP, bid.quantity - previous.quantity))


def show(
    shown: dict[int, dict[int, int]], seat: int, dice: int, previous: Bid | None, bid: Bid
) -> None:
    """Add what `bid` by `seat` (holding `dice`) shows to `shown` (seat -> face -> dice),
    never more than the seat holds."""
    held = shown.setdefault(seat, {})
    amount = min(shown_by(previous, bid), dice - sum(held.values()))
    if amount > 0:
        held[bid.face] = held.get(bid.face, 0) + amount


def perceived(shown: dict[int, dict[int, int]], seat: int, wild: bool) -> Credit:
    """The Credit `seat` perceives: what every other seat's bids have shown."""
    per_face = [0] * 7
    total = 0
    for other, held in shown.items():
        if other == seat:
            continue
        for face, n in held.items():
            total += n
            per_face[face] += n
    if total == 0:
        return NO_CREDIT
    aces = per_face[1] if wild else 0
    return (
        total,
        per_face[1],
        *(per_face[f] + aces for f in range(2, 7)),
    )  # type: ignore[return-value]


def bid_credits(
    bids: Sequence[tuple[int, Bid]], dice: Sequence[int], wild: bool
) -> tuple[list[Credit], dict[int, dict[int, int]]]:
    """For each (seat, bid) of a round in order, the Credit its bidder perceived when it bid;
    and what every seat's bids have shown at the end."""
    shown: dict[int, dict[int, int]] = {}
    out: list[Credit] = []
    previous: Bid | None = None
    for seat, bid in bids:
        out.append(perceived(shown, seat, wild))
        show(shown, seat, dice[seat], previous, bid)
        previous = bid
    return out, shown


@lru_cache(maxsize=8)
def hand_space(n: int) -> tuple[tuple[tuple[int, ...], ...], tuple[float, ...]]:
    """Every count vector (ones..sixes) of `n` dice, with its multinomial prior chance."""
    vectors: list[tuple[int, ...]] = []
    prior: list[float] = []
    for combo in combinations_with_replacement(FACE_LIST, n):
        counts = tuple(combo.count(f) for f in FACE_LIST)
        ways = math.factorial(n)
        for c in counts:
            ways //= math.factorial(c)
        vectors.append(counts)
        prior.append(ways / 6**n)
    return tuple(vectors), tuple(prior)


@lru_cache(maxsize=128)
def match_groups(n: int, face: int, wild: bool) -> tuple[tuple[int, ...], ...]:
    """For m = 0..n, the indices of the count vectors of `n` dice with m dice that count
    toward a bid on `face`, in the vectors' order (add_by_match keeps sums in that order)."""
    groups: list[list[int]] = [[] for _ in range(n + 1)]
    for i, m in enumerate(match_column(n, face, wild)):
        groups[m].append(i)
    return tuple(tuple(g) for g in groups)


def add_by_match(dist: list[float], values: Sequence[float], n: int, face: int, wild: bool) -> None:
    """`dist[m] += values[i]` for every count vector i of `n` dice with m dice counting
    toward `face`, added in the vectors' order, as the plain loop would: the same floats to
    the last bit, with the loop in C (the bots' look-ahead spends much of its time here)."""
    pick = values.__getitem__
    for m, indices in enumerate(match_groups(n, face, wild)):
        if indices:
            dist[m] = reduce(add, map(pick, indices), dist[m])


@lru_cache(maxsize=128)
def match_column(n: int, face: int, wild: bool) -> tuple[int, ...]:
    """For each count vector of `n` dice, how many dice count toward a bid on `face`."""
    vectors, _ = hand_space(n)
    if wild and face != 1:
        return tuple(v[face - 1] + v[0] for v in vectors)
    return tuple(v[face - 1] for v in vectors)


def challenge_chance(own_support: float, call_below: float = CHALLENGE_BELOW) -> float:
    """The modelled chance that a player calls a bid their own dice make `own_support` likely."""
    x = (own_support - call_below) / CHALLENGE_SOFTNESS
    step = 1.0 / (1.0 + math.exp(min(60.0, x)))
    return NOISE + (1 - 2 * NOISE) * step


def seen_support(seen: Seen, face: int, quantity: int, own: int) -> float:
    """The chance a bid holds, to a Bayesian reader holding `own` matching dice who expects
    `seen` of the others' dice."""
    return tail_chance(seen[face - 1], quantity - own)


@lru_cache(maxsize=65536)
def _support_row(
    quantity: int,
    face: int,
    n: int,
    unseen: int,
    wild: bool,
    credit: Credit = NO_CREDIT,
    kappa: float = 0.0,
    seen: Seen | None = None,
) -> tuple[float, ...]:
    """For a holder of m = 0..n matching dice: the chance the bid holds, to them.

    From their hand alone; or, for a seat that credits bids (`kappa` of the way), from their
    hand plus the dice the others' bids showed (`credit`), the other unseen dice at chance;
    or, for a Bayesian reader, from their hand plus what they expect of the others' dice
    (`seen`, which then replaces the other two).
    """
    if seen is not None:
        return tuple(seen_support(seen, face, quantity, m) for m in range(n + 1))
    p = face_probability(face, wild_ones=wild)
    plain = tuple(at_least(quantity - m, unseen, p) for m in range(n + 1))
    if kappa == 0.0 or credit[0] == 0:
        return plain
    shown, total = credit[face], credit[0]
    credited = (at_least(quantity - m - shown, unseen - total, p) for m in range(n + 1))
    return tuple((1 - kappa) * a + kappa * b for a, b in zip(plain, credited, strict=True))


@lru_cache(maxsize=32768)
def _bid_likelihood_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    bidder_dice: int,
    previous_key: int,
    bid_number: int,
    call_below: float,
    sharpness: float,
    credit: Credit,
    kappa: float,
    seen: Seen | None,
) -> tuple[float, ...]:
    """For each count vector of the bidder's dice: the modelled chance of the bid `bid_number`
    (a bid_key) after `previous_key` (0: an opening), with the rules `rules_key` names.

    `call_below` is the bidder's calling threshold, `sharpness` how strongly their bids
    follow their hand (negative: away from it) and `kappa` how far they credit what the
    others' bids showed them (`credit`), all as read by bots/reads.py; `seen`, for a
    Bayesian reader, what it expects of the others' dice (then `credit` is unused). Only
    the history weights ask, with their keys already numbers.
    """
    rules = rules_of_token(rules_key)
    previous, bid = bid_of_key(previous_key), bid_of_key(bid_number)
    assert bid is not None
    n = bidder_dice
    wild = ones_are_wild(rules, palifico_round)
    unseen = dice_in_play - n
    lowest = lowest_bids_per_face(
        rules, previous, dice_in_play=dice_in_play, palifico_round=palifico_round, bidder_dice=n
    )
    size = len(hand_space(n)[0])
    if previous is None:
        face_sharpness = OPEN_FACE_SHARPNESS * sharpness / PICK_SHARPNESS
        return _opening_likelihood(n, wild, unseen, dice_in_play, lowest, bid, size, face_sharpness)
    options = {b for low in lowest.values() for b in (low, shared_bid(low.quantity + 1, low.face))}
    options = {b for b in options if b.quantity <= dice_in_play}
    options.add(bid)
    totals = [0.0] * size
    chosen: list[float] = []
    for option in options:
        row = _support_row(option.quantity, option.face, n, unseen, wild, credit, kappa, seen)
        weights = [math.exp(sharpness * s) for s in row]
        picked = list(map(weights.__getitem__, match_column(n, option.face, wild)))
        totals = list(map(add, totals, picked))
        if option == bid:
            chosen = picked
    prev_row = _support_row(previous.quantity, previous.face, n, unseen, wild, credit, kappa, seen)
    keep = [1.0 - challenge_chance(s, call_below) for s in prev_row]
    prev_column = match_column(n, previous.face, wild)
    floor = NOISE / len(options)
    return tuple(
        (1 - NOISE) * (c / t) * keep[m] + floor
        for c, t, m in zip(chosen, totals, prev_column, strict=True)
    )


def _opening_likelihood(
    n: int,
    wild: bool,
    unseen: int,
    dice_in_play: int,
    lowest: dict[int, Bid],
    bid: Bid,
    size: int,
    face_sharpness: float,
) -> tuple[float, ...]:
    faces = list(lowest)
    totals = [0.0] * size
    for face in faces:
        column = match_column(n, face, wild)
        totals = [t + math.exp(face_sharpness * m) for t, m in zip(totals, column, strict=True)]
    column = match_column(n, bid.face, wild)
    expected_unseen = math.floor(unseen * face_probability(bid.face, wild_ones=wild))
    out = []
    for t, m in zip(totals, column, strict=True):
        centre = min(max(m + expected_unseen, 1), dice_in_play)
        quantity_fit = math.exp(-OPEN_QUANTITY_SHARPNESS * (bid.quantity - centre) ** 2)
        out.append((1 - NOISE) * math.exp(face_sharpness * m) / t * quantity_fit + NOISE)
    return tuple(out)


def hand_weights(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: tuple[Step | tuple[Bid | None, Bid], ...],
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    trust: float = 1.0,
    credit: float = 0.0,
    bayes: float = 0.0,
) -> tuple[float, ...]:
    """The belief over a seat's `dice` as a weight per count vector of hand_space(dice), summing to 1.

    `history` holds the seat's bids this round, each with the bid it answered (None for
    an opening) and, optionally, the Credit the seat had been shown before it and what it
    expected of the others' dice as a Bayesian reader (Seen);
    `call_below`, `sharpness`, `credit` and `bayes` are the seat's reads (bots/reads.py).
    `trust` is the chance that the seat's bids follow its hand with that sharpness at all;
    the rest of the weight goes to a hand-blind bidder (sharpness 0). `bayes` is the chance
    that the seat judges bids by a posterior over the others' hands (a Bayesian reader,
    bots/bayes_reader.py); if it does not, `credit` is the chance that it judges them by
    what the others' bids showed it too (a rider), else by its hand alone. The round's bids
    themselves shift the weight between these models, as Bayes' rule says.
    """
    return _hand_weights_cached(
        rules_token(rules), palifico_round, dice_in_play, dice, history_key(history),
        call_below, sharpness, trust, credit, bayes,
    )  # fmt: skip


@lru_cache(maxsize=16384)
def _hand_weights_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: HistoryKey,
    call_below: float,
    sharpness: float,
    trust: float,
    credit: float,
    bayes: float,
) -> tuple[float, ...]:
    parts = _credit_weights_cached(
        rules_key, palifico_round, dice_in_play, dice, history, call_below, sharpness, trust,
        credit, bayes,
    )  # fmt: skip
    # A model without prior weight is all zeros, so the plain sum is exact.
    return tuple(sum(ws) for ws in zip(*parts, strict=True))


def model_priors(credit: float, bayes: float) -> tuple[float, float, float]:
    """The prior chances of the three models: by its own hand, riding, Bayesian reader."""
    return (1.0 - bayes) * (1.0 - credit), (1.0 - bayes) * credit, bayes


def credit_weights(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: tuple[Step | tuple[Bid | None, Bid], ...],
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    trust: float = 1.0,
    credit: float = 0.0,
    bayes: float = 0.0,
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """The joint belief over (how the seat judges bids, its count vector): one weight vector
    for each model, by its own hand, riding (crediting bids) and as a Bayesian reader,
    summing to 1 together (the arguments are hand_weights')."""
    return _credit_weights_cached(
        rules_token(rules), palifico_round, dice_in_play, dice, history_key(history),
        call_below, sharpness, trust, credit, bayes,
    )  # fmt: skip


@lru_cache(maxsize=16384)
def _credit_weights_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: HistoryKey,
    call_below: float,
    sharpness: float,
    trust: float,
    credit: float,
    bayes: float,
) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    def model(kappa: float, reader: bool) -> list[float]:
        led = _history_weights_cached(
            rules_key, palifico_round, dice_in_play, dice, history, call_below, sharpness,
            kappa, reader,
        )  # fmt: skip
        if trust >= 1.0 or sharpness == 0.0:
            return list(led)
        blind = _history_weights_cached(
            rules_key, palifico_round, dice_in_play, dice, history, call_below, 0.0, kappa,
            reader,
        )  # fmt: skip
        # The unnormalised products are the joint chance of the hand and the bids under
        # each model, so mixing them before normalising weighs each model by how well it
        # explains the bids.
        return [trust * a + (1.0 - trust) * b for a, b in zip(led, blind, strict=True)]

    size = len(hand_space(dice)[0])
    parts = []
    priors = model_priors(credit, bayes)
    for chance, kappa, reader in zip(priors, (0.0, 1.0, 0.0), (False, False, True), strict=True):
        parts.append([chance * w for w in model(kappa, reader)] if chance > 1e-12 else [0.0] * size)
    total = sum(sum(p) for p in parts)
    plain, riding, reading = (tuple(w / total for w in p) for p in parts)
    return plain, riding, reading


def _history_weights(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: tuple[Step | tuple[Bid | None, Bid], ...],
    call_below: float,
    sharpness: float,
    kappa: float = 0.0,
    reader: bool = False,
) -> tuple[float, ...]:
    """Prior times the likelihood of every bid in `history`: unnormalised."""
    return _history_weights_cached(
        rules_token(rules), palifico_round, dice_in_play, dice, history_key(history),
        call_below, sharpness, kappa, reader,
    )  # fmt: skip


@lru_cache(maxsize=16384)
def _history_weights_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: HistoryKey,
    call_below: float,
    sharpness: float,
    kappa: float,
    reader: bool,
) -> tuple[float, ...]:
    _, prior = hand_space(dice)
    weights = list(prior)
    for step in history:
        credit = step[2] if len(step) > 2 else NO_CREDIT
        seen = step[3] if reader and len(step) > 3 else None
        like = _bid_likelihood_cached(
            rules_key,
            palifico_round,
            dice_in_play,
            dice,
            step[0],
            step[1],
            call_below,
            sharpness,
            credit,
            kappa,
            seen,
        )
        weights = [w * x for w, x in zip(weights, like, strict=True)]
    return tuple(weights)


def model_chances(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: tuple[Step | tuple[Bid | None, Bid], ...],
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    trust: float = 1.0,
    credit: float = 0.0,
    bayes: float = 0.0,
) -> tuple[float, float]:
    """The chances that the seat rides (credits bids) and that it reads as a Bayesian
    reader, after its bids this round (hand_weights' args)."""
    priors = model_priors(credit, bayes)
    if not history or max(priors) >= 1.0:
        return priors[1], priors[2]
    _, riding, reading = credit_weights(
        rules,
        palifico_round,
        dice_in_play,
        dice,
        history,
        call_below,
        sharpness,
        trust,
        credit,
        bayes,
    )
    return sum(riding), sum(reading)


def face_marginals(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: tuple[Step | tuple[Bid | None, Bid], ...],
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    trust: float = 1.0,
    credit: float = 0.0,
    bayes: float = 0.0,
) -> tuple[tuple[float, ...], ...]:
    """Per face 1..6, the belief over how many of a seat's `dice` count toward that face.

    The arguments are those of hand_weights.
    """
    return _face_marginals_cached(
        rules_token(rules), palifico_round, dice_in_play, dice, history_key(history),
        call_below, sharpness, trust, credit, bayes,
    )  # fmt: skip


@lru_cache(maxsize=16384)
def _face_marginals_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    dice: int,
    history: HistoryKey,
    call_below: float,
    sharpness: float,
    trust: float,
    credit: float,
    bayes: float,
) -> tuple[tuple[float, ...], ...]:
    wild = ones_are_wild(rules_of_token(rules_key), palifico_round)
    if not history:
        return tuple(_binomial(dice, face_probability(f, wild_ones=wild)) for f in FACE_LIST)
    weights = _hand_weights_cached(
        rules_key, palifico_round, dice_in_play, dice, history, call_below, sharpness, trust,
        credit, bayes,
    )  # fmt: skip
    out = []
    for face in FACE_LIST:
        dist = [0.0] * (dice + 1)
        add_by_match(dist, weights, dice, face, wild)
        out.append(tuple(dist))
    return tuple(out)


def reply_model(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    bidder_dice: int,
    previous: Bid,
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    credit: Credit = NO_CREDIT,
    kappa: float = 0.0,
    seen: Seen | None = None,
    cornered: float = 0.0,
    call_shift: float = 0.0,
) -> tuple[tuple[float, ...], tuple[Bid, ...], tuple[tuple[float, ...], ...]]:
    """How a seat holding `bidder_dice` answers `previous`, per count vector of their hand.

    `credit` is what the others' bids (`previous` included) have shown that seat; `seen`,
    for a Bayesian reader, what it expects of the others' dice after them. `cornered`: the
    chance that a seat which believes `previous` but has no raise it believes either
    (none RAISE_AT_LEAST likely to it) calls anyway, as the anchor does, rather than bid
    on regardless; with few dice in play that is most of a player's calls.
    Returns the chance they call, the small raises open to them (the lowest legal quantity
    on each face and one more) and, in the same order, the chance they make each; per
    vector the call and the raises sum to 1. The raises and their chances come apart so
    that the chances, tuples of floats, stay out of the garbage collector's walks. The
    same model as _bid_likelihood_cached, without its noise floor (a look-ahead needs a proper
    distribution over replies, not a likelihood). `call_shift` moves every call from doubt
    on its logit (bots/reply_calibration.py: how far this seat's calls bore out the model's);
    a call with no legal raise left is not moved.
    """
    call, option_keys, picks = _reply_model_cached(
        rules_token(rules), palifico_round, dice_in_play, bidder_dice, bid_key(previous),
        call_below, sharpness, credit, kappa, seen, cornered, call_shift,
    )  # fmt: skip
    return call, _bids_of_keys(option_keys), picks


@lru_cache(maxsize=1024)
def _bids_of_keys(keys: tuple[int, ...]) -> tuple[Bid, ...]:
    # One tuple of Bids per set of raises (a few hundred at most), shared by every entry of
    # _reply_model_cached's cache, whose values then hold numbers only.
    return tuple(bid_of_key(key) for key in keys)  # type: ignore[misc]


@lru_cache(maxsize=8192)
def _reply_model_cached(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    bidder_dice: int,
    previous_key: int,
    call_below: float,
    sharpness: float,
    credit: Credit,
    kappa: float,
    seen: Seen | None,
    cornered: float,
    call_shift: float = 0.0,
) -> tuple[tuple[float, ...], tuple[int, ...], tuple[tuple[float, ...], ...]]:
    doubt, options, rows, totals, stuck = _reply_parts(
        rules_key, palifico_round, dice_in_play, bidder_dice, previous_key, call_below,
        sharpness, credit, kappa, seen,
    )  # fmt: skip
    if not options:
        return doubt, (), ()
    if call_shift:
        doubt = tuple(shifted(d, call_shift) for d in doubt)
    call = doubt
    if cornered:
        call = tuple(c + (1.0 - c) * cornered * x for c, x in zip(doubt, stuck, strict=True))
    keep = [1.0 - c for c in call]
    picks = tuple(tuple(map(mul, map(truediv, row, totals), keep)) for row in rows)
    return call, options, picks


def call_parts(
    rules: Rules,
    palifico_round: bool,
    dice_in_play: int,
    bidder_dice: int,
    previous: Bid,
    call_below: float = CHALLENGE_BELOW,
    sharpness: float = PICK_SHARPNESS,
    credit: Credit = NO_CREDIT,
    kappa: float = 0.0,
    seen: Seen | None = None,
) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """reply_model's call, per count vector, in its two parts: the chance of a call from doubt
    and the chance of a cornered call (before `cornered` scales it); None when the seat has no
    legal raise, so that calling is forced."""
    doubt, options, _, _, stuck = _reply_parts(
        rules_token(rules), palifico_round, dice_in_play, bidder_dice, bid_key(previous),
        call_below, sharpness, credit, kappa, seen,
    )  # fmt: skip
    return (doubt, stuck) if options else None


ReplyParts = tuple[
    tuple[float, ...],
    tuple[int, ...],  # the raises, as bid_key numbers
    tuple[tuple[float, ...], ...],
    tuple[float, ...],
    tuple[float, ...],
]


@lru_cache(maxsize=8192)
def _reply_parts(
    rules_key: int,
    palifico_round: bool,
    dice_in_play: int,
    bidder_dice: int,
    previous_key: int,
    call_below: float,
    sharpness: float,
    credit: Credit,
    kappa: float,
    seen: Seen | None,
) -> ReplyParts:
    """reply_model's costly part, the same whatever its `cornered` (which changes with the
    seat's call rate, bid by bid): per vector the chance of a call from doubt, each small
    raise's softmax weight and their total, and the chance of a cornered call (its likeliest
    raise is unlikely to it)."""
    rules = rules_of_token(rules_key)
    previous = bid_of_key(previous_key)
    assert previous is not None
    n = bidder_dice
    wild = ones_are_wild(rules, palifico_round)
    unseen = dice_in_play - n
    size = len(hand_space(n)[0])
    prev_row = _support_row(previous.quantity, previous.face, n, unseen, wild, credit, kappa, seen)
    # Per count of matching dice, then per vector: the chances depend on the count alone.
    doubt_by_count = [challenge_chance(s, call_below) for s in prev_row]
    doubt = tuple(map(doubt_by_count.__getitem__, match_column(n, previous.face, wild)))
    lowest = lowest_bids_per_face(
        rules, previous, dice_in_play=dice_in_play, palifico_round=palifico_round, bidder_dice=n
    )
    options = sorted(
        {
            b
            for low in lowest.values()
            for b in (low, shared_bid(low.quantity + 1, low.face))
            if b.quantity <= dice_in_play
        },
        key=lambda b: (b.quantity, b.face),
    )
    if not options:
        return tuple(1.0 for _ in range(size)), (), (), (), ()
    totals = [0.0] * size
    chances = [(0.0,) * size]  # per option and vector, how likely the option is to it
    rows = []
    for option in options:
        row = _support_row(option.quantity, option.face, n, unseen, wild, credit, kappa, seen)
        weights = [math.exp(sharpness * s) for s in row]
        column = match_column(n, option.face, wild)
        picked = tuple(map(weights.__getitem__, column))
        rows.append(picked)
        totals = list(map(add, totals, picked))
        chances.append(tuple(map(row.__getitem__, column)))
    best = list(map(max, zip(*chances, strict=True)))  # per vector: its likeliest raise
    # `best` takes few distinct values (each is some option's chance at some count).
    stuck_of = {b: challenge_chance(b, RAISE_AT_LEAST) for b in set(best)}
    stuck = tuple(map(stuck_of.__getitem__, best))
    return doubt, tuple(map(bid_key, options)), tuple(rows), tuple(totals), stuck


@lru_cache(maxsize=64)
def _binomial(n: int, p: float) -> tuple[float, ...]:
    return tuple(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


def convolve(a: tuple[float, ...] | list[float], b: tuple[float, ...] | list[float]) -> list[float]:
    """The distribution of the sum of two independent counts."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


def tail_table(dist: list[float]) -> list[float]:
    """`t[k]` = P(X >= k) for k = 0..len(dist) (the last entry is 0)."""
    out = [0.0] * (len(dist) + 1)
    running = 0.0
    for k in range(len(dist) - 1, -1, -1):
        running += dist[k]
        out[k] = running
    return out


def tail_chance(tail: Sequence[float], k: int) -> float:
    """P(X >= k) from a tail table of X (tail_table's): 1 for k <= 0, 0 past its end."""
    if k <= 0:
        return 1.0
    return tail[k] if k < len(tail) else 0.0
