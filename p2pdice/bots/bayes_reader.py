"""A third opponent model for hard's reads: a seat that reasons about the others' hands from
their bids (a *Bayesian reader*).

Why
---
hard's reads (bots/reads.py) chose between two opponents: one who judges a bid by its own
hand, and one who *credits* each new face with two dice and each step with one (a rider).
A player who samples the other hands consistent with their bids (`sampler`) is neither:
it believes a bid as far as the bidder's hand makes it likely, which is more than "its own
hand alone" and less (or more) than two dice a face. Modelled as one of the two, its changes
of face were believed too little and its Liar calls on hard's changes of face predicted
far too often (docs/bots.md).

The model
---------
The reader holds a posterior over every other seat's hand given that seat's bids this round,
with a cheap stand-in for their bid policy as the likelihood: the noisy threshold player of
bots/belief.py at the public anchor (call below 35%, bid sharpness 20), its raises only
half believed (`READER_TRUST`: the rest hand-blind), which is how hard itself reads a
stranger. It then judges a bid on face f by its own matching dice plus the others' matching
dice under that posterior (convolved over the other seats): `Seen`, per face, the tail of
that count. bots/belief.py uses it wherever the rider uses its credited dice: in the
likelihood of the reader's own bids (its calls and raises follow that count) and in the
prediction of its replies; bots/reads.py weighs it against the other two models at reveals
(its calls and raises there), and hard.py predicts such a seat's replies to its raises by it.

Everything is a pure function of public facts (the dice each seat holds and the bids) and is
cached: a round's bid prefixes recur in every later decision of the round.
"""

from __future__ import annotations

from functools import lru_cache

from ..core.bids import Bid
from ..core.cache_tokens import rules_of_token, rules_token
from ..core.rules import Rules
from .belief import (
    CHALLENGE_BELOW,
    FACE_LIST,
    PICK_SHARPNESS,
    Seen,
    bid_key,
    bid_of_key,
    convolve,
    face_marginals,
    tail_table,
)

#: The reader's stand-in for the others' bid policy: the anchor's threshold and sharpness,
#: its raises believed with this chance (the rest: a hand-blind bidder), as hard reads a
#: stranger (reads.UNREAD_TRUST): a reader that took every bid at full sharpness would be
#: a rider of its own kind.
READER_CALLS = CHALLENGE_BELOW
READER_SHARPNESS = PICK_SHARPNESS
READER_TRUST = 0.5


def seen_by(
    rules: Rules,
    palifico_round: bool,
    dice: tuple[int, ...],
    bids: tuple[tuple[int, Bid], ...],
    seat: int,
) -> Seen:
    """What a Bayesian reader at `seat` expects of the others' dice after `bids` (this
    round's (seat, bid) pairs in order): per face 1..6, P(the others' matching dice >= k)
    for k = 0.. (one entry past the most they can hold, 0)."""
    keyed = tuple((bidder, bid_key(bid)) for bidder, bid in bids)
    return _seen_by_cached(rules_token(rules), palifico_round, dice, keyed, seat)


@lru_cache(maxsize=8192)  # keyed by numbers, out of the garbage collector's walks (belief.py)
def _seen_by_cached(
    rules_key: int,
    palifico_round: bool,
    dice: tuple[int, ...],
    bids: tuple[tuple[int, int], ...],
    seat: int,
) -> Seen:
    rules = rules_of_token(rules_key)
    in_play = sum(dice)
    histories: dict[int, list[tuple[Bid | None, Bid]]] = {}
    previous: Bid | None = None
    for bidder, key in bids:
        bid = bid_of_key(key)
        assert bid is not None
        histories.setdefault(bidder, []).append((previous, bid))
        previous = bid
    per_seat = [
        face_marginals(
            rules,
            palifico_round,
            in_play,
            n,
            tuple(histories.get(other, ())),
            READER_CALLS,
            READER_SHARPNESS,
            READER_TRUST,
        )
        for other, n in enumerate(dice)
        if other != seat and n > 0
    ]
    out = []
    for face in FACE_LIST:
        dist: list[float] = [1.0]
        for marginals in per_seat:
            dist = convolve(dist, marginals[face - 1])
        out.append(tuple(tail_table(dist)))
    return tuple(out)
