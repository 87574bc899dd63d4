"""Transitions for entries that carry a player's signed message (protocol/SPEC.md 7)."""

from __future__ import annotations

from typing import Any

from .errors import Reason
from .events import SeatInfo
from .fairness import (
    derive_dice,
    opening_matches,
)
from .frozen import replace
from .game import (
    Challenge,
    ExactCall,
    Phase,
    PlaceBid,
    StartNextRound,
    Undo,
)
from .messages import Message, MessageType
from .names import name_key, name_problem, reserved_for_cpu
from .signing import acceptable_public_key
from .table_state import (
    ChainIndex,
    Note,
    Outcome,
    TableError,
    TablePhase,
    TableState,
    check_message,
    count_of,
    fail,
    require_next_round,
    require_round,
    rules_step,
)


def join_msg(state: TableState, msg: Message, seq: int, chain: ChainIndex) -> Outcome:
    body = msg.body
    key = msg.bytes_field("key")
    if msg.seat >= state.rules.seats:
        raise fail(Reason.UNKNOWN_SEAT, f"the table has {state.rules.seats} seats")
    if msg.seat in state.joins:
        raise fail(Reason.SEAT_TAKEN, f"seat {msg.seat} is taken")
    if any(s.key == key for s in state.joins.values()):
        raise fail(Reason.ALREADY_SEATED, "this key already holds a seat")
    # The genesis promised `host_cpu` host-run seats: that many, and room kept for them; more
    # only on a table whose genesis says empty seats are filled with CPUs (`cpu_fill`).
    host_run_taken = sum(1 for s in state.joins.values() if s.host_run)
    if body["host_run"] and host_run_taken >= state.host_cpu and not state.cpu_fill:
        raise fail(
            Reason.TABLE_FULL, f"the table has {state.host_cpu} host-run CPU seats, all taken"
        )
    free_after = state.rules.seats - len(state.joins) - 1
    if not body["host_run"] and free_after < state.host_cpu - host_run_taken:
        raise fail(Reason.TABLE_FULL, "the seats left are kept for the host's CPU players")
    if msg.bytes_field("host") != state.host_key:
        raise fail(Reason.BAD_CHALLENGE, "the join answers another host")
    if msg.counter != 0:
        raise fail(Reason.SCHEMA, "a join has counter 0")
    if body["host_run"] and not body["cpu"]:
        raise fail(Reason.SCHEMA, "only a CPU seat can be host-run")
    if not acceptable_public_key(key):
        # A small-order key (the identity point above all) has signatures that verify for any
        # message: anyone could then sign for the seat (SPEC.md 2.4).
        raise fail(Reason.BAD_SIGNATURE, "the key is of small order or not canonically encoded")
    # Names (SPEC.md 10.5): well formed, one seat per look, and the CPU form only for CPU seats.
    if (problem := name_problem(body["name"])) is not None:
        raise fail(Reason.SCHEMA, f"the name is refused: {problem}")
    wanted = name_key(body["name"])
    taken = [s.name for s in state.joins.values() if name_key(s.name) == wanted]
    if taken:
        # The seated spelling: the joiner's may differ from it in case or by a look-alike.
        raise fail(Reason.NAME_TAKEN, f"a seat is already called {taken[0]}")
    if not body["cpu"] and reserved_for_cpu(body["name"]):
        raise fail(Reason.NAME_RESERVED, "names starting with CPU are kept for CPU seats")
    check_message(state, msg, chain, key=key)
    info = SeatInfo(
        seat=msg.seat, key=key, name=body["name"], cpu=body["cpu"], host_run=body["host_run"]
    )
    return replace(
        state,
        joins={**state.joins, msg.seat: info},
        counters=count_of(state, msg, key),
        used_keys=state.used_keys | {key},
    ), (Note("joined", None, msg.seat, info.name),)


def _check_carried(
    state: TableState, msg: Message, chain: ChainIndex, counters: dict[bytes, int]
) -> None:
    """One message of a commitment set or beacon: its round, attempt and §4.1 checks."""
    try:
        require_round(state, msg.body["round"], msg.body["attempt"])
        check_message(replace(state, counters=counters), msg, chain)
    except TableError as err:
        raise err.about(msg.seat) from None


