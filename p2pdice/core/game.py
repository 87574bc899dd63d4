"""The rules engine: an immutable game state and `apply(state, event) -> state`.

Theory of operation
-------------------
A game is a sequence of rounds. Each round moves through four phases:

    DEALING --Deal--> BIDDING --Challenge/ExactCall--> SHOWDOWN --Reveal--> ROUND_OVER
       ^                                                                      |
       +---------------------------- StartNextRound --------------------------+

DEALING exists because in p2pdice nobody knows the hands when a round begins: they come out
of the fairness protocol (commit, contribute, derive) and, for the other seats, are only
learnt at the reveal. So hands are *inputs* to the engine, like OpenSpiel's chance outcomes:
`Deal` says the hands now exist (and, when the first starter is random, who the protocol drew),
and `Reveal` hands the engine every opened hand so it can count. The engine has no randomness,
no clock and no I/O; it never holds a live hand.

`Forfeit` ends a called round whose outcome hangs on hands that were never opened: the
unopened seats are eliminated and the next round is a replay (RULES.md R4.1, R6). `Void` ends
a round that could not be dealt because a contribution never arrived: nobody loses anything
and the next round replays it (R4.2): only the host sees every contribution before the
others, so a missing one cannot be blamed on the seat it names.

Every event is checked before anything changes; an illegal one raises RuleError with a
stable reason code and the caller keeps its old state (states are frozen, so it cannot be
half-changed).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .bids import Bid, check_bid, count_matching, legal_bids, ones_are_wild
from .errors import LocalError, Reason, RuleError
from .frozen import replace
from .rules import ChallengePenalty, ExactReward, Palifico, Rules


class Phase(StrEnum):
    DEALING = "dealing"  #: the round is set up; hands do not exist yet, nobody may act
    BIDDING = "bidding"  #: hands exist; the seat whose turn it is bids or calls
    SHOWDOWN = "showdown"  #: a call was made; waiting for the hands to be revealed
    ROUND_OVER = "round_over"  #: the result is known; waiting for the next starter
    GAME_OVER = "game_over"  #: one seat has dice left


class Call(StrEnum):
    CHALLENGE = "challenge"  #: "Liar!": the standing bid is too high
    EXACT = "exact"  #: the standing bid is exactly right


class Outcome(StrEnum):
    BID_STANDS = "bid_stands"  #: challenge failed: the challenger loses a die
    BID_FAILS = "bid_fails"  #: challenge succeeded: the bidder loses a die
    EXACT_HIT = "exact_hit"  #: exact call right: the caller regains a die (up to the cap), or
    #: with `exact_reward` others-lose every other seat loses one
    EXACT_MISS = "exact_miss"  #: exact call wrong: the caller loses a die
    FORFEIT = "forfeit"  #: the round could not be finished; it is replayed (forfeited
    #: empty: a void, nobody lost anything)


# ---- events ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlaceBid:
    seat: int
    bid: Bid


@dataclass(frozen=True, slots=True)
class Challenge:
    seat: int


@dataclass(frozen=True, slots=True)
class ExactCall:
    seat: int


@dataclass(frozen=True, slots=True)
class Undo:
    seat: int


@dataclass(frozen=True, slots=True)
class StartNextRound:
    seat: int


@dataclass(frozen=True, slots=True)
class Deal:
    """The round's hands now exist. `starter` is the drawn seat when the starter is random."""

    starter: int | None = None


@dataclass(frozen=True, slots=True)
class Reveal:
    """Every surviving seat's hand, or None for a hand that could not be opened."""

    hands: tuple[tuple[int, ...] | None, ...]


@dataclass(frozen=True, slots=True)
class Forfeit:
    """Seats that forfeit at the SHOWDOWN: their hands were not opened and decide the call."""

    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Void:
    """The round could not be dealt (DEALING): it is replayed with nothing changed."""


Action = PlaceBid | Challenge | ExactCall | Undo | StartNextRound
Event = Action | Deal | Reveal | Forfeit | Void


