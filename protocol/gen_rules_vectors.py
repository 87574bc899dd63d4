#!/usr/bin/env python3
"""Generate the rules test vectors: ``rules_bids.json`` and ``rules_showdown.json``.

Theory of operation
-------------------
These vectors are an independent statement of protocol/RULES.md, written from that text alone.
The script therefore uses only the Python standard library and never imports ``p2pdice``: if the
package and the vectors disagree, one of them misreads RULES.md, and the disagreement is the
point of having both.

Two sources of cases feed every file:

* hand-written cases, whose expected result is written literally below, next to the reason
  in plain words;
* systematic cases (boundary sweeps), whose expected result is computed by the small
  reference implementation of RULES.md R2, R4, R5 and R6 that lives in this file, under every
  value of the house rule options (``palifico_kind``, ``exact_reward``, ``challenge_penalty``).

Before anything is written, every hand-written case is also run through the reference
implementation and the script stops if the two disagree, so each source checks the other.
Every case is also checked for plausibility (it describes a position a real game can reach:
dice in play within the table's limits, the caller is the seat whose turn it is, and so on),
and every expected result is checked against what the options allow (several seats lose dice
only to an others-lose hit, more than one die only to a challenge under the difference penalty).

The output is byte-deterministic: fixed case order, ``json.dumps(indent=1)`` and a final
newline, no timestamps and no randomness (dealt hands come from SHA-256 of fixed labels).
CI can re-run the script with ``--check`` to prove the committed files are current.

Usage: ``python protocol/gen_rules_vectors.py [--out DIR] [--check]``
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# --- reason codes of RULES.md R2 ---------------------------------------------------------
INVALID_FACE = "INVALID_FACE"
INVALID_QUANTITY = "INVALID_QUANTITY"
QUANTITY_TOO_HIGH = "QUANTITY_TOO_HIGH"
FACE_FIXED = "FACE_FIXED"
FACE_NOT_ALLOWED = "FACE_NOT_ALLOWED"
BID_NOT_HIGHER = "BID_NOT_HIGHER"
V = "valid"  # literal expectation for a valid bid

Bid = tuple[int, int]  # (quantity, face)


@dataclass(frozen=True, slots=True)
class Rules:
    """The part of the R1 rules object that decides bids and showdowns."""

    ones: str  #: "wild" | "natural" | "aces"
    palifico: str  #: "off" | "fixed" | "free"
    starting_dice: int  #: 1..5
    exact_call: bool
    palifico_kind: str = "both"  #: "both" | "ones-not-wild" | "face-fixed"
    exact_reward: str = "regain"  #: "regain" | "others-lose"
    challenge_penalty: str = "one"  #: "one" | "difference"

    def __post_init__(self) -> None:
        assert self.ones in ("wild", "natural", "aces"), self
        assert self.palifico in ("off", "fixed", "free"), self
        assert 1 <= self.starting_dice <= 5, self
        assert self.palifico_kind in ("both", "ones-not-wild", "face-fixed"), self
        assert self.exact_reward in ("regain", "others-lose"), self
        assert self.challenge_penalty in ("one", "difference"), self

    def to_json(self) -> dict[str, object]:
        # Every key, defaults included: a reader builds its rules object from this alone.
        return {
            "ones": self.ones,
            "palifico": self.palifico,
            "starting_dice": self.starting_dice,
            "exact_call": self.exact_call,
            "palifico_kind": self.palifico_kind,
            "exact_reward": self.exact_reward,
            "challenge_penalty": self.challenge_penalty,
        }


CLASSIC = Rules("wild", "off", 5, False)
PERUDO = Rules("aces", "fixed", 5, True)


# --- reference implementation ------------------------------------------------------------
def ceil_half(n: int) -> int:
    return -(-n // 2)


def higher_natural(previous: Bid, bid: Bid) -> bool:
    """Natural order: more dice, or as many on a higher face (1 is the lowest face)."""
    return bid[0] > previous[0] or (bid[0] == previous[0] and bid[1] > previous[1])


def check_bid(
    rules: Rules,
    previous: Bid | None,
    bid: Bid,
    dice_in_play: int,
    palifico_round: bool,
    bidder_dice: int,
) -> str | None:
    """RULES.md R2, in its check order. Returns a reason code, or None when the bid is valid."""
    q, f = bid
    if not 1 <= f <= 6:
        return INVALID_FACE
    if q < 1:
        return INVALID_QUANTITY
    if q > dice_in_play:
        return QUANTITY_TOO_HIGH
    if palifico_round and rules.palifico_kind == "both":
        if previous is None:
            return None
        pq, pf = previous
        if f == pf:
            return None if q > pq else BID_NOT_HIGHER
        if rules.palifico == "free" and bidder_dice == 1:
            return None if higher_natural(previous, bid) else BID_NOT_HIGHER
        return FACE_FIXED
    if palifico_round and rules.palifico_kind == "ones-not-wild":
        # R5: any face, natural order, no aces conversions; the face is free.
        if previous is None:
            return None
        return None if higher_natural(previous, bid) else BID_NOT_HIGHER
    normal = check_normal_bid(rules, previous, bid)
    if palifico_round and previous is not None and normal is None:
        # R5 face-fixed: step 5 first (its reason wins), then the standing bid's face.
        assert rules.palifico_kind == "face-fixed", rules
        if f != previous[1] and not (rules.palifico == "free" and bidder_dice == 1):
            return FACE_FIXED
    return normal


def check_normal_bid(rules: Rules, previous: Bid | None, bid: Bid) -> str | None:
    """RULES.md R2 step 5: the table's ``ones`` mode."""
    q, f = bid
    if rules.ones == "wild":
        if f == 1:
            return FACE_NOT_ALLOWED
        if previous is None:
            return None
        pq, pf = previous
        return None if (q > pq or (q == pq and f > pf)) else BID_NOT_HIGHER
    if rules.ones == "natural":
        if previous is None:
            return None
        pq, pf = previous
        return None if (q > pq or (q == pq and f > pf)) else BID_NOT_HIGHER
    assert rules.ones == "aces", rules
    if previous is None:
        return FACE_NOT_ALLOWED if f == 1 else None
    pq, pf = previous
    if pf != 1 and f != 1:
        return None if (q > pq or (q == pq and f > pf)) else BID_NOT_HIGHER
    if pf != 1 and f == 1:
        return None if q >= ceil_half(pq) else BID_NOT_HIGHER
    if pf == 1 and f == 1:
        return None if q > pq else BID_NOT_HIGHER
    return None if q >= 2 * pq + 1 else BID_NOT_HIGHER


def next_surviving(dice: list[int], seat: int) -> int:
    """The next seat after ``seat`` (wrapping) that still holds dice."""
    n = len(dice)
    for step in range(1, n + 1):
        s = (seat + step) % n
        if dice[s] > 0:
            return s
    raise ValueError("no surviving seat")


def count_matching(rules: Rules, hands: list[list[int]], face: int, palifico_round: bool) -> int:
    """RULES.md R4: dice showing the face, plus wild ones where they apply.

    A palifico round makes ones plain unless its kind is face-fixed (R5)."""
    plain = palifico_round and rules.palifico_kind != "face-fixed"
    wild = rules.ones in ("wild", "aces") and face != 1 and not plain
    return sum(1 for hand in hands for d in hand if d == face or (wild and d == 1))


def resolve(
    rules: Rules,
    hands: list[list[int]],
    bid: Bid,
    bidder: int,
    caller: int,
    call: str,
    palifico_round: bool,
    palifico_used: list[int],
) -> dict[str, object]:
    """RULES.md R4, R5 and R6: the outcome of a challenge or an exact call."""
    q, f = bid
    n = len(hands)
    before = [len(h) for h in hands]
    lost = [0] * n
    gained = [0] * n
    count = count_matching(rules, hands, f, palifico_round)
    if call == "challenge":
        paying = caller if count >= q else bidder
        owed = max(1, abs(count - q)) if rules.challenge_penalty == "difference" else 1
        lost[paying] = min(owed, before[paying])
        starter = paying
    else:
        assert call == "exact", call
        starter = caller
        if count != q:
            lost[caller] = 1  # a miss costs one die under every challenge_penalty
        elif rules.exact_reward == "others-lose":
            for s in range(n):
                if s != caller and before[s] > 0:
                    lost[s] = 1
        elif before[caller] < rules.starting_dice:
            gained[caller] = 1
    after = [before[s] - lost[s] + gained[s] for s in range(n)]
    losers = [s for s in range(n) if lost[s] > 0]
    loser = losers[0] if len(losers) == 1 else None
    gone = [s for s in losers if after[s] == 0]
    # R4/R6: seats out together join the elimination list in reverse play order from the
    # caller, so the first of them after the caller ends up last (ranks highest).
    elimination_order = sorted(gone, key=lambda s: (s - caller) % n, reverse=True)
    if after[starter] == 0:
        starter = next_surviving(after, starter)
    survivors = [s for s in range(n) if after[s] > 0]
    falls = loser is not None and after[loser] == 1 and rules.starting_dice > 1
    used_after = sorted(set(palifico_used) | ({loser} if falls and loser is not None else set()))
    palifico_next = (
        rules.palifico != "off" and falls and loser not in palifico_used and len(survivors) > 2
    )
    return {
        "count": count,
        "dice_after": after,
        "next_starter": starter,
        "eliminated": sorted(gone),
        "palifico_next_round": palifico_next,
        "loser": loser,
        "elimination_order": elimination_order,
        "winner": survivors[0] if len(survivors) == 1 else None,
        "palifico_used_after": used_after,
    }


# --- plausibility: every case must describe a reachable position -------------------------
def check_bid_case_plausible(
    rules: Rules, previous: Bid | None, n: int, pal: bool, bidder_dice: int
) -> None:
    # At least two seats survive, each holding 1..starting_dice dice (at most six seats).
    assert 2 <= n <= 6 * rules.starting_dice, n
    assert 1 <= bidder_dice <= rules.starting_dice and bidder_dice <= n - 1, (bidder_dice, n)
    if pal:
        # A palifico round needs the option, starting_dice > 1 and more than two survivors.
        assert rules.palifico != "off" and rules.starting_dice > 1 and n >= 3, (rules, n)
    if previous is not None:
        # The standing bid was itself a legal bid in this round.
        pq, pf = previous
        assert 1 <= pf <= 6 and 1 <= pq <= n, previous
        if rules.ones == "wild" and not (pal and rules.palifico_kind != "face-fixed"):
            # Only a palifico round that sets the ones mode aside lets them be bid.
            assert pf != 1, previous


