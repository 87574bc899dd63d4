"""Game states, views and snapshots built with the real rules engine, for view-model tests."""

from __future__ import annotations

from typing import Any

from p2pdice.core.bids import Bid
from p2pdice.core.errors import Reason
from p2pdice.core.game import (
    Challenge,
    Deal,
    ExactCall,
    GameState,
    PlaceBid,
    Reveal,
    apply,
    new_game,
)
from p2pdice.core.peer import Alarm
from p2pdice.core.rules import Rules
from p2pdice.core.table import Note
from p2pdice.core.view import seat_view
from p2pdice.ui.facts import AlarmFacts, alarm_facts, note_facts
from p2pdice.ui.viewmodel import SeatFacts, Snapshot

NAMES = ("Ann", "Bob", "Cid")
HANDS = ((1, 4, 4, 2, 6), (3, 4, 5, 5, 1), (2, 2, 6, 6, 3))


OPENING = ((0, Bid(2, 4)),)


def bidding(rules: Rules | None = None, bids=OPENING) -> GameState:
    """Round 1 of a three-seat table, seat 0 opening, with `bids` placed."""
    rules = rules or Rules(seats=3, first_starter="seat0")
    state = apply(new_game(rules), Deal())
    for seat, bid in bids:
        state = apply(state, PlaceBid(seat, bid))
    return state


def revealed(rules: Rules | None = None, *, exact: bool = False) -> GameState:
    """Ann bids 2x4s, Bob 3x4s, Cid calls (Liar or Exact); hands HANDS."""
    state = bidding(rules, bids=((0, Bid(2, 4)), (1, Bid(3, 4))))
    state = apply(state, ExactCall(2) if exact else Challenge(2))
    return apply(state, Reveal(HANDS))


def snap_of(
    state: GameState,
    me: int | None = 0,
    *,
    names=NAMES,
    rules: Rules | None = None,
    notes: tuple[Note, ...] = (),
    **kw,
) -> Snapshot:
    hand = kw.pop("hand", None)
    if hand is None:
        hand = HANDS[me] if me is not None else ()
    view = seat_view(state, me, hand)
    phase = {"bidding": "bidding", "showdown": "showdown"}.get(str(state.phase), "result")
    if str(state.phase) == "game_over":
        phase = "over"
    return Snapshot(
        table_name="Kitchen",
        rules=rules or state.rules,
        phase=kw.pop("phase", phase),
        seats=tuple(SeatFacts(name=n, cpu=i == 2, host_run=i == 2) for i, n in enumerate(names)),
        view=view,
        me=me,
        mine=kw.pop("mine", (me,) if me is not None else ()),
        connected=frozenset(range(len(names))),
        code="12345-67890",
        link="connected",
        notes=tuple(note_facts(n) for n in notes),
        **kw,
    )


def alarms(*found: tuple[Any, ...]) -> tuple[AlarmFacts, ...]:
    """Alarms of our own checks, (reason, detail[, seats]) each, as the snapshot carries them."""
    return tuple(
        alarm_facts(Alarm(Reason(reason), detail, seats=tuple(seats[0]) if seats else ()))
        for reason, detail, *seats in found
    )


def opened(round_: int, seats) -> tuple[Note, ...]:
    return tuple(Note("opened", round_, s, "") for s in seats)