# ---- records --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PlacedBid:
    seat: int
    bid: Bid


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundResult:
    """What a finished round showed and changed. Public once the round is over."""

    round: int
    palifico_round: bool
    starter: int | None  #: None when the round ended before its starter was drawn
    bids: tuple[PlacedBid, ...]
    call: Call | None
    caller: int | None
    #: per seat: None when not opened; () when out, and for every seat of a forfeited or
    #: voided round (no hand is shown then)
    hands: tuple[tuple[int, ...] | None, ...]
    count: int | None  #: matching dice among the opened hands; None when forfeited
    outcome: Outcome
    loser: int | None  #: the one seat that lost dice (None when none did, or several did)
    gainer: int | None  #: the seat that regained a die
    dice_before: tuple[int, ...]
    dice_after: tuple[int, ...]
    eliminated: tuple[int, ...]  #: seats knocked out by this round (sorted)
    forfeited: tuple[int, ...]
    next_starter: int | None  #: None when the next starter is drawn from shared randomness
    palifico_next: bool

    @property
    def bid(self) -> Bid | None:
        return self.bids[-1].bid if self.bids else None

    @property
    def bidder(self) -> int | None:
        return self.bids[-1].seat if self.bids else None

    @property
    def void(self) -> bool:
        """The round could not be dealt (a contribution never came): nobody forfeited or
        lost anything, and it is replayed."""
        return self.outcome == Outcome.FORFEIT and not self.forfeited


# ---- state ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class GameState:
    rules: Rules
    dice: tuple[int, ...]  #: dice held per seat (0 = out)
    round: int
    phase: Phase
    starter: int | None  #: who opens this round; None while it is still to be drawn
    turn: int | None  #: whose turn it is during BIDDING
    bids: tuple[PlacedBid, ...]
    call: Call | None = None
    caller: int | None = None
    palifico_round: bool = False
    fallen_to_one: frozenset[int] = frozenset()  #: seats that have used their palifico
    out: tuple[int, ...] = ()  #: elimination list: worst first, latest normal elimination last
    results: tuple[RoundResult, ...] = ()

    # -- derived, public facts --
    @property
    def survivors(self) -> tuple[int, ...]:
        return tuple(s for s, n in enumerate(self.dice) if n > 0)

    @property
    def dice_in_play(self) -> int:
        return sum(self.dice)

    @property
    def standing_bid(self) -> Bid | None:
        return self.bids[-1].bid if self.bids else None

    @property
    def standing_bidder(self) -> int | None:
        return self.bids[-1].seat if self.bids else None

    @property
    def last_result(self) -> RoundResult | None:
        return self.results[-1] if self.results else None

    @property
    def next_starter(self) -> int | None:
        """Who may start the next round (ROUND_OVER), per RULES.md R4/R7."""
        if self.phase != Phase.ROUND_OVER or self.last_result is None:
            return None
        chosen = self.last_result.next_starter
        return chosen if chosen is not None else self.survivors[0]

    @property
    def ranking(self) -> tuple[int, ...]:
        """Survivors first (one when the game is over), then the eliminated, best first."""
        return self.survivors + tuple(reversed(self.out))

    @property
    def winner(self) -> int | None:
        return self.survivors[0] if self.phase == Phase.GAME_OVER and self.survivors else None

    def next_surviving(self, seat: int) -> int:
        """The next surviving seat after `seat`, wrapping (the seat itself may be out)."""
        n = len(self.dice)
        for step in range(1, n + 1):
            candidate = (seat + step) % n
            if self.dice[candidate] > 0:
                return candidate
        raise LocalError(Reason.WRONG_PHASE, "no surviving seat")

    def seat_or_next(self, seat: int) -> int:
        return seat if self.dice[seat] > 0 else self.next_surviving(seat)


def new_game(rules: Rules) -> GameState:
    """Round 1, waiting for hands."""
    starter = rules.first_starter.seat
    return GameState(
        rules=rules,
        dice=(rules.starting_dice,) * rules.seats,
        round=1,
        phase=Phase.DEALING,
        starter=starter,
        turn=None,
        bids=(),
    )


# ---- transitions ----------------------------------------------------------------------------


def apply(state: GameState, event: Event) -> GameState:
    """The state after `event`, or RuleError (state unchanged) when it is not allowed."""
    handler = _HANDLERS.get(type(event))
    if handler is None:
        raise LocalError(Reason.UNKNOWN_TYPE, f"not an event: {event!r}")
    return handler(state, event)


def check(state: GameState, event: Event) -> Reason | None:
    """The reason `event` would be refused, or None when `apply` would accept it."""
    try:
        apply(state, event)
    except RuleError as err:
        return err.reason
    return None


def _require_seat(state: GameState, seat: int) -> None:
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(state.dice):
        raise RuleError(Reason.UNKNOWN_SEAT, f"seat {seat!r} is not a seat of this table")