def check_showdown_case_plausible(
    rules: Rules,
    hands: list[list[int]],
    bid: Bid,
    bidder: int,
    caller: int,
    call: str,
    pal: bool,
    used: list[int],
) -> None:
    dice = [len(h) for h in hands]
    assert 2 <= len(hands) <= 6, hands
    assert all(len(h) <= rules.starting_dice for h in hands), hands
    assert all(1 <= d <= 6 for h in hands for d in h), hands
    survivors = [s for s in range(len(hands)) if dice[s] > 0]
    assert len(survivors) >= 2, hands
    assert dice[bidder] > 0, bidder
    assert caller == next_surviving(dice, bidder), (bidder, caller)
    assert call in ("challenge", "exact"), call
    assert call == "challenge" or rules.exact_call, "exact call on a table without it"
    q, f = bid
    assert 1 <= f <= 6 and 1 <= q <= sum(dice), bid
    if rules.ones == "wild" and not (pal and rules.palifico_kind != "face-fixed"):
        assert f != 1, "ones are bid on a wild table only in a palifico round that allows it"
    assert used == sorted(set(used)) and all(0 <= s < len(hands) for s in used), used
    if rules.starting_dice == 1:
        assert used == [], "with one starting die nobody falls to one"
    else:
        # Anyone holding one die, or already out, went through one die earlier.
        assert all(s in used for s in range(len(hands)) if dice[s] <= 1), (hands, used)
    if pal:
        assert rules.palifico != "off" and rules.starting_dice > 1 and len(survivors) > 2
        assert any(dice[s] == 1 for s in used), "someone holding one die opened it"


def check_result_plausible(
    rules: Rules, hands: list[list[int]], call: str, expected: dict[str, object]
) -> None:
    """The expectation is a result the options allow, whoever computed it."""
    before = [len(h) for h in hands]
    after = expected["dice_after"]
    assert isinstance(after, list) and len(after) == len(before), expected
    assert all(0 <= d <= rules.starting_dice for d in after), expected
    changes = [a - b for a, b in zip(after, before, strict=True)]
    losers = [s for s, c in enumerate(changes) if c < 0]
    gainers = [s for s, c in enumerate(changes) if c > 0]
    assert all(c >= -1 for c in changes) or (
        call == "challenge" and rules.challenge_penalty == "difference"
    ), "more than one die lost only to a challenge under the difference penalty"
    assert len(losers) <= 1 or (call == "exact" and rules.exact_reward == "others-lose"), (
        "several seats lose dice only to a right exact call under others-lose"
    )
    assert not gainers or (
        call == "exact" and rules.exact_reward == "regain" and len(gainers) == 1 and not losers
    ), "only the caller of a right exact call under regain gains a die"
    assert expected["loser"] == (losers[0] if len(losers) == 1 else None), expected
    order = expected["elimination_order"]
    assert isinstance(order, list)
    assert sorted(order) == expected["eliminated"] == [s for s in losers if after[s] == 0]
    survivors = [s for s, d in enumerate(after) if d > 0]
    assert expected["winner"] == (survivors[0] if len(survivors) == 1 else None), expected
    assert expected["next_starter"] in survivors, expected
    if expected["palifico_next_round"]:
        assert len(losers) == 1 and len(survivors) > 2, "palifico follows one loser only"


# --- deterministic dice for the systematic showdown sweeps --------------------------------
def deal(label: str, sizes: list[int]) -> list[list[int]]:
    """Dice drawn from SHA-256 of a fixed label (rejection sampling, so faces are uniform)."""
    hands: list[list[int]] = []
    for seat, size in enumerate(sizes):
        hand: list[int] = []
        counter = 0
        while len(hand) < size:
            digest = hashlib.sha256(
                f"p2pdice/rules-vectors/{label}/{seat}/{counter}".encode()
            ).digest()
            counter += 1
            for byte in digest:
                if byte < 252 and len(hand) < size:
                    hand.append(byte % 6 + 1)
        hands.append(hand)
    return hands


# =========================================================================================
# Bid cases
# A hand-written case is (comment, previous, bid, dice_in_play, palifico_round,
# bidder_dice, expected) with expected V or a reason code.
# =========================================================================================
BidCase = tuple[str, Bid | None, Bid, int, bool, int, str]

