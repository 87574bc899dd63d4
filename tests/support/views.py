"""Positions for bot tests: a seat's view in the middle of a round, built from its parts."""

from __future__ import annotations

from p2pdice.core.game import Phase, PlacedBid
from p2pdice.core.rules import Rules
from p2pdice.core.view import SeatView


def bidding_view(
    rules: Rules,
    hand: tuple[int, ...],
    dice: tuple[int, ...],
    bids: tuple[PlacedBid, ...] = (),
    *,
    seat: int = 0,
    round_number: int = 1,
) -> SeatView:
    """`seat` to move with `hand`, after `bids` this round, before any reveal of the game."""
    return SeatView(
        seat=seat,
        rules=rules,
        hand=hand,
        dice=dice,
        round=round_number,
        phase=Phase.BIDDING,
        starter=bids[0].seat if bids else seat,
        turn=seat,
        bids=bids,
        palifico_round=False,
        results=(),
        ranking=(),
        next_starter=None,
    )