def _require_phase(state: GameState, phase: Phase, what: str) -> None:
    if state.phase != phase:
        raise RuleError(Reason.WRONG_PHASE, f"{what} is not allowed during {state.phase}")


def _require_turn(state: GameState, seat: int, what: str) -> None:
    _require_seat(state, seat)
    _require_phase(state, Phase.BIDDING, what)
    if seat != state.turn:
        raise RuleError(Reason.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not {seat}'s")


def _place_bid(state: GameState, event: PlaceBid) -> GameState:
    _require_turn(state, event.seat, "a bid")
    check_bid(
        state.rules,
        state.standing_bid,
        event.bid,
        dice_in_play=state.dice_in_play,
        palifico_round=state.palifico_round,
        bidder_dice=state.dice[event.seat],
    )
    return replace(
        state,
        bids=(*state.bids, PlacedBid(event.seat, event.bid)),
        turn=state.next_surviving(event.seat),
    )


def _call(state: GameState, seat: int, call: Call) -> GameState:
    _require_turn(state, seat, f"{call}")
    if call == Call.EXACT and not state.rules.exact_call:
        raise RuleError(Reason.EXACT_CALL_DISABLED, "this table does not allow exact calls")
    if not state.bids:
        raise RuleError(Reason.NO_BID_TO_CHALLENGE, "the round has no bid yet")
    return replace(state, phase=Phase.SHOWDOWN, call=call, caller=seat, turn=None)


def _challenge(state: GameState, event: Challenge) -> GameState:
    return _call(state, event.seat, Call.CHALLENGE)


def _exact(state: GameState, event: ExactCall) -> GameState:
    return _call(state, event.seat, Call.EXACT)


def _undo(state: GameState, event: Undo) -> GameState:
    _require_seat(state, event.seat)
    _require_phase(state, Phase.BIDDING, "undo")
    if not state.rules.undo:
        raise RuleError(Reason.UNDO_DISABLED, "this table does not allow undo")
    if state.standing_bidder != event.seat:
        raise RuleError(
            Reason.NOTHING_TO_UNDO, "only the last bid can be taken back, by its bidder"
        )
    return replace(state, bids=state.bids[:-1], turn=event.seat)


def _deal(state: GameState, event: Deal) -> GameState:
    _require_phase(state, Phase.DEALING, "dealing")
    if state.starter is None:
        if event.starter is None or event.starter not in state.survivors:
            raise LocalError(Reason.BAD_EVENT, "this round's starter must be drawn and given")
        starter = event.starter
    else:
        if event.starter not in (None, state.starter):
            raise LocalError(Reason.BAD_EVENT, f"the starter is seat {state.starter}")
        starter = state.starter
    return replace(state, phase=Phase.BIDDING, starter=starter, turn=starter)


def outcome_decided(state: GameState, hands: tuple[tuple[int, ...] | None, ...]) -> bool:
    """Whether the opened hands fix the outcome whatever the missing ones hold (RULES.md R4.1):
    every count the missing dice allow gives the same outcome and the same dice lost."""
    bid = state.standing_bid
    if state.phase != Phase.SHOWDOWN or bid is None:
        return False
    wild = ones_are_wild(state.rules, state.palifico_round)
    known = count_matching((h for h in hands if h is not None), bid.face, wild_ones=wild)
    missing = sum(state.dice[s] for s, h in enumerate(hands) if h is None and state.dice[s] > 0)
    first = _resolve(state, known)
    return all(_resolve(state, c) == first for c in range(known + 1, known + missing + 1))


def _resolve(state: GameState, count: int) -> tuple[Outcome, tuple[int, ...], int | None]:
    """The outcome of the call on a full count, the dice each seat loses, and who regains one
    (RULES.md R4), under the table's exact reward and challenge penalty."""
    bid, bidder, caller = state.standing_bid, state.standing_bidder, state.caller
    assert bid is not None and bidder is not None and caller is not None  # SHOWDOWN invariant
    rules = state.rules
    lost = [0] * len(state.dice)
    if state.call == Call.CHALLENGE:
        stands = count >= bid.quantity
        loser = caller if stands else bidder
        owed = 1
        if rules.challenge_penalty == ChallengePenalty.DIFFERENCE:
            owed = max(1, abs(count - bid.quantity))
        lost[loser] = min(owed, state.dice[loser])
        return (Outcome.BID_STANDS if stands else Outcome.BID_FAILS), tuple(lost), None
    if count != bid.quantity:
        lost[caller] = 1
        return Outcome.EXACT_MISS, tuple(lost), None
    if rules.exact_reward == ExactReward.OTHERS_LOSE:
        for seat, held in enumerate(state.dice):
            if held > 0 and seat != caller:
                lost[seat] = 1
        return Outcome.EXACT_HIT, tuple(lost), None
    gainer = caller if state.dice[caller] < rules.starting_dice else None
    return Outcome.EXACT_HIT, tuple(lost), gainer


def _from_caller(state: GameState, seats: list[int]) -> list[int]:
    """`seats` in play order from the caller: the first seat after the caller first."""
    caller = state.caller
    assert caller is not None
    n = len(state.dice)
    return sorted(seats, key=lambda s: (s - caller) % n)


def _check_hands(state: GameState, hands: tuple[tuple[int, ...] | None, ...]) -> None:
    if len(hands) != len(state.dice):
        raise RuleError(Reason.BAD_HAND, f"expected {len(state.dice)} hands, got {len(hands)}")
    for seat, hand in enumerate(hands):
        if hand is None:
            if state.dice[seat] == 0:
                raise RuleError(
                    Reason.BAD_HAND, f"seat {seat} is out; its hand is empty, not missing"
                )
            continue
        if len(hand) != state.dice[seat] or any(d not in range(1, 7) for d in hand):
            raise RuleError(Reason.BAD_HAND, f"seat {seat} must show {state.dice[seat]} dice 1..6")


def _reveal(state: GameState, event: Reveal) -> GameState:
    _require_phase(state, Phase.SHOWDOWN, "a reveal")
    hands = tuple(None if h is None else tuple(h) for h in event.hands)
    _check_hands(state, hands)
    if not outcome_decided(state, hands):
        raise RuleError(Reason.OUTCOME_UNDECIDED, "missing hands could change the outcome")
    bid = state.standing_bid
    bidder = state.standing_bidder
    caller = state.caller
    assert bid is not None and bidder is not None and caller is not None  # SHOWDOWN invariant
    wild = ones_are_wild(state.rules, state.palifico_round)
    known = count_matching((h for h in hands if h is not None), bid.face, wild_ones=wild)
    # A decided round resolves alike on every possible count (R4.1); an exact call with
    # hands missing is decided only as a miss, which the opened count gives.
    outcome, lost, gainer = _resolve(state, known)
    dice = [held - lost[s] for s, held in enumerate(state.dice)]
    if gainer is not None:
        dice[gainer] += 1
    losers = [s for s in range(len(dice)) if lost[s] > 0]
    loser = losers[0] if len(losers) == 1 else None
    gone = [s for s in losers if dice[s] == 0]
    # Seats out together rank by play order from the caller: the seat that would have played
    # first ranks highest, so it is appended to the elimination list last (R6).
    out = (*state.out, *reversed(_from_caller(state, gone)))
    eliminated = tuple(sorted(gone))
    fallen = state.fallen_to_one
    palifico_next = False
    # Only a single loser's fall opens a palifico round: they start the next round (R5).
    one_die = loser is not None and dice[loser] == 1 and loser not in fallen
    if loser is not None and one_die and state.rules.starting_dice > 1:
        fallen = fallen | {loser}
        survivors_after = sum(1 for n in dice if n > 0)
        palifico_next = state.rules.palifico != Palifico.OFF and survivors_after > 2
    after = replace(state, dice=tuple(dice))
    starter_seat = loser if state.call == Call.CHALLENGE else caller
    assert starter_seat is not None
    game_over = len(after.survivors) == 1
    next_starter = after.seat_or_next(starter_seat)  # at game over: the sole survivor
    result = RoundResult(
        round=state.round,
        palifico_round=state.palifico_round,
        starter=state.starter,
        bids=state.bids,
        call=state.call,
        caller=caller,
        hands=tuple(h if state.dice[s] > 0 else () for s, h in enumerate(hands)),
        count=known,
        outcome=outcome,
        loser=loser,
        gainer=gainer,
        dice_before=state.dice,
        dice_after=tuple(dice),
        eliminated=eliminated,
        forfeited=(),
        next_starter=next_starter,
        palifico_next=palifico_next and not game_over,
    )
    return _finish_round(state, result, fallen=fallen, out=out)


def _void(state: GameState, event: Void) -> GameState:
    _require_phase(state, Phase.DEALING, "voiding a round that could not be dealt")
    result = RoundResult(
        round=state.round,
        palifico_round=state.palifico_round,
        starter=state.starter,
        bids=(),
        call=None,
        caller=None,
        hands=tuple(() for _ in state.dice),
        count=None,
        outcome=Outcome.FORFEIT,
        loser=None,
        gainer=None,
        dice_before=state.dice,
        dice_after=state.dice,
        eliminated=(),
        forfeited=(),
        # The replay is this round again: same starter (or still to be drawn), same palifico.
        next_starter=state.starter,
        palifico_next=state.palifico_round,
    )
    return _finish_round(state, result, fallen=state.fallen_to_one, out=state.out)


def _forfeit(state: GameState, event: Forfeit) -> GameState:
    if state.phase != Phase.SHOWDOWN:
        raise RuleError(Reason.WRONG_PHASE, f"a forfeit is not possible during {state.phase}")
    seats = tuple(sorted(set(event.seats)))
    if not seats:
        raise LocalError(Reason.BAD_EVENT, "a forfeit names at least one seat")
    for seat in seats:
        _require_seat(state, seat)
        if state.dice[seat] == 0:
            raise RuleError(Reason.UNKNOWN_SEAT, f"seat {seat} is already out")
    dice = tuple(0 if s in seats else n for s, n in enumerate(state.dice))
    # Forfeits rank below everyone already out; among simultaneous ones the lower seat ranks higher.
    out = (*sorted(seats, reverse=True), *state.out)
    after = replace(state, dice=dice)
    game_over = len(after.survivors) <= 1
    if state.starter is None or not after.survivors:
        next_starter = None
    else:
        next_starter = after.seat_or_next(state.starter)
    result = RoundResult(
        round=state.round,
        palifico_round=state.palifico_round,
        starter=state.starter,
        bids=state.bids,
        call=state.call,
        caller=state.caller,
        hands=tuple(() for _ in state.dice),
        count=None,
        outcome=Outcome.FORFEIT,
        loser=None,
        gainer=None,
        dice_before=state.dice,
        dice_after=dice,
        eliminated=seats,
        forfeited=seats,
        next_starter=next_starter,
        palifico_next=(
            state.palifico_round
            and not game_over
            and state.starter not in seats
            and len(after.survivors) > 2
        ),
    )
    return _finish_round(state, result, fallen=state.fallen_to_one, out=out)


def _finish_round(
    state: GameState, result: RoundResult, *, fallen: frozenset[int], out: tuple[int, ...]
) -> GameState:
    game_over = sum(1 for n in result.dice_after if n > 0) <= 1
    return replace(
        state,
        dice=result.dice_after,
        phase=Phase.GAME_OVER if game_over else Phase.ROUND_OVER,
        turn=None,
        fallen_to_one=fallen,
        out=out,
        results=(*state.results, result),
    )


def _start_next_round(state: GameState, event: StartNextRound) -> GameState:
    _require_seat(state, event.seat)
    _require_phase(state, Phase.ROUND_OVER, "starting the next round")
    if event.seat != state.next_starter:
        raise RuleError(Reason.NOT_YOUR_TURN, f"seat {state.next_starter} starts the next round")
    result = state.last_result
    assert result is not None
    return replace(
        state,
        round=state.round + 1,
        phase=Phase.DEALING,
        starter=result.next_starter,
        turn=None,
        bids=(),
        call=None,
        caller=None,
        palifico_round=result.palifico_next,
    )


_HANDLERS: dict[type, Callable[[GameState, Any], GameState]] = {
    PlaceBid: _place_bid,
    Challenge: _challenge,
    ExactCall: _exact,
    Undo: _undo,
    StartNextRound: _start_next_round,
    Deal: _deal,
    Reveal: _reveal,
    Forfeit: _forfeit,
    Void: _void,
}


def legal_bids_of(state: GameState, seat: int) -> list[Bid]:
    """Every bid `seat` may make over the standing bid (or open with), lowest first."""
    return legal_bids(
        state.rules,
        state.standing_bid,
        dice_in_play=state.dice_in_play,
        palifico_round=state.palifico_round,
        bidder_dice=state.dice[seat],
    )


def blind_action(state: GameState, seat: int) -> Action:
    """The move that needs no hand (RULES.md faults): challenge, or the lowest legal opening."""
    if state.bids:
        return Challenge(seat)
    return PlaceBid(seat, legal_bids_of(state, seat)[0])