# fmt: off
HAND_BIDS: list[tuple[Rules, list[BidCase]]] = [
    (CLASSIC, [
        ("opening: lowest possible bid",
         None, (1, 2), 20, False, 5, V),
        ("opening: any face 2..6, here 6",
         None, (4, 6), 20, False, 5, V),
        ("opening: quantity equal to the dice in play is the maximum",
         None, (20, 6), 20, False, 5, V),
        ("opening: one more than the dice in play",
         None, (21, 2), 20, False, 5, QUANTITY_TOO_HIGH),
        ("opening: quantity 0",
         None, (0, 3), 20, False, 5, INVALID_QUANTITY),
        ("opening: negative quantity",
         None, (-1, 3), 20, False, 5, INVALID_QUANTITY),
        ("opening: face 0",
         None, (3, 0), 20, False, 5, INVALID_FACE),
        ("opening: face 7",
         None, (3, 7), 20, False, 5, INVALID_FACE),
        ("check order: face is checked before quantity",
         None, (0, 7), 20, False, 5, INVALID_FACE),
        ("check order: quantity 0 is reported before ones being refused",
         None, (0, 1), 20, False, 5, INVALID_QUANTITY),
        ("check order: too high is reported before ones being refused",
         None, (21, 1), 20, False, 5, QUANTITY_TOO_HIGH),
        ("wild: ones can never be bid, even to open",
         None, (3, 1), 20, False, 5, FACE_NOT_ALLOWED),
        ("wild: ones refused as a raise with the same quantity",
         (3, 4), (3, 1), 20, False, 5, FACE_NOT_ALLOWED),
        ("wild: ones refused even with a higher quantity",
         (3, 4), (4, 1), 20, False, 5, FACE_NOT_ALLOWED),
        ("wild: same quantity, higher face",
         (3, 4), (3, 5), 20, False, 5, V),
        ("wild: repeating the standing bid",
         (3, 4), (3, 4), 20, False, 5, BID_NOT_HIGHER),
        ("wild: same quantity, lower face",
         (3, 4), (3, 3), 20, False, 5, BID_NOT_HIGHER),
        ("wild: higher quantity, lower face",
         (3, 4), (4, 2), 20, False, 5, V),
        ("wild: lower quantity, higher face",
         (3, 4), (2, 6), 20, False, 5, BID_NOT_HIGHER),
        ("wild: jump in quantity",
         (3, 4), (12, 3), 20, False, 5, V),
        ("wild: raise up to the maximum quantity",
         (19, 6), (20, 2), 20, False, 5, V),
        ("wild: raise one above the maximum quantity",
         (19, 6), (21, 2), 20, False, 5, QUANTITY_TOO_HIGH),
        ("wild: max quantity of 5s -> max quantity of 6s",
         (20, 5), (20, 6), 20, False, 5, V),
        ("wild: after N 6s no raise is left (same quantity)",
         (20, 6), (20, 6), 20, False, 5, BID_NOT_HIGHER),
        ("wild: after N 6s no raise is left (lower face)",
         (20, 6), (20, 2), 20, False, 5, BID_NOT_HIGHER),
        ("wild: after N 6s no raise is left (higher quantity)",
         (20, 6), (21, 2), 20, False, 5, QUANTITY_TOO_HIGH),
        ("wild: a bidder with one die may bid any legal raise",
         (5, 3), (6, 2), 12, False, 1, V),
        ("wild: last two players with one die each, bid 2 6s",
         None, (2, 6), 2, False, 1, V),
        ("wild: last two players with one die each, 3 is too many",
         (2, 5), (3, 2), 2, False, 1, QUANTITY_TOO_HIGH),
    ]),
    (Rules("natural", "off", 5, False), [
        ("natural: ones may open",
         None, (1, 1), 15, False, 5, V),
        ("natural: ones may open at the maximum quantity",
         None, (15, 1), 15, False, 5, V),
        ("natural: ones one above the maximum",
         None, (16, 1), 15, False, 5, QUANTITY_TOO_HIGH),
        ("natural: face 1 is the lowest face, 2 is higher",
         (4, 1), (4, 2), 15, False, 5, V),
        ("natural: same quantity of ones after 2s is lower",
         (4, 2), (4, 1), 15, False, 5, BID_NOT_HIGHER),
        ("natural: higher quantity of ones after 6s",
         (4, 6), (5, 1), 15, False, 5, V),
        ("natural: same quantity of ones after 6s",
         (4, 6), (4, 1), 15, False, 5, BID_NOT_HIGHER),
        ("natural: ones to ones needs a higher quantity",
         (4, 1), (4, 1), 15, False, 5, BID_NOT_HIGHER),
        ("natural: ones to more ones",
         (4, 1), (5, 1), 15, False, 5, V),
        ("natural: no aces conversion, half the quantity in ones is lower",
         (6, 4), (3, 1), 15, False, 5, BID_NOT_HIGHER),
        ("natural: N 5s -> N 6s",
         (15, 5), (15, 6), 15, False, 5, V),
        ("natural: after N 6s nothing is higher",
         (15, 6), (15, 1), 15, False, 5, BID_NOT_HIGHER),
        ("natural: after N 6s, N+1 ones is too many",
         (15, 6), (16, 1), 15, False, 5, QUANTITY_TOO_HIGH),
        ("natural: N ones is not the top bid",
         (15, 1), (15, 2), 15, False, 5, V),
        ("natural: face 0",
         (2, 3), (3, 0), 15, False, 5, INVALID_FACE),
        ("natural: face 7",
         (2, 3), (2, 7), 15, False, 5, INVALID_FACE),
        ("natural: quantity 0",
         (2, 3), (0, 4), 15, False, 5, INVALID_QUANTITY),
    ]),
    (PERUDO, [
        ("aces: an opening bid may not be on ones",
         None, (3, 1), 25, False, 5, FACE_NOT_ALLOWED),
        ("aces: opening on 2s",
         None, (3, 2), 25, False, 5, V),
        ("aces: quantity 0 on ones is reported as a quantity error first",
         None, (0, 1), 25, False, 5, INVALID_QUANTITY),
        ("aces: opening on ones above the maximum is reported as too high first",
         None, (26, 1), 25, False, 5, QUANTITY_TOO_HIGH),
        ("aces worked example: five 4s -> three 1s",
         (5, 4), (3, 1), 25, False, 5, V),
        ("aces worked example: five 4s -> two 1s",
         (5, 4), (2, 1), 25, False, 5, BID_NOT_HIGHER),
        ("aces worked example: three 1s -> seven 2s",
         (3, 1), (7, 2), 25, False, 5, V),
        ("aces worked example: three 1s -> six 6s",
         (3, 1), (6, 6), 25, False, 5, BID_NOT_HIGHER),
        ("aces: even quantity, four 3s -> two 1s (exactly half)",
         (4, 3), (2, 1), 25, False, 5, V),
        ("aces: even quantity, four 3s -> one 1",
         (4, 3), (1, 1), 25, False, 5, BID_NOT_HIGHER),
        ("aces: one 5 -> one 1 (half of 1 rounded up is 1)",
         (1, 5), (1, 1), 25, False, 5, V),
        ("aces: converting to ones with a higher quantity is also fine",
         (5, 4), (6, 1), 25, False, 5, V),
        ("aces: ones to ones, higher quantity",
         (2, 1), (3, 1), 25, False, 5, V),
        ("aces: ones to ones, same quantity",
         (2, 1), (2, 1), 25, False, 5, BID_NOT_HIGHER),
        ("aces: ones to ones, lower quantity",
         (2, 1), (1, 1), 25, False, 5, BID_NOT_HIGHER),
        ("aces: two 1s -> five 3s (2x2+1)",
         (2, 1), (5, 3), 25, False, 5, V),
        ("aces: two 1s -> four 6s (only twice)",
         (2, 1), (4, 6), 25, False, 5, BID_NOT_HIGHER),
        ("aces: non-ones, same quantity higher face",
         (3, 4), (3, 5), 25, False, 5, V),
        ("aces: non-ones, higher quantity lower face",
         (3, 4), (4, 2), 25, False, 5, V),
        ("aces: non-ones, same quantity lower face",
         (3, 4), (3, 3), 25, False, 5, BID_NOT_HIGHER),
        ("aces: leaving ones lands exactly on the maximum",
         (12, 1), (25, 2), 25, False, 5, V),
        ("aces: leaving ones would need 27, above the maximum",
         (13, 1), (25, 6), 25, False, 5, BID_NOT_HIGHER),
        ("aces: leaving ones, 2x13+1 is over the dice in play",
         (13, 1), (27, 2), 25, False, 5, QUANTITY_TOO_HIGH),
        ("aces: after 13 ones, more ones is still possible",
         (13, 1), (14, 1), 25, False, 5, V),
        ("aces: N 6s is not the top bid, ceil(N/2) 1s follows",
         (25, 6), (13, 1), 25, False, 5, V),
        ("aces: after N 6s, one fewer 1s than ceil(N/2)",
         (25, 6), (12, 1), 25, False, 5, BID_NOT_HIGHER),
        ("aces: after N 1s no raise is left (more ones)",
         (25, 1), (26, 1), 25, False, 5, QUANTITY_TOO_HIGH),
        ("aces: after N 1s no raise is left (back to 6s)",
         (25, 1), (25, 6), 25, False, 5, BID_NOT_HIGHER),
        ("aces: face 7 with a standing bid on ones",
         (3, 1), (7, 7), 25, False, 5, INVALID_FACE),
        # Palifico rounds at a perudo table (palifico "fixed").
        ("palifico fixed: the opener may bid ones",
         None, (1, 1), 12, True, 1, V),
        ("palifico fixed: the opener may bid ones, two of them",
         None, (2, 1), 12, True, 1, V),
        ("palifico fixed: the opener may bid any other face",
         None, (2, 5), 12, True, 1, V),
        ("palifico fixed: opening above the dice in play",
         None, (13, 1), 12, True, 1, QUANTITY_TOO_HIGH),
        ("palifico fixed: more of the fixed face (ones)",
         (2, 1), (3, 1), 12, True, 4, V),
        ("palifico fixed: same quantity of the fixed face",
         (2, 1), (2, 1), 12, True, 4, BID_NOT_HIGHER),
        ("palifico fixed: leaving ones is refused, no aces conversion",
         (2, 1), (5, 4), 12, True, 4, FACE_FIXED),
        ("palifico fixed: converting to ones is refused",
         (4, 3), (2, 1), 12, True, 4, FACE_FIXED),
        ("palifico fixed: higher quantity on another face is refused",
         (4, 3), (5, 4), 12, True, 3, FACE_FIXED),
        ("palifico fixed: a one-die player may not change the face either",
         (4, 3), (5, 4), 12, True, 1, FACE_FIXED),
        ("palifico fixed: one-die player, same quantity higher face",
         (4, 3), (4, 6), 12, True, 1, FACE_FIXED),
        ("palifico fixed: one-die player raising the fixed face",
         (4, 3), (5, 3), 12, True, 1, V),
        ("palifico fixed: N of the fixed face",
         (4, 3), (12, 3), 12, True, 2, V),
        ("palifico fixed: after N of the fixed face, N+1 is too many",
         (12, 3), (13, 3), 12, True, 2, QUANTITY_TOO_HIGH),
        ("palifico fixed: after N of the fixed face, N of a higher face",
         (12, 3), (12, 4), 12, True, 2, FACE_FIXED),
        ("check order: too high is reported before the face being fixed",
         (4, 3), (13, 5), 12, True, 2, QUANTITY_TOO_HIGH),
        ("check order: face 7 in a palifico round",
         (4, 3), (5, 7), 12, True, 2, INVALID_FACE),
        ("check order: quantity 0 in a palifico round",
         (4, 3), (0, 3), 12, True, 2, INVALID_QUANTITY),
    ]),
    (Rules("wild", "free", 5, False), [
        ("wild table, not a palifico round: ones still cannot open",
         None, (1, 1), 14, False, 1, FACE_NOT_ALLOWED),
        ("palifico free: the opener may bid ones on a wild table",
         None, (1, 1), 14, True, 1, V),
        ("palifico free: the opener may bid 6s",
         None, (3, 6), 14, True, 1, V),
        ("palifico free: one die, same quantity higher face",
         (2, 3), (2, 5), 14, True, 1, V),
        ("palifico free: one die, same quantity lower face",
         (2, 3), (2, 2), 14, True, 1, BID_NOT_HIGHER),
        ("palifico free: one die, higher quantity on ones",
         (2, 3), (3, 1), 14, True, 1, V),
        ("palifico free: one die, same quantity on ones (ones are lowest)",
         (2, 3), (2, 1), 14, True, 1, BID_NOT_HIGHER),
        ("palifico free: one die, higher quantity lower face",
         (2, 3), (3, 2), 14, True, 1, V),
        ("palifico free: one die, repeating the standing bid",
         (2, 3), (2, 3), 14, True, 1, BID_NOT_HIGHER),
        ("palifico free: one die, more of the fixed face",
         (2, 3), (4, 3), 14, True, 1, V),
        ("palifico free: two dice, same quantity higher face",
         (2, 3), (2, 5), 14, True, 2, FACE_FIXED),
        ("palifico free: two dice, higher quantity on ones",
         (2, 3), (3, 1), 14, True, 2, FACE_FIXED),
        ("palifico free: two dice, more of the fixed face",
         (2, 3), (3, 3), 14, True, 2, V),
        ("palifico free: five dice, changing face",
         (2, 3), (4, 6), 14, True, 5, FACE_FIXED),
        ("palifico free: two dice, lower quantity other face is FACE_FIXED",
         (2, 3), (1, 6), 14, True, 2, FACE_FIXED),
        ("palifico free: fixed face is ones, one die moves to 2s",
         (2, 1), (2, 2), 14, True, 1, V),
        ("palifico free: fixed face is ones, two dice raise the ones",
         (2, 1), (3, 1), 14, True, 2, V),
        ("palifico free: fixed face is ones, two dice may not leave it",
         (2, 1), (3, 2), 14, True, 2, FACE_FIXED),
        ("palifico free: one die, from 6s to the same quantity of ones",
         (2, 6), (2, 1), 14, True, 1, BID_NOT_HIGHER),
        ("palifico free: one die, from 6s to more ones",
         (2, 6), (3, 1), 14, True, 1, V),
        ("palifico free: one die, N of a lower fixed face -> N of a higher face",
         (14, 3), (14, 4), 14, True, 1, V),
        ("palifico free: one die, after N 6s nothing is higher",
         (14, 6), (14, 2), 14, True, 1, BID_NOT_HIGHER),
        ("palifico free: one die, change of face above the dice in play",
         (14, 6), (15, 2), 14, True, 1, QUANTITY_TOO_HIGH),
    ]),
    (Rules("natural", "fixed", 4, False), [
        ("natural, palifico fixed: the opener may bid ones",
         None, (1, 1), 9, True, 1, V),
        ("natural, palifico fixed: more ones",
         (1, 1), (2, 1), 9, True, 3, V),
        ("natural, palifico fixed: leaving ones for 2s is refused",
         (1, 1), (1, 2), 9, True, 3, FACE_FIXED),
        ("natural, palifico fixed: one die may not leave the fixed face",
         (2, 5), (2, 6), 9, True, 1, FACE_FIXED),
        ("natural, palifico fixed: N of the fixed face, no raise left",
         (9, 5), (9, 6), 9, True, 4, FACE_FIXED),
        ("natural, outside palifico: same quantity higher face",
         (2, 5), (2, 6), 9, False, 4, V),
    ]),
    (Rules("natural", "free", 3, True), [
        ("natural, palifico free: the opener may bid ones",
         None, (2, 1), 7, True, 1, V),
        ("natural, palifico free: one die, ones -> same quantity of 4s",
         (2, 1), (2, 4), 7, True, 1, V),
        ("natural, palifico free: one die, 4s -> more ones",
         (2, 4), (3, 1), 7, True, 1, V),
        ("natural, palifico free: one die, 4s -> same quantity of ones",
         (2, 4), (2, 1), 7, True, 1, BID_NOT_HIGHER),
        ("natural, palifico free: three dice may not change face",
         (2, 4), (3, 1), 7, True, 3, FACE_FIXED),
        ("natural, palifico free: one die, lower quantity of another face",
         (3, 4), (2, 6), 7, True, 1, BID_NOT_HIGHER),
    ]),
    (Rules("aces", "free", 5, True), [
        ("aces, not palifico: three 4s -> two 1s (conversion)",
         (3, 4), (2, 1), 18, False, 3, V),
        ("aces, palifico free: one die, three 4s -> two 1s is lower (no conversion)",
         (3, 4), (2, 1), 18, True, 1, BID_NOT_HIGHER),
        ("aces, palifico free: one die, three 4s -> four 1s",
         (3, 4), (4, 1), 18, True, 1, V),
        ("aces, palifico free: one die, two 1s -> two 2s (no 2x+1 rule)",
         (2, 1), (2, 2), 18, True, 1, V),
        ("aces, not palifico: two 1s -> two 2s",
         (2, 1), (2, 2), 18, False, 1, BID_NOT_HIGHER),
        ("aces, palifico free: the opener may bid ones",
         None, (1, 1), 18, True, 1, V),
        ("aces, not palifico: the opener may not bid ones",
         None, (1, 1), 18, False, 1, FACE_NOT_ALLOWED),
        ("aces, palifico free: two dice may not convert to ones",
         (3, 4), (4, 1), 18, True, 2, FACE_FIXED),
    ]),
    (Rules("wild", "fixed", 2, True), [
        ("wild, palifico fixed, 2 dice each: the opener may bid ones",
         None, (2, 1), 8, True, 1, V),
        ("wild, palifico fixed: ones stay fixed for everyone",
         (2, 1), (3, 1), 8, True, 2, V),
        ("wild, palifico fixed: cannot leave ones",
         (2, 1), (5, 2), 8, True, 2, FACE_FIXED),
        ("wild, palifico fixed: N ones, no raise left",
         (8, 1), (8, 2), 8, True, 1, FACE_FIXED),
        ("wild, not palifico: ones refused on the same table",
         (2, 3), (3, 1), 8, False, 2, FACE_NOT_ALLOWED),
    ]),
    (Rules("wild", "off", 1, False), [
        ("one starting die: six players, six dice, six 6s",
         None, (6, 6), 6, False, 1, V),
        ("one starting die: seven is too many",
         (6, 5), (7, 6), 6, False, 1, QUANTITY_TOO_HIGH),
        ("one starting die: two players left, two 2s",
         (1, 6), (2, 2), 2, False, 1, V),
        ("one starting die: ones are still not biddable",
         (1, 6), (2, 1), 2, False, 1, FACE_NOT_ALLOWED),
    ]),
    (Rules("aces", "fixed", 1, True), [
        ("one starting die, aces: never a palifico round, ones cannot open",
         None, (1, 1), 4, False, 1, FACE_NOT_ALLOWED),
        ("one starting die, aces: three 6s -> two 1s",
         (3, 6), (2, 1), 4, False, 1, V),
        ("one starting die, aces: two 1s -> 5 of anything is over the dice in play",
         (2, 1), (5, 2), 4, False, 1, QUANTITY_TOO_HIGH),
        ("one starting die, aces: two 1s -> four 2s is not enough",
         (2, 1), (4, 2), 4, False, 1, BID_NOT_HIGHER),
    ]),
]
# fmt: on


