"""Bids: their order under each `ones` mode, legality (protocol/RULES.md R2) and counting (R4).

Everything here is a pure function of the rules, the standing bid and public counts, so the
same code checks a bid on the host, on every peer, in the offline verifier and in the bots.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from .cache_tokens import rules_of_token, rules_token
from .errors import Reason, RuleError
from .rules import Ones, Palifico, PalificoKind, Rules

FACES = range(1, 7)


@dataclass(frozen=True, slots=True)
class Bid:
    """A claim that at least `quantity` dice in play show `face` (counting wilds)."""

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity} x {self.face}{'s' if self.quantity != 1 else ''}"


@lru_cache(maxsize=4096, typed=True)  # typed: True and 1 must not share an entry
def shared_bid(quantity: int, face: int) -> Bid:
    """One Bid object for each quantity and face. Bids are immutable, and the bots' caches
    hold them by the hundred thousand: one object each spares the memory, and the garbage
    collector's full walks, that a copy per cache entry would cost."""
    return Bid(quantity, face)


def bid_problem(
    rules: Rules,
    previous: Bid | None,
    bid: Bid,
    *,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> Reason | None:
    """The reason `bid` is illegal after `previous`, or None when it is legal (RULES.md R2)."""
    q, f = bid.quantity, bid.face
    if not isinstance(f, int) or isinstance(f, bool) or f not in FACES:
        return Reason.INVALID_FACE
    if not isinstance(q, int) or isinstance(q, bool) or q < 1:
        return Reason.INVALID_QUANTITY
    if q > dice_in_play:
        return Reason.QUANTITY_TOO_HIGH
    if palifico_round and rules.palifico_kind != PalificoKind.FACE_FIXED:
        if rules.palifico_kind == PalificoKind.ONES_NOT_WILD:  # any face, natural order
            if previous is None or _natural_raise(previous, bid):
                return None
            return Reason.BID_NOT_HIGHER
        return _palifico_problem(rules, previous, bid, bidder_dice)
    if palifico_round and previous is not None:  # face-fixed only: ones keep the table's mode
        problem = _normal_problem(rules, previous, bid)
        if bid.face == previous.face or problem is not None:
            return problem
        if rules.palifico == Palifico.FREE and bidder_dice == 1:
            return None
        return Reason.FACE_FIXED
    return _normal_problem(rules, previous, bid)


def _normal_problem(rules: Rules, previous: Bid | None, bid: Bid) -> Reason | None:
    """R2 step 5: the table's `ones` mode, outside the palifico rules."""
    f = bid.face
    if rules.ones == Ones.WILD and f == 1:
        return Reason.FACE_NOT_ALLOWED
    if previous is None:
        if rules.ones == Ones.ACES and f == 1:
            return Reason.FACE_NOT_ALLOWED
        return None
    if rules.ones == Ones.ACES and (previous.face == 1 or f == 1):
        return None if _aces_raise_ok(previous, bid) else Reason.BID_NOT_HIGHER
    return None if _natural_raise(previous, bid) else Reason.BID_NOT_HIGHER


def check_bid(
    rules: Rules,
    previous: Bid | None,
    bid: Bid,
    *,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> None:
    """Raise RuleError with the reason code when `bid` is illegal."""
    problem = bid_problem(
        rules,
        previous,
        bid,
        dice_in_play=dice_in_play,
        palifico_round=palifico_round,
        bidder_dice=bidder_dice,
    )
    if problem is not None:
        raise RuleError(problem, f"{bid} is not allowed after {previous or 'no bid'}")


def lowest_legal_quantity(
    rules: Rules,
    previous: Bid | None,
    face: int,
    *,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> int | None:
    """The smallest legal quantity on `face`, or None when no bid on it is legal.

    The dice in play only cap the quantity (R2), so the bound below the cap is found once
    for each standing bid, face, kind of round and bidder's dice, and cached: the bots ask
    for it at every count of dice their look-ahead meets.
    """
    if dice_in_play < 1:
        return None
    # Keyed by the standing bid's fields, typed: a bid of 2.0 (refused by the engine) must
    # not share an entry with the bid of 2 it equals.
    quantity, faced = (None, 0) if previous is None else (previous.quantity, previous.face)
    lowest = _lowest_below_any_cap(
        rules_token(rules), quantity, faced, face, palifico_round, bidder_dice
    )
    return lowest if lowest is not None and lowest <= dice_in_play else None


@lru_cache(maxsize=65536, typed=True)
def _lowest_below_any_cap(
    rules_key: int,
    previous_quantity: int | None,
    previous_face: int,
    face: int,
    palifico_round: bool,
    bidder_dice: int,
) -> int | None:
    """lowest_legal_quantity with as many dice in play as any rule asks for.

    For a fixed face legality is monotone in the quantity (every rule is a lower bound, plus
    the cap; a property test checks it), so a binary search over `bid_problem` finds the
    bound without restating the rules. No rule asks for more than 2q + 1 after a bid of q
    (leaving aces), so with that many dice in play the cap never decides.
    """
    rules = rules_of_token(rules_key)
    previous = None if previous_quantity is None else Bid(previous_quantity, previous_face)
    roof = 1 if previous_quantity is None else max(1, 2 * math.ceil(previous_quantity) + 1)

    def legal(q: int) -> bool:
        return (
            bid_problem(
                rules,
                previous,
                Bid(q, face),
                dice_in_play=roof,
                palifico_round=palifico_round,
                bidder_dice=bidder_dice,
            )
            is None
        )

    if not legal(roof):
        return None
    lo, hi = 1, roof
    while lo < hi:
        mid = (lo + hi) // 2
        if legal(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


def lowest_bids_per_face(
    rules: Rules,
    previous: Bid | None,
    *,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> dict[int, Bid]:
    """For each face, the legal bid with the smallest quantity (faces with none are absent)."""
    lowest: dict[int, Bid] = {}
    for face in FACES:
        q = lowest_legal_quantity(
            rules,
            previous,
            face,
            dice_in_play=dice_in_play,
            palifico_round=palifico_round,
            bidder_dice=bidder_dice,
        )
        if q is not None:
            lowest[face] = shared_bid(q, face)
    return lowest


def legal_bids(
    rules: Rules,
    previous: Bid | None,
    *,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> list[Bid]:
    """Every legal bid, in increasing quantity then face."""
    lowest = lowest_bids_per_face(
        rules,
        previous,
        dice_in_play=dice_in_play,
        palifico_round=palifico_round,
        bidder_dice=bidder_dice,
    )
    bids = [Bid(q, f) for f, low in lowest.items() for q in range(low.quantity, dice_in_play + 1)]
    return sorted(bids, key=lambda b: (b.quantity, b.face))


def ones_are_wild(rules: Rules, palifico_round: bool) -> bool:
    """Whether a die showing 1 counts toward bids on other faces this round."""
    palifico_keeps_wild = rules.palifico_kind == PalificoKind.FACE_FIXED
    return rules.ones != Ones.NATURAL and (not palifico_round or palifico_keeps_wild)


def count_matching(hands: Iterable[Iterable[int]], face: int, *, wild_ones: bool) -> int:
    """How many dice count toward a bid on `face` (RULES.md R4)."""
    return sum(1 for hand in hands for die in hand if die_counts(die, face, wild_ones=wild_ones))


def die_counts(die: int, face: int, *, wild_ones: bool) -> bool:
    """Whether one die counts toward a bid on `face` (for highlighting at the reveal)."""
    return die == face or (wild_ones and face != 1 and die == 1)


def _natural_raise(previous: Bid, bid: Bid) -> bool:
    return bid.quantity > previous.quantity or (
        bid.quantity == previous.quantity and bid.face > previous.face
    )


def _aces_raise_ok(previous: Bid, bid: Bid) -> bool:
    if previous.face != 1:  # onto ones: at least half, rounded up
        return bid.quantity >= -(-previous.quantity // 2)
    if bid.face == 1:
        return bid.quantity > previous.quantity
    return bid.quantity >= 2 * previous.quantity + 1  # leaving ones


def _palifico_problem(
    rules: Rules, previous: Bid | None, bid: Bid, bidder_dice: int
) -> Reason | None:
    if previous is None:
        return None
    if bid.face == previous.face:
        return None if bid.quantity > previous.quantity else Reason.BID_NOT_HIGHER
    if rules.palifico == Palifico.FREE and bidder_dice == 1:
        return None if _natural_raise(previous, bid) else Reason.BID_NOT_HIGHER
    return Reason.FACE_FIXED
