"""The coach: each decision one seat made in a finished game, beside what the strong bot
would have done in the same position, seen from that seat alone.

Theory of operation
-------------------
A decision is judged on what its maker could see at that moment: its own hand for the
round, every seat's dice count, this round's bids so far, and the rounds already finished
(whose hands were opened for everyone). Nothing else. So the review is built from finished
rounds (`RoundResult`s, which a transcript's result entries make, and which every client
holds once a round is over) in two steps that keep the other cups out of reach:

1. `split_round` cuts a finished round into its `PublicRound` (dice, bids, call: what the
   table saw while bidding; the type has no field for a hand) and the one hand of the seat
   under review.
2. `round_decisions` rebuilds the seat's view before each of its moves from the rounds
   before, that `PublicRound` and that hand only, and judges each move in it.

The chances are the exact ones from the dice alone (bots/odds.py, the judgement drill's);
"right" is the drill's verdict (bots/drill.py `judge`: no move of another kind beats the
chance by more than its margin); the alternative is `hard`'s preferred move in the view.
What a decision cost is read from the round's outcome, after the fact: the dice the seat
lost (or regained) by the call it made or by the bid that was called.

Bids taken back (undo) are not in a finished round's record and are not reviewed. A
finished round does not say who made each move: given the transcript's notes
(`movers_from_notes`), a move the host made for the seat (its timer ran out) or a CPU
standing in for it made is marked so; without them every move shows as the seat's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..core.bids import Bid
from ..core.describe import bid_words
from ..core.game import Call, GameState, Outcome, Phase, PlaceBid, PlacedBid, RoundResult
from ..core.messages import MessageType
from ..core.rules import Rules
from ..core.view import SeatView
from .drill import Answer, Position, advise, exactly_chance, figures, holds_chance, judge
from .hard import hard_policy, likeliest

YOU, HOST, STAND_IN = "you", "host", "stand-in"  #: who made a move of the seat's
#: The transcript notes of a seat's own bidding moves, and the one that takes a bid back.
_MOVES = frozenset({MessageType.BID, MessageType.CHALLENGE, MessageType.EXACT})
_UNDO = MessageType.UNDO


class NoteLike(Protocol):
    """A transcript note (core.table.Note, or the terminal client's copy of one)."""

    @property
    def kind(self) -> str: ...
    @property
    def round(self) -> int | None: ...
    @property
    def seat(self) -> int | None: ...
    @property
    def action(self) -> str | None: ...


def movers_from_notes(notes: Iterable[NoteLike]) -> dict[tuple[int, int], list[str]]:
    """Who made each move of each seat that stands in its round's record, in order, keyed
    by (round, seat): the seat itself, the host (a forced move) or a CPU standing in."""
    out: dict[tuple[int, int], list[str]] = {}
    standing_in: set[int] = set()
    for note in notes:
        seat, round_ = note.seat, note.round
        if seat is None:
            continue
        if note.kind == "stand_in":
            standing_in.add(seat)
        elif note.kind == "returned":
            standing_in.discard(seat)
        if round_ is None:
            continue
        moves = out.setdefault((round_, seat), [])
        if note.kind in _MOVES:
            moves.append(STAND_IN if seat in standing_in else YOU)
        elif note.kind == "forced" and note.action in _MOVES:
            moves.append(HOST)
        elif note.kind == _UNDO and moves:
            moves.pop()  # only the last bid can be taken back, by its bidder
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class PublicRound:
    """What the whole table saw of a round while it was bid: no hand of anyone's."""

    round: int
    palifico_round: bool
    starter: int | None
    dice_before: tuple[int, ...]
    bids: tuple[PlacedBid, ...]
    call: Call | None
    caller: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    """What a round did to the reviewed seat's dice, known only once it was over."""

    change: int  #: dice after minus dice before (negative: dice lost)
    caller: int | None
    bidder: int | None  #: the seat whose bid was called


def split_round(result: RoundResult, seat: int) -> tuple[PublicRound, tuple[int, ...] | None, Cost]:
    """A finished round as the seat under review knew it while bidding (the public record
    and its own hand, None when it was not opened) and what it cost the seat."""
    public = PublicRound(
        round=result.round,
        palifico_round=result.palifico_round,
        starter=result.starter,
        dice_before=result.dice_before,
        bids=result.bids,
        call=result.call,
        caller=result.caller,
    )
    # A round forfeited before its showdown records an empty hand per seat: never opened.
    hand = (result.hands[seat] or None) if seat < len(result.hands) else None
    cost = Cost(
        change=result.dice_after[seat] - result.dice_before[seat],
        caller=result.caller,
        bidder=result.bidder,
    )
    return public, hand, cost


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """One move of the reviewed seat, judged in its view at that moment."""

    round: int
    seat: int
    hand: tuple[int, ...]
    dice: tuple[int, ...]  #: dice held per seat during the round
    palifico_round: bool
    before: tuple[PlacedBid, ...]  #: the round's bids before the move
    kind: str  #: "raise" (a bid, opening ones included), "call" (Liar) or "exact"
    bid: Bid | None  #: the bid made, or the bid called
    chance: float  #: the move's chance of being right if settled now, from the dice alone
    right: bool | None  #: the drill's verdict (None for an opening bid: nothing to weigh)
    reason: str
    #: The move with the best chance from the dice alone (a call, or the raise most likely
    #: to hold; none for an opening bid): the drill's yardstick.
    best_kind: str | None
    best_bid: Bid | None
    best_chance: float | None
    hard_kind: str
    hard_bid: Bid | None
    hard_chance: float  #: the chance of hard's move, measured the same way
    hard_why: str
    dice_change: int  #: the dice this move cost (negative) or won back, from the outcome
    by: str = YOU  #: who made it: YOU, HOST (its timer ran out) or STAND_IN (a CPU for it)

    @property
    def agrees(self) -> bool:
        return self.kind == self.hard_kind and (self.kind != "raise" or self.bid == self.hard_bid)

    @property
    def opening(self) -> bool:
        return not self.before

    def to_json(self) -> dict[str, Any]:
        def bid_json(bid: Bid | None) -> dict[str, int] | None:
            return None if bid is None else {"quantity": bid.quantity, "face": bid.face}

        return {
            "round": self.round,
            "seat": self.seat,
            "hand": list(self.hand),
            "dice": list(self.dice),
            "palifico_round": self.palifico_round,
            "bids_before": [{"seat": b.seat, **(bid_json(b.bid) or {})} for b in self.before],
            "kind": self.kind,
            "bid": bid_json(self.bid),
            "chance": self.chance,
            "right": self.right,
            "reason": self.reason,
            "best": None
            if self.best_kind is None
            else {
                "kind": self.best_kind,
                "bid": bid_json(self.best_bid),
                "chance": self.best_chance,
            },
            "hard": {
                "kind": self.hard_kind,
                "bid": bid_json(self.hard_bid),
                "chance": self.hard_chance,
                "why": self.hard_why,
            },
            "agrees": self.agrees,
            "dice_change": self.dice_change,
            "by": self.by,
        }


def view_at(
    rules: Rules,
    earlier: Sequence[RoundResult],
    public: PublicRound,
    bids_so_far: int,
    seat: int,
    hand: tuple[int, ...],
) -> SeatView:
    """The seat's view on its turn after the round's first `bids_so_far` bids: the same view
    the table gave it then (tests compare it with the engine's own seat_view)."""
    out: list[int] = []
    for result in earlier:
        out.extend(result.eliminated)
    survivors = tuple(s for s, n in enumerate(public.dice_before) if n > 0)
    return SeatView(
        seat=seat,
        rules=rules,
        hand=tuple(hand),
        dice=public.dice_before,
        round=public.round,
        phase=Phase.BIDDING,
        starter=public.starter,
        turn=seat,
        bids=public.bids[:bids_so_far],
        palifico_round=public.palifico_round,
        results=tuple(earlier),
        ranking=survivors + tuple(reversed(out)),
        next_starter=None,
    )


def chance_right(view: SeatView, kind: str, bid: Bid | None) -> float:
    """From the dice this view shows: the chance a Liar call ("call") or an Exact call on the
    standing bid wins, or that the bid `bid` ("raise") holds."""
    if kind == "raise":
        assert bid is not None
        return holds_chance(view, bid)
    standing = view.standing_bid
    assert standing is not None
    if kind == "call":
        return 1.0 - holds_chance(view, standing)
    return exactly_chance(view, standing)


def judge_move(view: SeatView, kind: str, bid: Bid | None) -> dict[str, Any]:
    """The figures of one move in `view`: its chance, the drill's verdict, hard's move."""
    standing = view.standing_bid
    chance = chance_right(view, kind, bid)
    # The drill's judgement and advice take a Position: given no cups, they can read none.
    position = Position(view, hands=())
    best_kind: str | None = None
    best_bid: Bid | None = None
    best_chance: float | None = None
    if standing is not None:
        fig = figures(view)
        best_kind = fig.best
        best_bid = fig.best_raise if best_kind == "raise" else standing
        best_chance = fig.options()[best_kind]
        verdict = judge(position, Answer(kind, bid if kind == "raise" else None))
        right: bool | None = verdict.right
        reason = verdict.reason
        advice = advise(position)
        hard_kind, hard_bid, hard_why = advice.action, advice.bid, advice.why
    else:
        right, reason = None, "an opening bid: nothing to call yet"
        action = likeliest(hard_policy(view))
        assert isinstance(action, PlaceBid)
        hard_kind, hard_bid = "raise", action.bid
        hard_why = f"hard opens with {bid_words(action.bid)}"
    hard_chance = chance_right(view, hard_kind, hard_bid)
    return {
        "chance": chance,
        "right": right,
        "reason": reason,
        "best_kind": best_kind,
        "best_bid": best_bid,
        "best_chance": best_chance,
        "hard_kind": hard_kind,
        "hard_bid": hard_bid,
        "hard_chance": hard_chance,
        "hard_why": hard_why,
    }


def round_decisions(
    rules: Rules,
    earlier: Sequence[RoundResult],
    public: PublicRound,
    seat: int,
    hand: tuple[int, ...],
    cost: Cost | None = None,
    movers: Sequence[str] = (),
) -> list[Decision]:
    """Every move `seat` made in the round, judged from its own hand and the public record.
    With `cost`, the dice the round cost are put against the move that decided them; with
    `movers` (one per move, from movers_from_notes), who made each."""
    moves: list[tuple[int, str, Bid | None]] = [
        (i, "raise", placed.bid) for i, placed in enumerate(public.bids) if placed.seat == seat
    ]
    if public.caller == seat and public.call is not None and public.bids:
        kind = "exact" if public.call == Call.EXACT else "call"
        moves.append((len(public.bids), kind, public.bids[-1].bid))
    who = list(movers) if len(movers) == len(moves) else [YOU] * len(moves)
    out: list[Decision] = []
    for (index, kind, bid), by in zip(moves, who, strict=True):
        view = view_at(rules, earlier, public, index, seat, hand)
        change = 0
        if cost is not None and cost.change:
            decided = (kind != "raise" and cost.caller == seat) or (
                kind == "raise" and index == len(public.bids) - 1 and cost.bidder == seat
            )
            change = cost.change if decided else 0
        out.append(
            Decision(
                round=public.round,
                seat=seat,
                hand=tuple(hand),
                dice=public.dice_before,
                palifico_round=public.palifico_round,
                before=view.bids,
                kind=kind,
                bid=bid,
                dice_change=change,
                by=by,
                **judge_move(view, kind, bid),
            )
        )
    return out


@dataclass(frozen=True, slots=True)
class RoundReview:
    round: int
    hand: tuple[int, ...] | None  #: None: the seat's hand was never opened (not reviewed)
    dice: tuple[int, ...]
    change: int  #: what the round did to the seat's dice
    outcome: Outcome
    decisions: tuple[Decision, ...]


def review_rounds(
    rules: Rules,
    results: Sequence[RoundResult],
    seat: int,
    movers: Mapping[tuple[int, int], Sequence[str]] | None = None,
) -> Iterator[RoundReview]:
    """Each finished round the seat was dealt into, with its decisions judged one by one
    (`movers`: who made each move, from movers_from_notes)."""
    for number, result in enumerate(results):
        if seat >= len(result.dice_before) or result.dice_before[seat] == 0:
            continue  # out of the game: nothing to review
        if not result.bids:
            continue  # voided before anyone bid
        public, hand, cost = split_round(result, seat)
        decisions = (
            ()
            if hand is None
            else tuple(
                round_decisions(
                    rules,
                    results[:number],
                    public,
                    seat,
                    hand,
                    cost,
                    (movers or {}).get((result.round, seat), ()),
                )
            )
        )
        yield RoundReview(
            result.round, hand, public.dice_before, cost.change, result.outcome, decisions
        )


@dataclass(frozen=True, slots=True)
class UnfinishedRound:
    """The round a game stopped in before its result (its host ended it, or the transcript
    ends there): no cup was opened, so the seat's moves in it are listed, not reviewed."""

    round: int
    moves: int  #: the seat's bids and calls in it


def unfinished_round(game: GameState, seat: int) -> UnfinishedRound | None:
    """The round `game` stopped in before its result, when the seat made moves in it."""
    if game.phase not in (Phase.BIDDING, Phase.SHOWDOWN):
        return None
    moves = sum(1 for b in game.bids if b.seat == seat) + (game.caller == seat)
    return UnfinishedRound(game.round, moves) if moves else None


@dataclass(frozen=True, slots=True)
class Summary:
    decisions: int
    right: int  #: of the judged ones (opening bids are not judged)
    judged: int
    agreed: int
    dice_lost: int
    mean_chance: float


def summarize(rounds: Sequence[RoundReview]) -> Summary:
    """The player's own decisions, counted (not the host's or a stand-in's for it)."""
    decisions = [d for r in rounds for d in r.decisions if d.by == YOU]
    judged = [d for d in decisions if d.right is not None]
    return Summary(
        decisions=len(decisions),
        right=sum(1 for d in judged if d.right),
        judged=len(judged),
        agreed=sum(1 for d in decisions if d.agrees),
        dice_lost=-sum(r.change for r in rounds if r.change < 0),
        mean_chance=sum(d.chance for d in decisions) / len(decisions) if decisions else 0.0,
    )


# ---- words ---------------------------------------------------------------------------------


def move_words(kind: str, bid: Bid | None) -> str:
    if kind == "call":
        return "call Liar"
    if kind == "exact":
        return "call Exact"
    assert bid is not None
    return f"bid {bid_words(bid)}"


def dice_words(n: int) -> str:
    return f"{abs(n)} {'die' if abs(n) == 1 else 'dice'}"


def decision_lines(d: Decision, names: Sequence[str] = ()) -> list[str]:
    """A decision in lines of at most 78 columns: the position, the move with its chance, the
    verdict and what it cost; the best move by the dice alone and hard's move (with hard's
    reading of the bids when it differs); and for a wrong move, why."""

    def name(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    last = d.before[-1] if d.before else None
    where = "to open" if last is None else f"on {name(last.seat)}'s {bid_words(last.bid)}"
    verdict = "" if d.right is None else (", right" if d.right else ", wrong")
    subject = {YOU: "you", HOST: "host for you:", STAND_IN: "stand-in for you:"}[d.by]
    first = f"  {where}: {subject} {move_words(d.kind, d.bid)}, {chance_words(d.kind, d.chance)}{verdict}"
    if d.dice_change:
        first += f"; {'cost' if d.dice_change < 0 else 'won back'} {dice_words(d.dice_change)}"
    parts = []
    if d.best_kind is not None and d.best_chance is not None:
        if d.chance >= d.best_chance - 1e-9:
            parts.append("best by the dice: yours")
        else:
            best = move_words(d.best_kind, d.best_bid)
            parts.append(f"best by the dice: {best}, {chance_words(d.best_kind, d.best_chance)}")
    if d.agrees:
        parts.append("hard: the same")
    else:
        hard_move = move_words(d.hard_kind, d.hard_bid)
        parts.append(f"hard: {hard_move}, {chance_words(d.hard_kind, d.hard_chance)}")
    lines = [first, "    " + "; ".join(parts)]
    if not d.agrees and ": " in d.hard_why:
        # hard's own figures, from reading the bids: why it can differ from the dice alone
        lines.append(f"    (hard: {d.hard_why.split(': ', 1)[1]})")
    if d.right is False:
        lines.append(f"    wrong: {d.reason}")
    return [line if len(line) <= 78 else line[:77] + "." for line in lines]


def chance_words(kind: str, chance: float) -> str:
    return f"{ {'raise': 'holds', 'call': 'wins', 'exact': 'hits'}[kind] } {chance:.0%}"


def review_text(
    rounds: Sequence[RoundReview],
    names: Sequence[str],
    seat: int,
    title: str = "",
    unfinished: UnfinishedRound | None = None,
) -> list[str]:
    """The whole review as lines of at most 78 columns (`unfinished`: the round the game
    stopped in, listed after the finished ones)."""
    from ..core.describe import hand_text

    who = names[seat] if 0 <= seat < len(names) else f"seat {seat}"
    out = [f"Review for {who} (seat {seat}){': ' + title if title else ''}"[:78]]
    for r in rounds:
        dice = " ".join(str(n) for n in r.dice)
        head = f"round {r.round}: you held {hand_text(r.hand)}, dice {dice}"
        if r.change:
            head += f", {'lost' if r.change < 0 else 'regained'} {dice_words(r.change)}"
        out.append(head[:78])
        if r.hand is None:
            out.append("  your hand was never opened: not reviewed")
        for d in r.decisions:
            out.extend(decision_lines(d, names))
    if unfinished is not None:
        moves = f"{unfinished.moves} {'move' if unfinished.moves == 1 else 'moves'}"
        line = f"round {unfinished.round}: not finished, no cup opened: your {moves} not reviewed"
        out.append(line[:78])
    s = summarize(rounds)
    if s.decisions:
        out.append(
            f"{s.decisions} {'decision' if s.decisions == 1 else 'decisions'}: {s.right} of "
            f"{s.judged} right, {s.agreed} as hard would, average chance "
            f"{s.mean_chance:.0%}, {dice_words(s.dice_lost)} lost"
        )
    elif unfinished is not None:
        out.append("none of your decisions is in a finished round: nothing to review")
    else:
        out.append("no decisions to review yet")
    return out