# House rules (RULES.md R5 palifico_kind): what a palifico round changes.
ONW_ACES = Rules("aces", "fixed", 5, True, palifico_kind="ones-not-wild")
FF_ACES = Rules("aces", "fixed", 5, True, palifico_kind="face-fixed")
FF_ACES_FREE = Rules("aces", "free", 5, True, palifico_kind="face-fixed")

# fmt: off
HAND_HOUSE_BIDS: list[tuple[Rules, list[BidCase]]] = [
    (ONW_ACES, [
        ("ones-not-wild palifico: the opener may bid ones",
         None, (1, 1), 12, True, 1, V),
        ("ones-not-wild palifico: the face is free, same quantity higher face",
         (3, 4), (3, 5), 12, True, 3, V),
        ("ones-not-wild palifico: the face is free, higher quantity lower face",
         (3, 4), (4, 2), 12, True, 3, V),
        ("ones-not-wild palifico: same quantity on a lower face",
         (3, 4), (3, 3), 12, True, 3, BID_NOT_HIGHER),
        ("ones-not-wild palifico: same quantity of ones, ones are the lowest face",
         (3, 4), (3, 1), 12, True, 3, BID_NOT_HIGHER),
        ("ones-not-wild palifico: no aces conversion, half the quantity in ones is lower",
         (3, 4), (2, 1), 12, True, 3, BID_NOT_HIGHER),
        ("ones-not-wild palifico: more ones than the standing quantity",
         (3, 4), (4, 1), 12, True, 3, V),
        ("ones-not-wild palifico: leaving ones needs no 2q+1, same quantity of 2s",
         (2, 1), (2, 2), 12, True, 4, V),
        ("ones-not-wild palifico: more ones after ones",
         (2, 1), (3, 1), 12, True, 4, V),
        ("ones-not-wild palifico: repeating the standing bid",
         (3, 4), (3, 4), 12, True, 3, BID_NOT_HIGHER),
        ("ones-not-wild palifico: after N 6s nothing is higher, not even N ones",
         (12, 6), (12, 1), 12, True, 2, BID_NOT_HIGHER),
        ("ones-not-wild palifico: N 5s -> N 6s",
         (12, 5), (12, 6), 12, True, 2, V),
        ("ones-not-wild palifico, check order: too high before anything else",
         (3, 4), (13, 5), 12, True, 2, QUANTITY_TOO_HIGH),
        ("ones-not-wild palifico, check order: face 7",
         (3, 4), (3, 7), 12, True, 2, INVALID_FACE),
        ("ones-not-wild palifico, check order: quantity 0",
         (3, 4), (0, 5), 12, True, 2, INVALID_QUANTITY),
        ("ones-not-wild, not a palifico round: the aces conversion applies",
         (3, 4), (2, 1), 12, False, 3, V),
        ("ones-not-wild, not a palifico round: ones cannot open",
         None, (1, 1), 12, False, 3, FACE_NOT_ALLOWED),
    ]),
    (Rules("wild", "fixed", 5, False, palifico_kind="ones-not-wild"), [
        ("ones-not-wild palifico on a wild table: the opener may bid ones",
         None, (2, 1), 10, True, 1, V),
        ("ones-not-wild palifico on a wild table: 3s -> more ones",
         (2, 3), (3, 1), 10, True, 4, V),
        ("ones-not-wild palifico on a wild table: 3s -> as many ones",
         (2, 3), (2, 1), 10, True, 4, BID_NOT_HIGHER),
        ("ones-not-wild palifico on a wild table: ones -> as many 4s, four dice (face not fixed)",
         (2, 1), (2, 4), 10, True, 4, V),
        ("ones-not-wild on a wild table outside palifico: ones still refused",
         (2, 3), (3, 1), 10, False, 4, FACE_NOT_ALLOWED),
    ]),
    (Rules("natural", "free", 3, False, palifico_kind="ones-not-wild"), [
        ("ones-not-wild palifico, natural table: three dice may change the face",
         (2, 4), (2, 6), 8, True, 3, V),
        ("ones-not-wild palifico, natural table: lower quantity of another face",
         (2, 4), (1, 6), 8, True, 3, BID_NOT_HIGHER),
    ]),
    (FF_ACES, [
        ("face-fixed palifico, aces table: the opener may not bid ones (aces rules stand)",
         None, (1, 1), 12, True, 1, FACE_NOT_ALLOWED),
        ("face-fixed palifico, aces table: the opener bids 5s",
         None, (2, 5), 12, True, 1, V),
        ("face-fixed palifico: more of the fixed face",
         (3, 4), (4, 4), 12, True, 3, V),
        ("face-fixed palifico: repeating the standing bid",
         (3, 4), (3, 4), 12, True, 3, BID_NOT_HIGHER),
        ("face-fixed palifico: same quantity higher face is a face change",
         (3, 4), (3, 5), 12, True, 3, FACE_FIXED),
        ("face-fixed palifico: a valid aces conversion is still a face change",
         (3, 4), (2, 1), 12, True, 3, FACE_FIXED),
        ("face-fixed palifico: a one-die bidder at a fixed table may not change the face",
         (3, 4), (3, 5), 12, True, 1, FACE_FIXED),
        ("face-fixed palifico: too few ones fails R2 step 5 first, its reason wins",
         (3, 4), (1, 1), 12, True, 3, BID_NOT_HIGHER),
        ("face-fixed palifico: lower quantity of another face fails step 5 first",
         (3, 4), (2, 6), 12, True, 3, BID_NOT_HIGHER),
        ("face-fixed palifico: N of the fixed face",
         (3, 4), (12, 4), 12, True, 2, V),
        ("face-fixed palifico, check order: too high before the face",
         (3, 4), (13, 5), 12, True, 2, QUANTITY_TOO_HIGH),
    ]),
    (FF_ACES_FREE, [
        ("face-fixed palifico free: one die may convert to ones by the aces rule",
         (3, 4), (2, 1), 12, True, 1, V),
        ("face-fixed palifico free: one die, too few ones",
         (3, 4), (1, 1), 12, True, 1, BID_NOT_HIGHER),
        ("face-fixed palifico free: one die, same quantity higher face",
         (3, 4), (3, 5), 12, True, 1, V),
        ("face-fixed palifico free: one die, same quantity lower face",
         (3, 4), (3, 3), 12, True, 1, BID_NOT_HIGHER),
        ("face-fixed palifico free: two dice may not convert",
         (3, 4), (2, 1), 12, True, 2, FACE_FIXED),
        ("face-fixed palifico free: after a conversion to ones, two dice raise the ones",
         (2, 1), (3, 1), 12, True, 2, V),
        ("face-fixed palifico free: the standing face (ones) is fixed, not the opening face",
         (2, 1), (5, 4), 12, True, 2, FACE_FIXED),
        ("face-fixed palifico free: leaving ones short of 2q+1 fails step 5 first",
         (2, 1), (4, 4), 12, True, 2, BID_NOT_HIGHER),
        ("face-fixed palifico free: one die leaves ones with 2q+1",
         (2, 1), (5, 4), 12, True, 1, V),
        ("face-fixed palifico free: one die leaving ones with only 2q",
         (2, 1), (4, 4), 12, True, 1, BID_NOT_HIGHER),
    ]),
    (Rules("wild", "free", 5, False, palifico_kind="face-fixed"), [
        ("face-fixed palifico, wild table: ones can never be bid, not even to open",
         None, (1, 1), 14, True, 1, FACE_NOT_ALLOWED),
        ("face-fixed palifico, wild table: one die, ones refused as a raise",
         (2, 3), (3, 1), 14, True, 1, FACE_NOT_ALLOWED),
        ("face-fixed palifico, wild table: one die, same quantity higher face",
         (2, 3), (2, 5), 14, True, 1, V),
        ("face-fixed palifico, wild table: two dice, same quantity higher face",
         (2, 3), (2, 5), 14, True, 2, FACE_FIXED),
        ("face-fixed palifico, wild table: two dice, more of the fixed face",
         (2, 3), (3, 3), 14, True, 2, V),
        ("face-fixed palifico, wild table: two dice, lower quantity of another face",
         (2, 3), (1, 6), 14, True, 2, BID_NOT_HIGHER),
    ]),
    (Rules("natural", "fixed", 4, False, palifico_kind="face-fixed"), [
        ("face-fixed palifico, natural table: the opener may bid ones",
         None, (1, 1), 9, True, 1, V),
        ("face-fixed palifico, natural table: more ones",
         (1, 1), (2, 1), 9, True, 3, V),
        ("face-fixed palifico, natural table: ones -> 2s is a face change",
         (1, 1), (1, 2), 9, True, 3, FACE_FIXED),
        ("face-fixed palifico, natural table: repeating ones",
         (1, 1), (1, 1), 9, True, 3, BID_NOT_HIGHER),
    ]),
]
# fmt: on


