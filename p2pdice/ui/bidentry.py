"""Bid entry: typed bids ("4 5", "four 5s", "4 x 5s") and stepping through legal bids only.

Pure: a `BidChoices` is built from what a SeatView says is legal (the lowest legal quantity
per face, and the dice in play); the keys move a cursor inside that set, so the entry can
never offer a bid the rules refuse. Legality for a fixed face is monotone in the quantity
(core.bids relies on the same property), so each face's legal bids are one range.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.bids import Bid

NUMBER_WORDS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
    "twenty": 20,
    "thirty": 30,
}
_UNITS = {k: v for k, v in NUMBER_WORDS.items() if v < 10}

FACE_WORDS = {
    "one": 1,
    "ones": 1,
    "ace": 1,
    "aces": 1,
    "two": 2,
    "twos": 2,
    "three": 3,
    "threes": 3,
    "four": 4,
    "fours": 4,
    "five": 5,
    "fives": 5,
    "six": 6,
    "sixes": 6,
}

_TOKEN = re.compile(r"\d+s?|[a-z]+")


class BidSyntaxError(ValueError):
    """Typed text that is not a bid; the message says what was expected."""


def _quantity(tokens: list[str]) -> tuple[int, list[str]]:
    first = tokens[0]
    if first.isdigit():
        return int(first), tokens[1:]
    if first not in NUMBER_WORDS:
        raise BidSyntaxError(f"{first!r} is not a number: type a quantity then a face, e.g. 4 5")
    value, rest = NUMBER_WORDS[first], tokens[1:]
    if value in (20, 30) and rest and rest[0] in _UNITS and len(rest) > 1:
        value, rest = value + _UNITS[rest[0]], rest[1:]  # "twenty two 5s"
    return value, rest


def _face(token: str) -> int:
    digits = token.rstrip("s")
    if token.isdigit() or (digits.isdigit() and token.endswith("s")):
        value = int(digits)
        if not 1 <= value <= 6:
            raise BidSyntaxError(f"a face is 1 to 6, not {value}")
        return value
    if token in FACE_WORDS:
        return FACE_WORDS[token]
    raise BidSyntaxError(f"{token!r} is not a face: use 1-6, e.g. 5 or 5s or fives")


def parse_bid(text: str) -> Bid:
    """'4 5', '4x5', '4 x 5s', 'four 5s', 'four fives', '4 of 5s', "4 5's" -> Bid(4, 5)."""
    cleaned = text.lower().replace("'", "").replace("×", " x ").replace("*", " x ")
    cleaned = re.sub(r"(\d)x", r"\1 x ", cleaned)
    tokens = [t for t in _TOKEN.findall(cleaned) if t not in ("x", "of", "times", "by")]
    if not tokens:
        raise BidSyntaxError("type a quantity then a face, e.g. 4 5 or four 5s")
    if len(tokens) == 1 and tokens[0].isdigit() and len(tokens[0]) == 2:
        tokens = [tokens[0][0], tokens[0][1]]  # "45" -> four 5s
    quantity, rest = _quantity(tokens)
    if not rest:
        raise BidSyntaxError(f"{quantity} of which face? e.g. {quantity} 5")
    if len(rest) > 1:
        raise BidSyntaxError("too many words: type a quantity then a face, e.g. 4 5")
    if quantity < 1:
        raise BidSyntaxError("the quantity is at least 1")
    return Bid(quantity, _face(rest[0]))


@dataclass(frozen=True, slots=True)
class BidChoices:
    """The legal bids of one turn: for each face, quantities from its lowest to `top`."""

    lowest: dict[int, int]  #: face -> lowest legal quantity (faces without a legal bid absent)
    top: int  #: dice in play: no bid may exceed it

    @classmethod
    def of(cls, lowest_bids: dict[int, Bid], dice_in_play: int) -> BidChoices:
        return cls({f: b.quantity for f, b in sorted(lowest_bids.items())}, dice_in_play)

    @property
    def empty(self) -> bool:
        return not self.lowest

    def cheapest(self) -> Bid | None:
        """The lowest legal bid by quantity, then face."""
        if self.empty:
            return None
        face = min(self.lowest, key=lambda f: (self.lowest[f], f))
        return Bid(self.lowest[face], face)

    def start(self, *, standing: Bid | None, preferred_face: int | None) -> Bid | None:
        """Where the cursor starts: the lowest raise on the standing face, or when opening
        the lowest bid on the face this seat holds most of."""
        face = standing.face if standing is not None else preferred_face
        if face is not None and face in self.lowest:
            return Bid(self.lowest[face], face)
        return self.cheapest()

    def clamp(self, bid: Bid | None) -> Bid | None:
        """The nearest legal bid to `bid` (same face when possible)."""
        if bid is None or self.empty:
            return self.cheapest()
        if bid.face not in self.lowest:
            wanted = bid.face
            faces = sorted(self.lowest, key=lambda f: (abs(f - wanted), f))
            bid = Bid(bid.quantity, faces[0])
        low = self.lowest[bid.face]
        return Bid(min(max(bid.quantity, low), self.top), bid.face)

    def step_quantity(self, bid: Bid | None, delta: int) -> Bid | None:
        bid = self.clamp(bid)
        if bid is None:
            return None
        return self.clamp(Bid(bid.quantity + delta, bid.face))

    def step_face(self, bid: Bid | None, delta: int) -> Bid | None:
        """The next face with a legal bid, keeping the quantity when it stays legal."""
        bid = self.clamp(bid)
        if bid is None:
            return None
        faces = sorted(self.lowest)
        index = faces.index(bid.face) + (1 if delta > 0 else -1)
        if not 0 <= index < len(faces):
            return bid
        return self.clamp(Bid(bid.quantity, faces[index]))
