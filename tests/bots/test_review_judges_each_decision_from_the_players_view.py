"""The coach's review: every decision a seat made is listed, in the view the table gave it
then (no more), its chance agrees with listing every way the unseen dice fall, and the
other seats' cups of the round being judged are never read."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, fields, replace

import pytest

from p2pdice.bots.hard import hard
from p2pdice.bots.medium import medium
from p2pdice.bots.review import PublicRound, review_rounds, view_at
from p2pdice.bots.sim import decide_safely, roll
from p2pdice.core.bids import count_matching, ones_are_wild
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    Phase,
    PlaceBid,
    Reveal,
    RoundResult,
    StartNextRound,
    apply,
    new_game,
)
from p2pdice.core.rules import Ones, Rules
from p2pdice.core.view import SeatView, seat_view

TABLES = (
    Rules(seats=3, starting_dice=3),
    Rules(seats=2, starting_dice=2, ones=Ones.NATURAL),
    Rules(seats=3, starting_dice=2, ones=Ones.ACES, exact_call=True),
)


@dataclass(frozen=True)
class Move:
    round_index: int  #: index of the round in the game's results
    seat: int
    view: SeatView  #: the engine's own view of the mover at that moment
    kind: str
    bid: object


def played(rules: Rules, seed: int) -> tuple[tuple[RoundResult, ...], list[Move]]:
    """A game of bots on the engine, and every move with the mover's view as the engine
    gave it."""
    rng = random.Random(seed)
    bots = [hard if s % 2 == 0 else medium for s in range(rules.seats)]
    state: GameState = new_game(rules)
    moves: list[Move] = []
    while state.phase != Phase.GAME_OVER:
        hands = roll(rng, state.dice)
        state = apply(state, Deal(rng.choice(state.survivors) if state.starter is None else None))
        while state.phase == Phase.BIDDING:
            mover = state.turn
            assert mover is not None
            action, _ = decide_safely(bots[mover], state, mover, hands[mover], rng)
            kind = (
                "call"
                if isinstance(action, Challenge)
                else "exact"
                if isinstance(action, ExactCall)
                else "raise"
            )
            bid = action.bid if isinstance(action, PlaceBid) else state.standing_bid
            moves.append(
                Move(len(state.results), mover, seat_view(state, mover, hands[mover]), kind, bid)
            )
            state = apply(state, action)
        state = apply(state, Reveal(hands))
        if state.phase == Phase.ROUND_OVER:
            assert state.next_starter is not None
            state = apply(state, StartNextRound(state.next_starter))
    return state.results, moves


@pytest.mark.parametrize("rules", TABLES, ids=lambda r: f"{r.seats}x{r.starting_dice}-{r.ones}")
def test_every_decision_of_the_seat_is_listed_in_the_view_it_had(rules: Rules) -> None:
    results, moves = played(rules, seed=rules.seats * 10 + rules.starting_dice)
    for seat in range(rules.seats):
        mine = [m for m in moves if m.seat == seat]
        listed = [d for r in review_rounds(rules, results, seat) for d in r.decisions]
        assert [(d.kind, d.bid) for d in listed] == [(m.kind, m.bid) for m in mine]
        for move, decision in zip(mine, listed, strict=True):
            result = results[move.round_index]
            public = PublicRound(
                round=result.round,
                palifico_round=result.palifico_round,
                starter=result.starter,
                dice_before=result.dice_before,
                bids=result.bids,
                call=result.call,
                caller=result.caller,
            )
            rebuilt = view_at(
                rules,
                results[: move.round_index],
                public,
                len(move.view.bids),
                seat,
                move.view.hand,
            )
            assert rebuilt == move.view
            assert decision.hand == move.view.hand
            assert decision.before == move.view.bids


def brute_chance(view: SeatView, kind: str, bid: object) -> float:
    standing = view.standing_bid
    target = bid if kind == "raise" else standing
    assert target is not None
    hits = total = 0
    for unseen in itertools.product(range(1, 7), repeat=view.unseen_dice):
        count = count_matching((view.hand, unseen), target.face, wild_ones=view.wild_ones)  # type: ignore[attr-defined]
        q = target.quantity  # type: ignore[attr-defined]
        hits += (count >= q) if kind == "raise" else (count < q) if kind == "call" else (count == q)
        total += 1
    return hits / total


def test_each_chance_agrees_with_listing_every_roll_of_the_unseen_dice() -> None:
    rules = TABLES[2]  # 3 seats of 2 dice: at most 4 unseen dice, 1296 rolls
    checked = 0
    for seed in range(4):
        results, moves = played(rules, seed)
        for seat in range(rules.seats):
            mine = [m for m in moves if m.seat == seat]
            listed = [d for r in review_rounds(rules, results, seat) for d in r.decisions]
            for move, decision in zip(mine, listed, strict=True):
                assert decision.chance == pytest.approx(
                    brute_chance(move.view, decision.kind, decision.bid), abs=1e-9
                )
                checked += 1
    assert checked > 20


class Sealed(tuple):  # type: ignore[type-arg]
    """A cup that may not be looked into: any read of its dice fails the test."""

    def _peek(self, *args: object) -> object:
        raise AssertionError("the review read a hand its player could not see")

    __iter__ = __len__ = __getitem__ = __contains__ = _peek  # type: ignore[assignment]
    __eq__ = __hash__ = __bool__ = _peek  # type: ignore[assignment]


def sealed_others(result: RoundResult, seat: int) -> RoundResult:
    hands = tuple(h if s == seat or not h else Sealed(h) for s, h in enumerate(result.hands))
    return replace(result, hands=hands)


def test_the_other_cups_of_the_round_judged_are_never_read() -> None:
    rules = TABLES[0]
    results, _ = played(rules, seed=5)
    for seat in range(rules.seats):
        for k in range(len(results)):
            # Rounds before k are over and were opened for all: those the review may read.
            forged = (*results[:k], sealed_others(results[k], seat))
            honest = list(review_rounds(rules, results[: k + 1], seat))
            sealed = list(review_rounds(rules, forged, seat))
            assert [d.to_json() for r in sealed for d in r.decisions] == [
                d.to_json() for r in honest for d in r.decisions
            ]


def test_other_cups_that_would_change_the_verdict_do_not_change_the_review() -> None:
    """Give every other seat the dice that make the called bid true, then false: a review
    that peeked would see a sure thing; this one must not move."""
    rules = TABLES[0]
    results, _ = played(rules, seed=7)
    swapped_any = False
    for k, result in enumerate(results):
        bid = result.bid
        if bid is None or result.caller is None:
            continue
        caller = result.caller
        verdicts = []
        missing = next(f for f in range(2, 7) if f != bid.face)  # counts toward nothing
        counts = []
        for face in (bid.face, missing):
            fake = tuple(
                h if s == caller or not h else tuple(face for _ in h)
                for s, h in enumerate(result.hands)
            )
            wild = ones_are_wild(rules, result.palifico_round)
            counts.append(count_matching(fake, bid.face, wild_ones=wild))
            forged = (*results[:k], replace(result, hands=fake))
            review = list(review_rounds(rules, forged, caller))
            verdicts.append([d.to_json() for d in review[-1].decisions])
            swapped_any = True
        assert counts[0] > counts[1]  # a review that peeked would judge two tables
        assert verdicts[0] == verdicts[1]
    assert swapped_any


def test_a_sealed_cup_cannot_be_counted() -> None:
    with pytest.raises(AssertionError):
        count_matching((Sealed((2, 3)),), 2, wild_ones=True)


def test_the_public_round_has_no_field_for_a_hand() -> None:
    assert not any("hand" in f.name for f in fields(PublicRound))


def test_a_transcripts_review_never_reads_a_cup_before_its_reveal() -> None:
    """The rounds as a verified transcript's result entries make them: sealing every other
    cup of the round judged leaves each seat's review of it as it was."""
    from p2pdice.core.table import Replayer
    from p2pdice.core.transcript import parse_entry
    from tests.support.played import honest_game

    replayer = Replayer()
    for line in honest_game().host.lines():
        replayer.feed(parse_entry(line))
    state = replayer.state
    assert state is not None and state.game is not None
    rules, results = state.rules, state.game.results
    reviewed = 0
    for seat in range(rules.seats):
        for k in range(len(results)):
            forged = (*results[:k], sealed_others(results[k], seat))
            honest = [
                d.to_json()
                for r in review_rounds(rules, results[: k + 1], seat)
                for d in r.decisions
            ]
            sealed = [d.to_json() for r in review_rounds(rules, forged, seat) for d in r.decisions]
            assert sealed == honest
            reviewed += len(honest)
    assert reviewed