SysBid = tuple[str, Bid | None, Bid, int, bool, int]  # a BidCase without the expectation


def systematic_bids() -> list[tuple[Rules, list[SysBid]]]:
    """Boundary sweeps; their expected results come from check_bid."""

    def sweep(tag: str, previous: Bid, n: int, pal: bool, bd: int) -> list[SysBid]:
        """Every bid up to one above the dice in play, after a standing bid that has no raise."""
        pq, pf = previous
        title = f"no legal raise left, {tag}: after {pq}x{pf} with {n} dice in play"
        return [
            (f"{title}, {q}x{f}", previous, (q, f), n, pal, bd)
            for q in range(1, n + 2)
            for f in range(1, 7)
        ]

    out: list[tuple[Rules, list[SysBid]]] = [
        (CLASSIC, sweep("wild", (3, 6), 3, False, 1)),
        (Rules("natural", "off", 5, False), sweep("natural", (3, 6), 3, False, 1)),
        (PERUDO, sweep("aces", (3, 1), 3, False, 1)),
        (PERUDO, sweep("palifico fixed", (3, 4), 3, True, 1)),
        (Rules("wild", "free", 5, False), sweep("palifico free, one die", (3, 6), 3, True, 1)),
    ]

    # Aces conversion boundaries on a full six-seat table: ceil(q/2) into ones, 2q+1 out.
    n = 30
    cases: list[SysBid] = []
    for pq in range(1, 13):
        pf = 2 + (pq - 1) % 5
        need = ceil_half(pq)
        title = f"aces conversion to ones: {pq}x{pf} needs ceil({pq}/2)={need}"
        if need > 1:
            cases.append((f"{title}, {need - 1} is short", (pq, pf), (need - 1, 1), n, False, 5))
        cases.append((f"{title}, {need} is enough", (pq, pf), (need, 1), n, False, 5))
    for pq in range(1, 16):
        f = 2 + (pq - 1) % 5
        need = 2 * pq + 1
        title = f"aces leaving ones: {pq}x1 needs 2x{pq}+1={need} ({n} dice in play)"
        cases.append((f"{title}, {2 * pq}x{f} is short", (pq, 1), (2 * pq, f), n, False, 5))
        cases.append((f"{title}, {need}x{f}", (pq, 1), (need, f), n, False, 5))
    out.append((Rules("aces", "off", 5, False), cases))

    # Palifico kinds: every bid up to one above the dice in play after a mid-range standing
    # bid, for each ones mode, by a one-die and a three-die bidder at a "free" table (where
    # the bidder's dice matter), and the opening bids.
    def grid(tag: str, previous: Bid | None, n: int, bd: int) -> list[SysBid]:
        after = "opening" if previous is None else f"after {previous[0]}x{previous[1]}"
        title = f"{tag}: {after}, {n} dice in play, bidder holds {bd}"
        return [
            (f"{title}, {q}x{f}", previous, (q, f), n, True, bd)
            for q in range(1, n + 2)
            for f in range(1, 7)
        ]

    for kind in ("ones-not-wild", "face-fixed"):
        for ones in ("wild", "natural", "aces"):
            rules = Rules(ones, "free", 5, True, palifico_kind=kind)
            tag = f"palifico {kind}, {ones}, free"
            cases = grid(tag, None, 6, 1)
            for bd in (1, 3):
                cases += grid(tag, (2, 4), 6, bd)
            out.append((rules, cases))
    return out


def build_bids() -> dict[str, object]:
    groups: dict[Rules, list[dict[str, object]]] = {}

    def add(
        rules: Rules,
        comment: str,
        prev: Bid | None,
        bid: Bid,
        n: int,
        pal: bool,
        bd: int,
        reason: str | None,
    ) -> None:
        check_bid_case_plausible(rules, prev, n, pal, bd)
        groups.setdefault(rules, []).append(
            {
                "tc_id": 0,
                "comment": comment,
                "previous": None if prev is None else {"quantity": prev[0], "face": prev[1]},
                "bid": {"quantity": bid[0], "face": bid[1]},
                "dice_in_play": n,
                "palifico_round": pal,
                "bidder_dice": bd,
                "result": "valid" if reason is None else "invalid",
                "reason": reason,
            }
        )

    for rules, cases in HAND_BIDS + HAND_HOUSE_BIDS:
        for comment, prev, bid, n, pal, bd, expected in cases:
            computed = check_bid(rules, prev, bid, n, pal, bd)
            literal = None if expected == V else expected
            if computed != literal:
                raise AssertionError(
                    f"hand-written bid case disagrees with the reference: {comment!r} "
                    f"({rules}): literal {literal}, computed {computed}"
                )
            add(rules, comment, prev, bid, n, pal, bd, literal)
    for rules, sys_cases in systematic_bids():
        for comment, prev, bid, n, pal, bd in sys_cases:
            add(rules, comment, prev, bid, n, pal, bd, check_bid(rules, prev, bid, n, pal, bd))
    return envelope("rules_bids_v1", groups)


# =========================================================================================
# Showdown cases
# A hand-written case is (comment, hands, bid, bidder, caller, call, palifico_round,
# palifico_used, expected) with expected = (count, dice_after, next_starter, eliminated,
# palifico_next_round).
# =========================================================================================
H1 = [[1, 2, 3, 4, 5], [2, 2, 6, 6, 3], [4, 4, 1, 5, 6]]
H6 = [
    [2, 3, 4, 5, 6],
    [1, 1, 2, 2, 3],
    [6, 6, 6, 5, 4],
    [3, 3, 3, 1, 2],
    [5, 4, 2, 6, 1],
    [4, 4, 4, 4, 2],
]
HF = [[2, 2], [], [3, 4, 5], [1, 6, 6, 6], [], [5, 5, 1]]
C, X = "challenge", "exact"

Expected = tuple[int, list[int], int, list[int], bool]
# The house rule cases write every field: (count, dice_after, next_starter, elimination_order
# (the order the seats join the elimination list, R6), palifico_next_round, loser, winner,
# palifico_used_after).
HouseExpected = tuple[int, list[int], int, list[int], bool, int | None, int | None, list[int]]
ShowCase = tuple[
    str, list[list[int]], Bid, int, int, str, bool, list[int], Expected | HouseExpected
]

