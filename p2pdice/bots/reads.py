"""Reads on opponents from earlier reveals: how readily each seat calls, and how its bids follow its hand.

Every finished round shows every hand, so each decision a seat made in it can be replayed
from that seat's side, and two traits of each opponent are learnt within the game:

* **Calling threshold.** Facing bid B with hand h, the bid was `s` likely from h alone, and
  they either raised (did not call) or called. Under the logistic model of bots/belief.py
  the threshold is the most probable value on a grid from 0 (calls only the impossible) to
  1 (calls everything), with a prior centred on the public anchor (call below 35%). A call
  with no legal raise left was forced and is no evidence.
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

* **Credit.** The chance that the seat judges bids not from its own hand alone but from its
  hand plus what the other seats' bids showed it (a bid-crediting reader, who raises on a
  face another seat named whatever it holds of it).
* **Bayes.** The chance that it judges bids by its own hand plus a posterior over the other
  hands given their bids (a Bayesian reader, bots/bayes_reader.py: one that samples hands
  consistent with the bids, as `sampler` does, plays so).
  Each of the three models (own hand, rider, Bayesian reader) gives its own chances to the
  seat's calls and raises; with each model's best threshold and sharpness, Bayes' rule on
  how well they explain them (prior log-odds CREDIT_LOG_ODDS and BAYES_LOG_ODDS against the
  own-hand model) gives the chances, and the most likely model gives the other two traits.

Recent rounds can weigh more (`RECENCY` per round back), so that a seat that changes its
style is read for the style it plays now; it is 1 (every round alike): 0.8 measured no
better against the style switcher (docs/bots.md).

All are snapped to their grids so the belief caches stay effective. A seat with no
evidence gets the anchor values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ..core.bids import Bid, count_matching, lowest_bids_per_face, ones_are_wild
from ..core.game import Call, Outcome, PlacedBid, RoundResult
from ..core.rules import Rules
from .bayes_reader import seen_by
from .belief import (
    CHALLENGE_BELOW,
    NO_CREDIT,
    NOISE,
    PICK_SHARPNESS,
    Credit,
    Seen,
    bid_credits,
    challenge_chance,
    perceived,
    seen_support,
)
from .odds import at_least, face_probability

THRESHOLDS = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.85, 1.0)
PRIOR_WIDTH = 0.12  #: standard deviation of the threshold prior around CHALLENGE_BELOW
SHARPNESSES = (-20.0, 0.0, 5.0, PICK_SHARPNESS)  #: the sharpness grid
SHARPNESS_LOG_PRIOR = (-3.0, -2.0, -1.0, 0.0)  #: favours the anchor until evidence is clear
HABIT_LOG_PRIOR = -2.0  #: prior of the hand-blind habit model (as for sharpness 0)
HABIT_KINDS = 4  #: kinds of raise: on aces or not, times smallest step or more
HABIT_SHARPNESS = 0.0  #: the sharpness a seat read as playing by habit gets
#: the three models, as (kappa, Bayesian reader): judges bids by its own hand, credits the
#: others' bids, or judges them by a posterior over the others' hands given their bids
KAPPAS = ((0.0, False), (1.0, False), (0.0, True))
#: Prior log-odds that a seat credits bids (about 1 in 8): a read of riding must be earned
#: at reveals, since crediting a seat that does not ride makes hard's bluffs look safe
#: (prior 0 lost never-calls and weakest-face lines that main wins, docs/bots.md).
CREDIT_LOG_ODDS = -2.0
#: The credit (chance that a seat credits bids) is snapped to this grid for the caches.
CREDIT_GRID = (0.0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
#: Prior log-odds that a seat is a Bayesian reader, against judging by its own hand.
BAYES_LOG_ODDS = -1.0
#: The chance that a seat is a Bayesian reader is snapped to this grid: nothing until the
#: reveals favour the model (a chance under 1 in 4 reads as none), so hard plays against
#: medium and strangers exactly as without it until then.
BAYES_GRID = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0)
RECENCY = 1.0  #: weight of a round's evidence per later round (1: every round counts alike)

#: One raise's habit evidence: its kind, how many open raises share that kind, how many in all.
Habit = tuple[tuple[bool, bool], int, int]


UNREAD_TRUST = 0.5  #: chance that a seat not yet seen at a reveal bids by its hand
UNREAD_CREDIT = 0.0  #: a seat not yet seen at a reveal is taken to judge bids by its hand


@dataclass(frozen=True, slots=True)
class OpponentRead:
    calls_below: float = CHALLENGE_BELOW
    sharpness: float = PICK_SHARPNESS
    trust: float = 1.0  #: chance that its bids follow its hand at `sharpness` (else hand-blind)
    credit: float = 0.0  #: chance that it judges bids by what the others' bids showed it too
    #: chance that it judges bids by a posterior over the others' hands (a Bayesian reader);
    #: `credit` is the chance that it rides if it is not one
    bayes: float = 0.0


ANCHOR = OpponentRead()
#: A seat with no reveal yet: the anchor's threshold, but its bids only half believed, since
#: a stranger who raises the same safe-looking bid whatever they hold is common enough (the
#: perudo misleading bidder, a beginner who always bids aces) that taking every raise at
#: face value hands them the round.
UNREAD = OpponentRead(trust=UNREAD_TRUST, credit=UNREAD_CREDIT)


def _support(
    bid: Bid,
    own: int,
    unseen: int,
    wild: bool,
    credit: Credit = NO_CREDIT,
    kappa: float = 0.0,
    seen: Seen | None = None,
) -> float:
    if seen is not None:
        return seen_support(seen, bid.face, bid.quantity, own)
    p = face_probability(bid.face, wild_ones=wild)
    plain = at_least(bid.quantity - own, unseen, p)
    if kappa == 0.0 or credit[0] == 0:
        return plain
    credited = at_least(bid.quantity - own - credit[bid.face], unseen - credit[0], p)
    return (1 - kappa) * plain + kappa * credited


#: One decision's evidence: the seat; per credit value, the log-likelihood per threshold and
#: per sharpness; and for a raise its habit evidence (None for a call).
Evidence = tuple[int, tuple[tuple[float, ...], ...], tuple[tuple[float, ...], ...], Habit | None]


@lru_cache(maxsize=4096)
def _round_evidence(rules: Rules, result: RoundResult) -> tuple[Evidence, ...]:
    """Every decision of a finished round, as Evidence."""
    if result.outcome == Outcome.FORFEIT or any(h is None for h in result.hands):
        return ()
    wild = ones_are_wild(rules, result.palifico_round)
    in_play = sum(result.dice_before)
    credits, shown = bid_credits(
        [(placed.seat, placed.bid) for placed in result.bids], result.dice_before, wild
    )
    # (seat, index of the bid faced, called, what the others' bids had shown the seat)
    decisions: list[tuple[int, int, bool, Credit]] = []
    for i in range(1, len(result.bids)):
        decisions.append((result.bids[i].seat, i - 1, False, credits[i]))
    if result.call == Call.CHALLENGE and result.caller is not None and result.bids:
        caller = result.caller
        # A call with no legal raise left was forced: it says nothing of the caller's threshold
        # (a seat that never calls would be read as calling bids its hand made likely).
        if _could_raise(rules, result, caller, in_play):
            decisions.append((caller, len(result.bids) - 1, True, perceived(shown, caller, wild)))
    flat = tuple((0.0,) * len(SHARPNESSES) for _ in KAPPAS)
    pairs = tuple((placed.seat, placed.bid) for placed in result.bids)
    heads_up = sum(1 for n in result.dice_before if n) == 2
    out = []
    for seat, index, called, credit in decisions:
        # What a Bayesian reader at this seat expected of the others' dice, from the bids
        # up to the one it faced. Heads-up only, where hard uses that model: at a bigger
        # table the reader is replayed as judging by its own hand (its evidence there is
        # the first model's, so those rounds do not tell the two apart), which saves a
        # posterior per seat and decision.
        seen = (
            seen_by(rules, result.palifico_round, result.dice_before, pairs[: index + 1], seat)
            if heads_up
            else None
        )
        hand = result.hands[seat]
        assert hand is not None
        unseen = in_play - len(hand)
        faced = result.bids[index].bid
        own = count_matching((hand,), faced.face, wild_ones=wild)
        rows = []
        for kappa, reader in KAPPAS:
            support = _support(faced, own, unseen, wild, credit, kappa, seen if reader else None)
            row = []
            for theta in THRESHOLDS:
                chance = challenge_chance(support, theta)
                row.append(math.log(chance if called else 1.0 - chance))
            rows.append(tuple(row))
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
                credit,
                seen,
            )
        out.append((seat, tuple(rows), picks, habit))
    return tuple(out)


def _could_raise(rules: Rules, result: RoundResult, seat: int, in_play: int) -> bool:
    """Whether `seat` had a legal raise over the round's last bid (lowest_bids_per_face
    leaves out every face with none)."""
    return bool(
        lowest_bids_per_face(
            rules,
            result.bids[-1].bid,
            dice_in_play=in_play,
            palifico_round=result.palifico_round,
            bidder_dice=result.dice_before[seat],
        )
    )


def _pick_evidence(
    rules: Rules,
    palifico: bool,
    in_play: int,
    hand: tuple[int, ...],
    previous: Bid,
    bid: Bid,
    credit: Credit = NO_CREDIT,
    seen: Seen | None = None,
) -> tuple[tuple[tuple[float, ...], ...], Habit]:
    """Log-chance of raising `previous` to `bid` from `hand`, per credit value and sharpness
    on the grids, and the raise's habit evidence (its kind among the raises open to the
    seat)."""
    wild = ones_are_wild(rules, palifico)
    lowest = lowest_bids_per_face(
        rules, previous, dice_in_play=in_play, palifico_round=palifico, bidder_dice=len(hand)
    )
    options = {b for low in lowest.values() for b in (low, Bid(low.quantity + 1, low.face))}
    options = {b for b in options if b.quantity <= in_play}
    options.add(bid)
    unseen = in_play - len(hand)
    own = {b: count_matching((hand,), b.face, wild_ones=wild) for b in options}
    out = []
    for kappa, reader in KAPPAS:
        reader_seen = seen if reader else None
        supports = {
            b: _support(b, own[b], unseen, wild, credit, kappa, reader_seen) for b in options
        }
        row = []
        for sharp in SHARPNESSES:
            top = max(sharp * x for x in supports.values())
            total = sum(math.exp(sharp * x - top) for x in supports.values())
            chance = math.exp(sharp * supports[bid] - top) / total
            row.append(math.log((1 - NOISE) * chance + NOISE / len(options)))
        out.append(tuple(row))

    def kind(b: Bid) -> tuple[bool, bool]:
        return (b.face == 1, b.quantity > lowest[b.face].quantity)

    same_kind = sum(1 for b in options if kind(b) == kind(bid))
    return tuple(out), (kind(bid), same_kind, len(options))


_LOG_PRIOR = tuple(-0.5 * ((t - CHALLENGE_BELOW) / PRIOR_WIDTH) ** 2 for t in THRESHOLDS)


#: Pseudo-raises of the prior on how often a seat keeps the face when it raises over an
#: opening or a change of face: one that kept it, two that changed it (a hand-led bidder
#: keeps it a time in five to three, medium about one in four, a rider three in five).
STAY_PRIOR = (1.0, 2.0)
#: The same over a step on the face (a climb under way), where seats differ most: medium
#: keeps it about half the time, weakest-face a third, a rider nearly always. Even odds,
#: and weaker than STAY_PRIOR: a climb meets each seat less often than a new face, and a
#: firmer prior kept a reader's climbs discounted for most of a game (2 points at four
#: seats, 500 games).
STAY_PRIOR_STEP = (1.0, 1.0)


def face_stays(
    results: tuple[RoundResult, ...], bids: tuple[PlacedBid, ...] = ()
) -> dict[int, tuple[float, float]]:
    """Per seat that has raised in this game, the chance that a raise of its keeps the
    standing bid's face rather than changing it: when that bid opened or changed the face,
    and when it was itself a step on its face (a climb under way). From every raise the
    seat made in `results` and `bids` (this round's, unfinished), recent rounds weighing
    more (RECENCY).

    Public: it needs no reveal. A seat that rides the table's face keeps it (a crediting
    reader: about three raises in five after a new face, nearly all once a climb is under
    way); one that bids its own faces changes it (medium, weakest-face: about one in five),
    which is what a lap look-ahead must know to tell a bid that will climb round the table
    from one that will be left behind (hard.py's `_Lap`, docs/bots.md). Seats
    with no raise yet are absent (`no_stays()`).
    """
    kept: dict[int, list[float]] = {}
    rounds = [r.bids for r in results]
    if bids:
        rounds.append(bids)
    for age, placed in enumerate(reversed(rounds)):
        weight = RECENCY**age
        for i in range(1, len(placed)):
            before, after = placed[i - 1].bid, placed[i].bid
            climbing = i >= 2 and placed[i - 2].bid.face == before.face
            acc = kept.setdefault(placed[i].seat, [0.0, 0.0, 0.0, 0.0])
            acc[2 * climbing + (after.face != before.face)] += weight
    return {
        seat: (stay_chance(k[0], k[1]), stay_chance(k[2], k[3], STAY_PRIOR_STEP))
        for seat, k in kept.items()
    }


#: Pseudo-decisions of the prior on how often a seat calls the bid it faces: one call, three
#: raises (medium calls about one bid in three it faces at four seats, never-calls none).
CALL_RATE_PRIOR = (1.0, 3.0)


def call_rates(
    results: tuple[RoundResult, ...], bids: tuple[PlacedBid, ...] = ()
) -> dict[int, float]:
    """Per seat that has faced a bid this game, the share of the bids it faced that it
    called (Liar or exact) rather than raised, under CALL_RATE_PRIOR, recent rounds
    weighing more (RECENCY). Public: it needs no reveal, and it learns in a round or two
    what the threshold read learns in many (a seat that calls only the impossible is read
    at 0.1-0.25 for most of a game: the prior holds the threshold near the anchor)."""
    tally: dict[int, list[float]] = {}
    rounds: list[tuple[tuple[PlacedBid, ...], int | None]] = [(r.bids, r.caller) for r in results]
    if bids:
        rounds.append((bids, None))
    for age, (placed, caller) in enumerate(reversed(rounds)):
        weight = RECENCY**age
        for raised in placed[1:]:
            tally.setdefault(raised.seat, [0.0, 0.0])[1] += weight
        if caller is not None and placed:
            tally.setdefault(caller, [0.0, 0.0])[0] += weight
    a, b = CALL_RATE_PRIOR
    return {seat: (c + a) / (c + r + a + b) for seat, (c, r) in tally.items()}


def no_call_rate() -> float:
    """call_rates' share for a seat that has not yet faced a bid: the prior's mean."""
    a, b = CALL_RATE_PRIOR
    return a / (a + b)


def no_stays() -> tuple[float, float]:
    """face_stays' chances for a seat not yet seen raising: the priors' means."""
    return stay_chance(), stay_chance(prior=STAY_PRIOR_STEP)


def stay_chance(
    kept: float = 0.0, changed: float = 0.0, prior: tuple[float, float] | None = None
) -> float:
    """The chance of keeping the face after `kept` and `changed` raises, under `prior`
    (pseudo-raises that kept it and that changed it; STAY_PRIOR by default)."""
    a, b = STAY_PRIOR if prior is None else prior
    return (kept + a) / (kept + changed + a + b)


def opponent_reads(rules: Rules, results: tuple[RoundResult, ...]) -> dict[int, OpponentRead]:
    """The read of every seat with evidence in `results` (others: use ANCHOR)."""
    return dict(_opponent_reads_cached(rules, results))


# Cached: the reveals change once a round, and hard asks at each of its decisions. It often
# decides only once or twice a round, so about a quarter of the asks are answered here (27%
# in a benchmark run); each saves a pass over every reveal. Few entries: their keys hold a
# game's results.
@lru_cache(maxsize=64)
def _opponent_reads_cached(
    rules: Rules, results: tuple[RoundResult, ...]
) -> tuple[tuple[int, OpponentRead], ...]:
    calls: dict[int, list[list[float]]] = {}
    picks: dict[int, list[list[float]]] = {}
    habits: dict[int, float] = {}
    kinds_seen: dict[int, dict[tuple[bool, bool], int]] = {}
    for age, result in enumerate(reversed(results)):
        weight = RECENCY**age
        for seat, rows, pick_rows, habit in _round_evidence(rules, result):
            acc = calls.setdefault(seat, [[0.0] * len(THRESHOLDS) for _ in KAPPAS])
            pacc = picks.setdefault(seat, [[0.0] * len(SHARPNESSES) for _ in KAPPAS])
            for k in range(len(KAPPAS)):
                for j, x in enumerate(rows[k]):
                    acc[k][j] += weight * x
                for j, x in enumerate(pick_rows[k]):
                    pacc[k][j] += weight * x
            habits.setdefault(seat, 0.0)
            if habit is not None:
                # The habit's chance of this raise: its kind at the rate seen so far from
                # this seat (add-one), then one of the open raises of that kind.
                kind, same_kind, n_options = habit
                seen = kinds_seen.setdefault(seat, {})
                rate = (seen.get(kind, 0) + 1) / (sum(seen.values()) + HABIT_KINDS)
                chance = (1 - NOISE) * rate / same_kind + NOISE / n_options
                habits[seat] += weight * math.log(chance)
                seen[kind] = seen.get(kind, 0) + 1
    return tuple((seat, _read(acc, picks[seat], habits[seat])) for seat, acc in calls.items())


def _read(calls: list[list[float]], picks: list[list[float]], habit: float) -> OpponentRead:
    habit += HABIT_LOG_PRIOR

    def fit(k: int) -> tuple[float, int, int]:
        row = [x + p for x, p in zip(calls[k], _LOG_PRIOR, strict=True)]
        pick_row = [x + p for x, p in zip(picks[k], SHARPNESS_LOG_PRIOR, strict=True)]
        theta = max(range(len(THRESHOLDS)), key=row.__getitem__)
        sharp = max(range(len(SHARPNESSES)), key=pick_row.__getitem__)
        return row[theta] + max(pick_row[sharp], habit), theta, sharp

    fits = [fit(k) for k in range(len(KAPPAS))]
    # Bayes' rule over the three models, each at its best threshold and sharpness.
    logs = [fits[0][0], CREDIT_LOG_ODDS + fits[1][0], BAYES_LOG_ODDS + fits[2][0]]
    top = max(logs)
    odds = [math.exp(max(-60.0, x - top)) for x in logs]
    chances = [x / sum(odds) for x in odds]
    bayes = min(BAYES_GRID, key=lambda c: abs(c - chances[2]))
    # The credit is the chance of riding if the seat is not a Bayesian reader: the read of
    # the first two models alone, as it was without the third.
    riding = odds[1] / (odds[0] + odds[1])
    k = 2 if bayes > 0.0 and chances[2] >= max(chances) else int(riding > 0.5)
    _, theta, sharp = fits[k]
    pick = picks[k][sharp] + SHARPNESS_LOG_PRIOR[sharp]
    credit = min(CREDIT_GRID, key=lambda c: abs(c - riding))
    return OpponentRead(
        calls_below=THRESHOLDS[theta],
        sharpness=HABIT_SHARPNESS if habit > pick else SHARPNESSES[sharp],
        credit=credit,
        bayes=bayes,
    )
