"""What one seat may know: its own live hand and the public record, nothing else.

Bots and the UI receive a SeatView, never a GameState with hands in it. The type holds no
field for another seat's live hand, so peeking is impossible rather than impolite. Hands of
finished rounds are public and appear in `results`.
"""

from __future__ import annotations

from dataclasses import dataclass

from .bids import (
    Bid,
    bid_problem,
    count_matching,
    legal_bids,
    lowest_bids_per_face,
    ones_are_wild,
)
from .game import Call, GameState, Phase, PlacedBid, RoundResult
from .rules import Rules


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatView:
    seat: int | None  #: None for a spectator
    rules: Rules
    hand: tuple[int, ...]  #: this seat's live hand; () before the deal or for a spectator
    dice: tuple[int, ...]  #: dice held per seat
    round: int
    phase: Phase
    starter: int | None
    turn: int | None
    bids: tuple[PlacedBid, ...]  #: this round's bids so far
    call: Call | None = None  #: the call that ended bidding (showdown and after)
    caller: int | None = None
    palifico_round: bool
    results: tuple[RoundResult, ...]  #: every finished round, hands included
    ranking: tuple[int, ...]
    next_starter: int | None

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice)

    @property
    def unseen_dice(self) -> int:
        """Dice in play that this seat cannot see."""
        return self.dice_in_play - len(self.hand)

    @property
    def standing_bid(self) -> Bid | None:
        return self.bids[-1].bid if self.bids else None

    @property
    def standing_bidder(self) -> int | None:
        return self.bids[-1].seat if self.bids else None

    @property
    def my_turn(self) -> bool:
        return self.phase == Phase.BIDDING and self.seat is not None and self.turn == self.seat

    @property
    def wild_ones(self) -> bool:
        return ones_are_wild(self.rules, self.palifico_round)

    @property
    def survivors(self) -> tuple[int, ...]:
        return tuple(s for s, n in enumerate(self.dice) if n > 0)

    @property
    def can_challenge(self) -> bool:
        return self.my_turn and bool(self.bids)

    @property
    def can_exact(self) -> bool:
        return self.can_challenge and self.rules.exact_call

    @property
    def my_dice(self) -> int:
        return self.dice[self.seat] if self.seat is not None else 0

    def legal_bids(self) -> list[Bid]:
        """Every bid this seat could make now (empty when it is not its turn)."""
        if not self.my_turn:
            return []
        return legal_bids(
            self.rules,
            self.standing_bid,
            dice_in_play=self.dice_in_play,
            palifico_round=self.palifico_round,
            bidder_dice=self.my_dice,
        )

    def lowest_bids_per_face(self) -> dict[int, Bid]:
        if not self.my_turn:
            return {}
        return lowest_bids_per_face(
            self.rules,
            self.standing_bid,
            dice_in_play=self.dice_in_play,
            palifico_round=self.palifico_round,
            bidder_dice=self.my_dice,
        )

    def is_legal_bid(self, bid: Bid) -> bool:
        """Whether this seat may make `bid` now."""
        if not self.my_turn:
            return False
        return (
            bid_problem(
                self.rules,
                self.standing_bid,
                bid,
                dice_in_play=self.dice_in_play,
                palifico_round=self.palifico_round,
                bidder_dice=self.my_dice,
            )
            is None
        )

    def own_matching(self, face: int) -> int:
        """How many of this seat's dice count toward a bid on `face` this round."""
        return count_matching((self.hand,), face, wild_ones=self.wild_ones)


def seat_view(state: GameState, seat: int | None, hand: tuple[int, ...] = ()) -> SeatView:
    """The view of `seat` (None: a spectator) given its own live `hand`."""
    live = state.phase in (Phase.BIDDING, Phase.SHOWDOWN)
    return SeatView(
        seat=seat,
        rules=state.rules,
        hand=tuple(hand) if live and seat is not None else (),
        dice=state.dice,
        round=state.round,
        phase=state.phase,
        starter=state.starter,
        turn=state.turn,
        bids=state.bids,
        call=state.call,
        caller=state.caller,
        palifico_round=state.palifico_round,
        results=state.results,
        ranking=state.ranking,
        next_starter=state.next_starter,
    )