# fmt: off
HAND_SHOWDOWNS: list[tuple[Rules, list[ShowCase]]] = [
    (CLASSIC, [
        ("wild: five 2s = three 2s + two wild 1s, count equals the bid, challenger loses",
         H1, (5, 2), 0, 1, C, False, [],
         (5, [5, 4, 5], 1, [], False)),
        ("wild: six 2s against a count of 5, bidder loses and starts",
         H1, (6, 2), 0, 1, C, False, [],
         (5, [4, 5, 5], 0, [], False)),
        ("wild: bidder on the last seat, the caller is seat 0; bid under the count",
         H1, (4, 6), 2, 0, C, False, [],
         (5, [4, 5, 5], 0, [], False)),
        ("wild: three 1s count for 5s; bidder falls to one die but palifico is off",
         [[1, 1, 1], [5, 2], [3, 3, 4, 6]], (5, 5), 1, 2, C, False, [],
         (4, [3, 1, 4], 1, [], False)),
        ("bidder loses the last die and is eliminated, the next surviving seat starts",
         [[3], [2, 5], [6, 6, 1], []], (3, 4), 0, 1, C, False, [0, 3],
         (1, [0, 2, 3, 0], 1, [0], False)),
        ("caller on the last seat is eliminated, next starter wraps to seat 0",
         [[2, 3], [5, 5, 5], [4]], (2, 5), 1, 2, C, False, [2],
         (3, [2, 3, 0], 0, [2], False)),
        ("caller eliminated, the eliminated seat after it is skipped",
         [[4, 4], [], [6], [], [2, 2, 3]], (2, 4), 0, 2, C, False, [1, 2, 3],
         (2, [2, 0, 0, 0, 3], 4, [2], False)),
        ("six seats: caller on the last seat eliminated, wraps past eliminated seat 0 to seat 1",
         [[], [4, 4, 2], [], [5, 5], [], [3]], (1, 3), 3, 5, C, False, [0, 2, 4, 5],
         (1, [0, 3, 0, 2, 0, 0], 1, [5], False)),
        ("two seats: caller loses the last die, the game ends, the survivor is named next starter",
         [[5], [3, 3]], (2, 3), 1, 0, C, False, [0],
         (2, [0, 2], 1, [0], False)),
        ("six seats of five dice: bidder on seat 5, caller seat 0, bid stands",
         H6, (9, 4), 5, 0, C, False, [],
         (11, [4, 5, 5, 5, 5, 5], 0, [], False)),
        ("six seats of five dice: one above the count, bidder on seat 5 loses",
         H6, (12, 4), 5, 0, C, False, [],
         (11, [5, 5, 5, 5, 5, 4], 5, [], False)),
    ]),
    (Rules("natural", "off", 5, False), [
        ("natural: same hands and bid as the wild case, ones do not count",
         H1, (5, 2), 0, 1, C, False, [],
         (3, [4, 5, 5], 0, [], False)),
        ("natural: three 2s exactly, challenger loses",
         H1, (3, 2), 0, 1, C, False, [],
         (3, [5, 4, 5], 1, [], False)),
        ("natural: a bid on ones counts the ones",
         H1, (2, 1), 0, 1, C, False, [],
         (2, [5, 4, 5], 1, [], False)),
        ("natural: one more 1 than shown, bidder loses",
         H1, (3, 1), 0, 1, C, False, [],
         (2, [4, 5, 5], 0, [], False)),
        ("natural, five seats: bidder on the last seat, caller seat 0 falls to one (palifico off)",
         [[6, 6], [1, 6, 2], [], [6, 1, 1, 1], [6]], (4, 6), 4, 0, C, False, [2, 4],
         (5, [1, 3, 0, 4, 1], 0, [], False)),
    ]),
    (PERUDO, [
        ("aces: a bid on ones counts only ones, bid stands",
         H1, (2, 1), 0, 1, C, False, [],
         (2, [5, 4, 5], 1, [], False)),
        ("aces: three 1s against two, bidder loses",
         H1, (3, 1), 0, 1, C, False, [],
         (2, [4, 5, 5], 0, [], False)),
        ("aces: ones are wild for 4s",
         H1, (5, 4), 0, 1, C, False, [],
         (5, [5, 4, 5], 1, [], False)),
        ("exact call succeeds at the starting_dice cap: nobody's dice change, caller starts",
         H1, (5, 2), 0, 1, X, False, [],
         (5, [5, 5, 5], 1, [], False)),
        ("exact call succeeds below the cap: caller regains a die",
         [[1, 2, 3, 4, 5], [2, 2, 6, 6], [4, 4, 1, 5, 6]], (5, 2), 0, 1, X, False, [],
         (5, [5, 5, 5], 1, [], False)),
        ("exact call fails, count above the bid: caller loses and starts",
         H1, (4, 2), 0, 1, X, False, [],
         (5, [5, 4, 5], 1, [], False)),
        ("exact call fails, count below the bid: caller loses and starts",
         H1, (6, 2), 0, 1, X, False, [],
         (5, [5, 4, 5], 1, [], False)),
        ("exact call on ones succeeds, caller on the last seat regains a die",
         [[1, 2, 3, 4, 5], [2, 2, 6, 6, 3], [4, 4, 1]], (2, 1), 1, 2, X, False, [],
         (2, [5, 5, 4], 2, [], False)),
        ("failed exact call eliminates the caller, the next surviving seat starts",
         [[2, 2], [3], [5, 5, 5], [1, 6]], (3, 3), 0, 1, X, False, [1],
         (2, [2, 0, 3, 2], 2, [1], False)),
        ("bidder falls to one die for the first time, three survive: palifico next round",
         [[2, 3], [4, 4, 5], [6, 6, 6, 1]], (4, 4), 0, 1, C, False, [],
         (3, [1, 3, 4], 0, [], True)),
        ("same, but the bidder already fell to one earlier (regained by exact): no second palifico",
         [[2, 3], [4, 4, 5], [6, 6, 6, 1]], (4, 4), 0, 1, C, False, [0],
         (3, [1, 3, 4], 0, [], False)),
        ("bidder falls to one die with only two players left: no palifico",
         [[2, 3], [4, 4, 6]], (4, 4), 0, 1, C, False, [],
         (2, [1, 3], 0, [], False)),
        ("failed exact call drops the caller to one die: palifico next round, caller opens",
         [[5, 5, 5], [2, 3], [6], [4, 4, 4, 4]], (2, 4), 0, 1, X, False, [2],
         (4, [3, 1, 1, 4], 1, [], True)),
        ("exact call by a one-die seat succeeds: back to two dice, no palifico",
         [[3], [2, 2, 3], [6, 6]], (2, 3), 2, 0, X, False, [0],
         (2, [2, 3, 2], 0, [], False)),
        ("palifico round: ones are not wild, three 4s exactly, challenger loses",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 4), 1, 2, C, True, [0],
         (3, [1, 3, 2], 2, [], False)),
        ("palifico round: four 4s, ones not counted, bidder loses",
         [[1], [1, 4, 4], [4, 1, 6]], (4, 4), 1, 2, C, True, [0],
         (3, [1, 2, 3], 1, [], False)),
        ("palifico round: a bid on ones counts the ones",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 1), 1, 2, C, True, [0],
         (3, [1, 3, 2], 2, [], False)),
        ("palifico round: exact call with ones not wild succeeds",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 4), 1, 2, X, True, [0],
         (3, [1, 3, 4], 2, [], False)),
        ("palifico round: the one-die opener loses and is out",
         [[5], [2, 2, 3], [3, 3, 1], [4, 4]], (2, 5), 0, 1, C, True, [0],
         (1, [0, 3, 3, 2], 1, [0], False)),
        ("palifico round: another seat falls to one for the first time, another palifico follows",
         [[2], [3, 3], [4, 1, 5], [6, 6, 6]], (3, 3), 1, 2, C, True, [0],
         (2, [1, 1, 3, 3], 1, [], True)),
    ]),
    (Rules("wild", "free", 5, True), [
        ("six seats, two out: bidder on seat 5, caller seat 0, bid fails",
         HF, (6, 6), 5, 0, C, False, [1, 4],
         (5, [2, 0, 3, 4, 0, 2], 5, [], False)),
        ("six seats: caller seat 0 falls to one die, four survive: palifico",
         HF, (4, 5), 5, 0, C, False, [1, 4],
         (5, [1, 0, 3, 4, 0, 3], 0, [], True)),
        ("six seats: exact call by seat 0 succeeds, two dice -> three",
         HF, (5, 5), 5, 0, X, False, [1, 4],
         (5, [3, 0, 3, 4, 0, 3], 0, [], False)),
        ("failed exact call by a one-die caller: out, next seat starts",
         [[4], [2, 3, 3], [5, 5, 5]], (2, 5), 2, 0, X, False, [0],
         (3, [0, 3, 3], 1, [0], False)),
        ("palifico round (free): 6s counted without ones, bid stands",
         [[6], [1, 1, 6], [6, 2, 2, 1]], (3, 6), 0, 1, C, True, [0],
         (3, [1, 2, 4], 1, [], False)),
        ("palifico round: failed exact drops the caller to one die, palifico again",
         [[6], [1, 1], [6, 2, 2, 1]], (3, 6), 0, 1, X, True, [0],
         (2, [1, 1, 4], 1, [], True)),
        ("two players: the caller falls to one die, no palifico with two left",
         [[1, 1], [2, 5]], (3, 5), 1, 0, C, False, [],
         (3, [1, 2], 0, [], False)),
        ("two players: exact call by seat 0 succeeds, regains a die",
         [[3], [3, 1]], (3, 3), 1, 0, X, False, [0],
         (3, [2, 2], 0, [], False)),
    ]),
    (Rules("wild", "off", 1, True), [
        ("one starting die: caller loses the only die, next surviving seat starts",
         [[3], [1], [6], [2]], (2, 3), 0, 1, C, False, [],
         (2, [1, 0, 1, 1], 2, [1], False)),
        ("one starting die: exact call succeeds at the cap, nobody changes",
         [[3], [1], [6], [2]], (2, 3), 0, 1, X, False, [],
         (2, [1, 1, 1, 1], 1, [], False)),
        ("one starting die: exact call fails, caller out",
         [[3], [1], [6], [2]], (1, 6), 0, 1, X, False, [],
         (2, [1, 0, 1, 1], 2, [1], False)),
        ("one starting die: bidder on the last seat out, starter wraps to seat 0",
         [[2], [], [5], [4]], (2, 4), 3, 0, C, False, [],
         (1, [1, 0, 1, 0], 0, [3], False)),
        ("one starting die, two players: caller out, game over",
         [[1], [6]], (2, 6), 0, 1, C, False, [],
         (2, [1, 0], 0, [1], False)),
    ]),
    (Rules("aces", "fixed", 1, True), [
        ("one starting die, palifico fixed but never a palifico round: challenger out",
         [[1], [4], [4]], (3, 4), 1, 2, C, False, [],
         (3, [1, 1, 0], 0, [2], False)),
        ("one starting die: exact call on ones at the cap succeeds, nobody changes",
         [[1], [4], [4]], (1, 1), 1, 2, X, False, [],
         (1, [1, 1, 1], 2, [], False)),
        ("one starting die: exact call on ones fails, caller out, wraps to seat 0",
         [[1], [4], [4]], (2, 1), 1, 2, X, False, [],
         (1, [1, 1, 0], 0, [2], False)),
    ]),
    (Rules("natural", "fixed", 2, False), [
        ("two starting dice: bidder falls to one, five survive: palifico",
         [[1, 2], [2, 3], [6, 6], [1, 1], [5, 2]], (4, 2), 2, 3, C, False, [],
         (3, [2, 2, 1, 2, 2], 2, [], True)),
        ("two starting dice: challenger falls to one: palifico, challenger opens",
         [[1, 2], [2, 3], [6, 6], [1, 1], [5, 2]], (3, 2), 2, 3, C, False, [],
         (3, [2, 2, 2, 1, 2], 3, [], True)),
        ("natural: three 1s counted as ones, challenger falls to one: palifico",
         [[1, 2], [2, 3], [6, 6], [1, 1], [5, 2]], (3, 1), 2, 3, C, False, [],
         (3, [2, 2, 2, 1, 2], 3, [], True)),
        ("caller seat 0 (after the last seat) already used its palifico, loses its last die",
         [[4], [2, 3], [6, 6], [1, 1], [5]], (2, 6), 4, 0, C, False, [0, 4],
         (2, [0, 2, 2, 2, 1], 1, [0], False)),
        ("palifico round: challenger falls to one for the first time: palifico again",
         [[4], [2, 3], [6, 6], [4, 4], [5, 4]], (4, 4), 0, 1, C, True, [0],
         (4, [1, 1, 2, 2, 2], 1, [], True)),
        ("three survivors: bidder falls to one, three still survive: palifico",
         [[], [3, 3], [], [2, 2], [1]], (3, 3), 1, 3, C, False, [0, 2, 4],
         (2, [0, 1, 0, 2, 1], 1, [], True)),
        ("two survivors: bidder falls to one, no palifico; caller wrapped past seats 4 and 0",
         [[], [3, 3], [], [2, 2], []], (3, 2), 3, 1, C, False, [0, 2, 4],
         (2, [0, 2, 0, 1, 0], 3, [], False)),
    ]),
    (Rules("aces", "free", 3, True), [
        ("palifico round: exact call on 2s, ones not wild, succeeds",
         [[2], [2, 1, 3], [5, 2]], (3, 2), 2, 0, X, True, [0],
         (3, [2, 3, 2], 0, [], False)),
        ("same hands outside palifico: the 1 is wild, the exact call fails and eliminates",
         [[2], [2, 1, 3], [5, 2]], (3, 2), 2, 0, X, False, [0],
         (4, [0, 3, 2], 1, [0], False)),
        ("failed exact call on ones drops the caller to one: palifico",
         [[1, 2, 3], [4, 4], [6, 6, 5]], (3, 1), 0, 1, X, False, [],
         (1, [3, 1, 3], 1, [], True)),
        ("exact call on ones at the cap of three: nobody changes",
         [[1, 2, 3], [4, 4, 1], [6, 6, 5]], (2, 1), 0, 1, X, False, [],
         (2, [3, 3, 3], 1, [], False)),
    ]),
]
# fmt: on