def seat_messages(
    state: TableState, msgs: tuple[Message, ...], kind: str, chain: ChainIndex
) -> tuple[tuple[Message, ...], dict[bytes, int]]:
    """Messages of every seat of the attempt (their shape and type checked with the event's),
    exactly once each, in seat order; and the counters after them."""
    attempt = state.attempt
    assert attempt is not None
    counters = dict(state.counters)
    for msg in msgs:
        assert msg.type == kind
        _check_carried(state, msg, chain, counters)
        counters[state.keys[msg.seat]] = msg.counter
    seats = tuple(m.seat for m in msgs)
    if seats != attempt.seats:
        code = Reason.COMMIT_SET_MISMATCH if kind == MessageType.COMMIT else Reason.BAD_EVENT
        raise fail(
            code, f"{kind} messages from seats {list(seats)}, the attempt has {list(attempt.seats)}"
        )
    return msgs, counters


def bidding_action(state: TableState, msg: Message, seq: int, chain: ChainIndex) -> Outcome:
    game = state.game
    assert game is not None
    require_round(state, msg.body["round"])
    seat = msg.seat
    event: Any
    if msg.type == MessageType.BID:
        event = PlaceBid(seat, msg.bid)
    elif msg.type == MessageType.CHALLENGE:
        event = Challenge(seat)
    elif msg.type == MessageType.EXACT:
        event = ExactCall(seat)
    else:
        event = Undo(seat)
    after = rules_step(game, event)
    check_message(state, msg, chain)
    phase = TablePhase.SHOWDOWN if after.phase == Phase.SHOWDOWN else TablePhase.BIDDING
    return replace(state, game=after, phase=phase, counters=count_of(state, msg)), (
        Note(
            msg.type,
            game.round,
            seat,
            _describe(msg),
            bid=msg.bid if msg.type == MessageType.BID else None,
        ),
    )


def _describe(msg: Message) -> str:
    if msg.type == MessageType.BID:
        return str(msg.bid)
    return msg.type


def open_msg(state: TableState, msg: Message, seq: int, chain: ChainIndex) -> Outcome:
    attempt = state.attempt
    assert attempt is not None and attempt.beacon is not None
    require_round(state, msg.body["round"], msg.body["attempt"])
    seat = msg.seat
    if seat not in attempt.seats:
        raise fail(Reason.UNKNOWN_SEAT, f"seat {seat} has no hand this round")
    if seat in attempt.openings:
        raise fail(Reason.DUPLICATE, f"seat {seat} already opened")
    key = state.keys[seat]
    salt, seed = msg.bytes_field("salt"), msg.bytes_field("seed")
    seed_commit, _ = attempt.commits[seat]
    if not opening_matches(
        attempt.context(state.table_id, seat, key), seed_commit, salt=salt, seed=seed
    ):
        raise fail(Reason.OPENING_MISMATCH, f"seat {seat}'s opening does not match its commitment")
    check_message(state, msg, chain)
    hand = derive_dice(
        seed,
        table_id=state.table_id,
        round_=attempt.round,
        attempt=attempt.attempt,
        seat=seat,
        beacon_r=attempt.beacon,
        count=attempt.dice[seat],
    )
    openings = {**attempt.openings, seat: hand}
    return replace(
        state, attempt=replace(attempt, openings=openings), counters=count_of(state, msg)
    ), (
        Note(
            "opened",
            attempt.round,
            seat,
            " ".join(map(str, hand)),
            attempt=attempt.attempt,
            hand=hand,
        ),
    )


def ack_msg(state: TableState, msg: Message, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, msg.body["round"])
    assert state.result_seq is not None
    if msg.bytes_field("result") != chain.hashes[state.result_seq]:
        raise fail(Reason.UNKNOWN_HEAD, "the acknowledgement names another result")
    if msg.seat in state.acks:
        raise fail(Reason.DUPLICATE, f"seat {msg.seat} already acknowledged")
    check_message(state, msg, chain)
    return replace(state, acks=state.acks | {msg.seat}, counters=count_of(state, msg)), (
        Note(MessageType.ACK, msg.body["round"], msg.seat),
    )


def next_round_msg(state: TableState, msg: Message, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, msg.body["round"])
    game = state.game
    assert game is not None
    require_next_round(game)
    after = rules_step(game, StartNextRound(msg.seat))
    check_message(state, msg, chain)
    return replace(state, game=after, phase=TablePhase.BETWEEN, counters=count_of(state, msg)), (
        Note(MessageType.NEXT_ROUND, game.round, msg.seat),
    )