# House rules at the showdown (RULES.md R4, R5, R6).
HD = [[3, 3], [2, 5], [6, 6, 1]]
HOL = [[3], [2, 2, 3], [5], [1, 6]]  # seats 0 and 2 hold their last die
NONE = None

# fmt: off
HAND_HOUSE_SHOWDOWNS: list[tuple[Rules, list[ShowCase]]] = [
    (Rules("wild", "off", 5, False, challenge_penalty="difference"), [
        ("difference: count equals the bid, the challenger still loses one die (max(1, 0))",
         H1, (5, 2), 0, 1, C, False, [],
         (5, [5, 4, 5], 1, [], False, 1, NONE, [])),
        ("difference: bid three above the count of 5, the bidder loses three dice",
         H1, (8, 2), 0, 1, C, False, [],
         (5, [2, 5, 5], 0, [], False, 0, NONE, [])),
        ("difference: bid three below the count of 5, the challenger loses three dice",
         H1, (2, 2), 0, 1, C, False, [],
         (5, [5, 2, 5], 1, [], False, 1, NONE, [])),
        ("difference: one above the count costs one die, as with challenge_penalty one",
         H1, (6, 2), 0, 1, C, False, [],
         (5, [4, 5, 5], 0, [], False, 0, NONE, [])),
        ("difference: a gap of four against two dice eliminates the bidder, seat 1 starts",
         HD, (5, 4), 0, 1, C, False, [],
         (1, [0, 2, 3], 1, [0], False, 0, NONE, [])),
        ("difference: the caller on the last seat loses its two dice, the starter wraps to 0",
         [[2, 3], [5, 5, 5], [4, 4]], (1, 5), 1, 2, C, False, [],
         (3, [2, 3, 0], 0, [2], False, 2, NONE, [])),
        ("difference, two seats: a gap of five takes both of the bidder's dice, seat 0 wins",
         [[4, 4, 4], [2, 6]], (5, 3), 0, 1, C, False, [],
         (0, [0, 2], 1, [0], False, 0, 1, [])),
        ("difference: the bidder drops from three dice to one (palifico off: nothing opens)",
         [[2, 3, 3], [4, 4, 5], [6, 6, 6, 1]], (5, 4), 0, 1, C, False, [],
         (3, [1, 3, 4], 0, [], False, 0, NONE, [0])),
    ]),
    (Rules("aces", "fixed", 5, True, challenge_penalty="difference"), [
        ("difference: a gap of two drops the bidder from three dice to one: palifico follows",
         [[2, 3, 3], [4, 4, 5], [6, 6, 6, 1]], (5, 4), 0, 1, C, False, [],
         (3, [1, 3, 4], 0, [], True, 0, NONE, [0])),
        ("difference: same, the bidder already had its palifico: none follows",
         [[2, 3, 3], [4, 4, 5], [6, 6, 6, 1]], (5, 4), 0, 1, C, False, [0],
         (3, [1, 3, 4], 0, [], False, 0, NONE, [0])),
        ("difference: an exact call missing by three still costs the caller one die",
         H1, (8, 2), 0, 1, X, False, [],
         (5, [5, 4, 5], 1, [], False, 1, NONE, [])),
        ("difference: an exact call missing by two from below still costs one die",
         H1, (3, 2), 0, 1, X, False, [],
         (5, [5, 4, 5], 1, [], False, 1, NONE, [])),
        ("difference: a right exact call regains one die (exact_reward regain)",
         [[1, 2, 3, 4, 5], [2, 2, 6, 6], [4, 4, 1, 5, 6]], (5, 2), 0, 1, X, False, [],
         (5, [5, 5, 5], 1, [], False, NONE, NONE, [])),
        ("difference in a palifico round: 4s counted without ones (3), the bidder loses two",
         [[1], [1, 4, 4], [4, 1, 6]], (5, 4), 1, 2, C, True, [0],
         (3, [1, 1, 3], 1, [], True, 1, NONE, [0, 1])),
        ("difference: the bidder on the last seat loses its three dice, seat 0 starts",
         [[2, 2], [3], [], [5, 5, 1]], (4, 6), 3, 0, C, False, [1, 2],
         (1, [2, 1, 0, 0], 0, [3], False, 3, NONE, [1, 2])),
    ]),
    (Rules("aces", "fixed", 5, True, exact_reward="others-lose"), [
        ("others-lose: a right exact call costs both other seats a die, the caller gains none",
         H1, (5, 2), 0, 1, X, False, [],
         (5, [4, 5, 4], 1, [], False, NONE, NONE, [])),
        ("others-lose: the caller below the cap still gains nothing",
         [[1, 2, 3, 4, 5], [2, 2, 6, 6], [4, 4, 1, 5, 6]], (5, 2), 0, 1, X, False, [],
         (5, [4, 4, 4], 1, [], False, NONE, NONE, [])),
        ("others-lose: two seats eliminated at once; seat 2 (first after the caller) ranks "
         "higher, so seat 0 joins the elimination list first; seat 3 falls to one unrecorded",
         HOL, (3, 3), 0, 1, X, False, [0, 2],
         (3, [0, 3, 0, 1], 1, [0, 2], False, NONE, NONE, [0, 2])),
        ("others-lose: the caller on the last seat starts next; seats 0 and 1 out, seat 0 "
         "(first after the caller) ranks higher, so seat 1 joins the list first",
         [[2], [4], [5, 5], [1, 5, 3]], (4, 5), 2, 3, X, False, [0, 1],
         (4, [0, 0, 1, 3], 3, [1, 0], False, NONE, NONE, [0, 1])),
        ("others-lose: every other seat loses its last die, the caller wins",
         [[6], [1], [6, 6]], (4, 6), 1, 2, X, False, [0, 1],
         (4, [0, 0, 2], 2, [1, 0], False, NONE, 2, [0, 1])),
        ("others-lose, two seats: the one other seat is the loser; it falls to one, used, "
         "but no palifico with two seats",
         [[4, 4], [2, 2, 3]], (2, 2), 0, 1, X, False, [],
         (2, [1, 3], 1, [], False, 0, NONE, [0])),
        ("others-lose: two seats fall to one for the first time, four survive: no palifico "
         "(several lost), and both keep their palifico for a later fall",
         [[2, 2], [3, 3, 3], [4, 1], [5, 5, 5]], (2, 4), 0, 1, X, False, [],
         (2, [1, 3, 1, 2], 1, [], False, NONE, NONE, [])),
        ("others-lose: a missed exact call costs the caller one die and can open palifico",
         [[5, 5, 5], [2, 3], [6], [4, 4, 4, 4]], (2, 4), 0, 1, X, False, [2],
         (4, [3, 1, 1, 4], 1, [], True, 1, NONE, [1, 2])),
        ("others-lose in a palifico round: 4s without wild ones, hit; the one-die seat 0 is out",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 4), 1, 2, X, True, [0],
         (3, [0, 2, 3], 2, [0], False, NONE, NONE, [0])),
        ("others-lose: a challenge is unchanged, the bidder loses one die",
         H1, (6, 2), 0, 1, C, False, [],
         (5, [4, 5, 5], 0, [], False, 0, NONE, [])),
    ]),
    (Rules("wild", "free", 5, True, exact_reward="others-lose", challenge_penalty="difference"), [
        ("others-lose + difference: a right exact call costs each other seat one die, "
         "not a difference",
         HF, (5, 5), 5, 0, X, False, [1, 4],
         (5, [2, 0, 2, 3, 0, 2], 0, [], False, NONE, NONE, [1, 4])),
        ("others-lose + difference: the bidder's three dice go on a gap of four, seat 0 starts",
         HF, (9, 6), 5, 0, C, False, [1, 4],
         (5, [2, 0, 3, 4, 0, 0], 0, [5], False, 5, NONE, [1, 4])),
        ("others-lose + difference: an exact miss by two costs the caller one die: palifico",
         HF, (7, 6), 5, 0, X, False, [1, 4],
         (5, [1, 0, 3, 4, 0, 3], 0, [], True, 0, NONE, [0, 1, 4])),
        ("others-lose + difference: a gap of three eliminates the two-die challenger seat 0",
         HF, (2, 6), 5, 0, C, False, [1, 4],
         (5, [0, 0, 3, 4, 0, 3], 2, [0], False, 0, NONE, [1, 4])),
        ("others-lose + difference: a gap of two drops the bidder to one: palifico",
         HF, (7, 6), 5, 0, C, False, [1, 4],
         (5, [2, 0, 3, 4, 0, 1], 5, [], True, 5, NONE, [1, 4, 5])),
        ("others-lose + difference: an exact hit takes two last dice; seat 5 first after "
         "the caller 4 ranks higher, seat 0 joins the list first",
         [[2], [3, 3], [], [3, 1, 4], [2, 2], [6]], (4, 3), 3, 4, X, False, [0, 2, 5],
         (4, [0, 1, 0, 2, 2, 0], 4, [0, 5], False, NONE, NONE, [0, 2, 5])),
    ]),
    (Rules("aces", "fixed", 5, True, palifico_kind="ones-not-wild"), [
        ("ones-not-wild palifico round: ones count only as ones, three 4s, challenger loses",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 4), 1, 2, C, True, [0],
         (3, [1, 3, 2], 2, [], False, 2, NONE, [0])),
        ("ones-not-wild palifico round: a bid on ones counts the three ones",
         [[1], [1, 4, 4], [4, 1, 6]], (3, 1), 1, 2, C, True, [0],
         (3, [1, 3, 2], 2, [], False, 2, NONE, [0])),
        ("ones-not-wild: outside a palifico round the ones are wild again (count 6)",
         [[1, 2], [1, 4, 4], [4, 1, 6]], (5, 4), 1, 2, C, False, [],
         (6, [2, 3, 2], 2, [], False, 2, NONE, [])),
    ]),
    (Rules("aces", "fixed", 5, True, palifico_kind="face-fixed"), [
        ("face-fixed palifico round: ones stay wild in the count (six 4s), challenger loses",
         [[1], [1, 4, 4], [4, 1, 6]], (5, 4), 1, 2, C, True, [0],
         (6, [1, 3, 2], 2, [], False, 2, NONE, [0])),
        ("face-fixed palifico round: exact call on six 4s with wild ones succeeds",
         [[1], [1, 4, 4], [4, 1, 6]], (6, 4), 1, 2, X, True, [0],
         (6, [1, 3, 4], 2, [], False, NONE, NONE, [0])),
        ("face-fixed palifico round: a bid on 4s above the wild count, bidder loses",
         [[1], [1, 4, 4], [4, 1, 6]], (7, 4), 1, 2, C, True, [0],
         (6, [1, 2, 3], 1, [], False, 1, NONE, [0])),
    ]),
    (Rules("natural", "fixed", 5, False, palifico_kind="face-fixed"), [
        ("face-fixed palifico round, natural table: ones are not wild anyway, bidder loses",
         [[1], [1, 4, 4], [4, 1, 6]], (4, 4), 1, 2, C, True, [0],
         (3, [1, 2, 3], 1, [], False, 1, NONE, [0])),
    ]),
    (Rules("wild", "free", 5, True, palifico_kind="ones-not-wild"), [
        ("ones-not-wild palifico round, wild table: three 6s exactly, caller regains a die",
         [[6], [1, 1, 6], [6, 2, 2, 1]], (3, 6), 0, 1, X, True, [0],
         (3, [1, 4, 4], 1, [], False, NONE, NONE, [0])),
    ]),
    (Rules("wild", "free", 5, True, palifico_kind="face-fixed"), [
        ("face-fixed palifico round, wild table: ones wild, six 6s, the exact call on 3 misses",
         [[6], [1, 1, 6], [6, 2, 2, 1]], (3, 6), 0, 1, X, True, [0],
         (6, [1, 2, 4], 1, [], False, 1, NONE, [0])),
        ("face-fixed palifico round, wild table: exact call on six 6s succeeds",
         [[6], [1, 1, 6], [6, 2, 2, 1]], (6, 6), 0, 1, X, True, [0],
         (6, [1, 4, 4], 1, [], False, NONE, NONE, [0])),
    ]),
]
# fmt: on


# A ShowCase without the expectation.
SysShow = tuple[str, list[list[int]], Bid, int, int, str, bool, list[int]]


def systematic_showdowns() -> list[tuple[Rules, list[SysShow]]]:
    """Count-boundary sweeps on dealt hands; expected results come from resolve()."""

    def sweep(
        rules: Rules,
        label: str,
        sizes: list[int],
        used: list[int],
        pal: bool,
        calls: list[str],
        offsets: tuple[int, ...] = (0, 1),
        bidder: int = 1,
    ) -> list[SysShow]:
        """For each face and call: bids at the count plus each offset (0: equal, 1: one
        above, negative: below), made by `bidder` and called by the next seat."""
        hands = deal(label, sizes)
        n = sum(sizes)
        caller = next_surviving(sizes, bidder)
        # Ones are bid on a wild table only in a palifico round that sets the ones mode aside.
        wild_ones = rules.ones == "wild" and not (pal and rules.palifico_kind != "face-fixed")
        faces = range(2, 7) if wild_ones else range(1, 7)
        where = "palifico round, " if pal else ""
        cases: list[SysShow] = []
        for call in calls:
            for f in faces:
                c = count_matching(rules, hands, f, pal)
                for off in offsets:
                    q = c + off
                    what = (
                        "count equals the bid"
                        if off == 0
                        else f"{abs(off)} {'above' if off > 0 else 'below'} the count"
                    )
                    if 1 <= q <= n:
                        comment = f"sweep {label}: {where}{call} on {q}x{f}, {what}"
                        cases.append((comment, hands, (q, f), bidder, caller, call, pal, used))
        return cases

    natural = Rules("natural", "off", 5, False)
    return [
        (CLASSIC, sweep(CLASSIC, "wild", [5, 3, 4, 2], [], False, [C])),
        (natural, sweep(natural, "natural", [5, 3, 4, 2], [], False, [C])),
        (PERUDO, sweep(PERUDO, "aces", [5, 3, 4, 2], [], False, [C, X])),
        (PERUDO, sweep(PERUDO, "aces", [1, 3, 4, 2], [0], True, [C])),
        *house_sweeps(sweep),
    ]


def house_sweeps(sweep: Callable[..., list[SysShow]]) -> list[tuple[Rules, list[SysShow]]]:
    """The sweeps of the house rules: every option value, alone and combined."""
    gaps = (-4, -2, -1, 0, 1, 2, 4)
    diff = Rules("wild", "off", 5, False, challenge_penalty="difference")
    diff_pal = Rules("aces", "fixed", 5, True, challenge_penalty="difference")
    others = Rules("aces", "fixed", 5, True, exact_reward="others-lose")
    both = Rules(
        "wild", "free", 5, True, exact_reward="others-lose", challenge_penalty="difference"
    )
    out = [
        (diff, sweep(diff, "difference", [5, 3, 4, 2], [], False, [C], gaps)),
        (diff_pal, sweep(diff_pal, "difference-aces", [3, 4, 2, 5], [], False, [C, X], gaps)),
        (diff_pal, sweep(diff_pal, "difference-pal", [1, 3, 4, 2], [0], True, [C], gaps)),
        # Seats 0 and 3 hold their last die: a hit by seat 2 takes both at once.
        (others, sweep(others, "others-lose", [1, 3, 2, 1], [0, 3], False, [X, C])),
        # Seats 0 and 1 hold their last die: out together they join the list as 1, then 0.
        (others, sweep(others, "others-lose-order", [1, 1, 3, 2], [0, 1], False, [X])),
        # The caller on the last seat (seat 1 bids at a three-seat table).
        (others, sweep(others, "others-lose-last", [1, 4, 2], [0], False, [X], bidder=1)),
        (others, sweep(others, "others-lose-pal", [1, 3, 2, 2], [0], True, [X])),
        (both, sweep(both, "others-lose-difference", [2, 1, 3, 1, 4], [1, 3], False, [C, X], gaps)),
    ]
    for kind in ("ones-not-wild", "face-fixed"):
        for ones, palifico in (("wild", "free"), ("natural", "fixed"), ("aces", "fixed")):
            rules = Rules(ones, palifico, 5, True, palifico_kind=kind)
            label = f"{kind}-{ones}"
            out.append((rules, sweep(rules, label, [1, 3, 4, 2], [0], True, [C, X])))
            out.append((rules, sweep(rules, f"{label}-open", [2, 3, 4, 2], [], False, [C])))
    return out


def literal_expectation(lit: Expected | HouseExpected) -> dict[str, object]:
    """The named fields of a hand-written expectation (five classic or eight house fields)."""
    if len(lit) == 5:
        return {
            "count": lit[0],
            "dice_after": lit[1],
            "next_starter": lit[2],
            "eliminated": lit[3],
            "palifico_next_round": lit[4],
        }
    assert len(lit) == 8, lit
    return {
        "count": lit[0],
        "dice_after": lit[1],
        "next_starter": lit[2],
        "eliminated": sorted(lit[3]),
        "palifico_next_round": lit[4],
        "loser": lit[5],
        "elimination_order": lit[3],
        "winner": lit[6],
        "palifico_used_after": lit[7],
    }


def build_showdowns() -> dict[str, object]:
    groups: dict[Rules, list[dict[str, object]]] = {}

    def add(
        rules: Rules,
        comment: str,
        hands: list[list[int]],
        bid: Bid,
        bidder: int,
        caller: int,
        call: str,
        pal: bool,
        used: list[int],
        expected: dict[str, object],
    ) -> None:
        check_showdown_case_plausible(rules, hands, bid, bidder, caller, call, pal, used)
        check_result_plausible(rules, hands, call, expected)
        groups.setdefault(rules, []).append(
            {
                "tc_id": 0,
                "comment": comment,
                "hands": [list(h) for h in hands],
                "bid": {"quantity": bid[0], "face": bid[1]},
                "bidder": bidder,
                "caller": caller,
                "call": call,
                "palifico_round": pal,
                "starting_dice": rules.starting_dice,
                "palifico_used": list(used),
                "result": "valid",
                "reason": None,
                "expected": expected,
            }
        )

    for rules, cases in HAND_SHOWDOWNS + HAND_HOUSE_SHOWDOWNS:
        for comment, hands, bid, bidder, caller, call, pal, used, lit in cases:
            literal = literal_expectation(lit)
            computed = resolve(rules, hands, bid, bidder, caller, call, pal, used)
            if any(computed[key] != value for key, value in literal.items()):
                raise AssertionError(
                    f"hand-written showdown case disagrees with the reference: {comment!r} "
                    f"({rules}): literal {literal}, computed {computed}"
                )
            # The classic cases (five literal fields) have one loser at most, so their loser,
            # elimination order, winner and used seats follow from those fields; the house
            # rule cases write all of them.
            add(rules, comment, hands, bid, bidder, caller, call, pal, used, computed)
    for rules, sys_cases in systematic_showdowns():
        for comment, hands, bid, bidder, caller, call, pal, used in sys_cases:
            expected = resolve(rules, hands, bid, bidder, caller, call, pal, used)
            add(rules, comment, hands, bid, bidder, caller, call, pal, used, expected)
    return envelope("rules_showdown_v1", groups)


# --- output ------------------------------------------------------------------------------
def envelope(schema: str, groups: dict[Rules, list[dict[str, object]]]) -> dict[str, object]:
    """Number the cases 1..N across the file, in group order (first appearance), then case order."""
    tc_id = 0
    test_groups = []
    for rules, tests in groups.items():
        for test in tests:
            tc_id += 1
            test["tc_id"] = tc_id
        test_groups.append({"rules": rules.to_json(), "tests": tests})
    return {"schema": schema, "number_of_tests": tc_id, "test_groups": test_groups}


def encode(obj: object) -> bytes:
    return (json.dumps(obj, indent=1, sort_keys=False, ensure_ascii=False) + "\n").encode("utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--out",
        type=Path,
        default=Path(__file__).resolve().parent / "vectors" / "v1",
        help="output folder (default: vectors/v1 next to this script)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="write nothing; exit 1 if the files in --out differ from what would be written",
    )
    args = parser.parse_args(argv)
    outputs = {
        "rules_bids.json": encode(build_bids()),
        "rules_showdown.json": encode(build_showdowns()),
    }
    stale = []
    for name, data in outputs.items():
        path = args.out / name
        if args.check:
            if not path.is_file() or path.read_bytes() != data:
                stale.append(name)
        else:
            args.out.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if stale:
        print(
            f"stale vectors in {args.out}: {', '.join(stale)}; re-run {Path(__file__).name}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
