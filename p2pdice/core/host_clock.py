"""The host's sense of time: deadlines, and what each phase does when one passes.

Plain functions over the host table and its `HostWaits`: `host.py` reacts to what connections
send, this module reacts to `now` (protocol/SPEC.md 8). Nothing here reads a
clock; the adapter passes `now` in and asks `next_deadline(now)` when to call `tick` again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from . import events
from .game import Phase, blind_action
from .host_outputs import Conn, NeedStandIn, Output, RetireStandIn, _Waiting
from .messages import Message, MessageType
from .rules import TIME_BANK_FREE_PER_TURN
from .table import (
    TablePhase,
    TableState,
    expected_beacon,
    expected_forfeit,
    expected_result,
    expected_roster,
    expected_round,
    forced_move,
    game_over_reason,
    result_decided,
    start_refusal,
    void_limit,
)
from .table_events import host_holds_contribution, host_seat_refusal, on_the_clock

COMMIT_WAIT = 15.0  #: seconds a connected seat has to commit before the attempt is aborted
ACK_WAIT = 5.0  #: seconds to wait for acknowledgements before moving on
TIMER_SLACK = 2.0  #: extra seconds the host gives a client's own timer move before forcing
BANK_SHOWN = 30.0  #: a seat's time bank is shown to the table when less than this is left
STRIKES_TO_ABSENT = 2  #: aborts blamed on one seat before it is declared absent


@dataclass(slots=True)
class HostWaits:
    """What the host keeps about time and absences; none of it reaches the log."""

    wait: _Waiting  #: the current phase's waits (renewed on each phase)
    gone_since: dict[int, float] = field(default_factory=dict)  #: seat -> when it went
    strikes: dict[int, int] = field(default_factory=dict)  #: aborts blamed on each seat
    returning: set[int] = field(default_factory=set)  #: absent seats back with their own key
    awaiting_stand_in: set[int] = field(default_factory=set)  #: stand-ins the adapter owes
    #: Seats whose acknowledgement a resumed host still waits for although they have not
    #: reconnected yet: theirs may have died with the old process, and a resent one must not
    #: find the round gone (verify --mine would call it dropped).
    ack_grace: set[int] = field(default_factory=set)
    #: Seconds of each seat's time bank it has used so far this game (SPEC.md 8): host-local
    #: like every wait, so a resumed host starts every bank full again.
    bank_used: dict[int, float] = field(default_factory=dict)
    #: Seconds the seat on turn had used when its turn paused (it disconnected).
    turn_used: float = 0.0


class ClockedTable(Protocol):
    """The host table these functions act on and post through."""

    waits: HostWaits

    @property
    def state(self) -> TableState: ...

    def seat_connected(self, seat: int) -> bool: ...

    def start_due(self) -> bool: ...

    def host_seat(self) -> int | None: ...

    def _post_event(self, event: events.HostEvent, now: float) -> list[Output]: ...

    def _post_msg(self, conn: Conn | None, msg: Message, now: float) -> list[Output]: ...


# ---- the clock -----------------------------------------------------------------------


def next_deadline(host: ClockedTable, now: float) -> float | None:
    """When `tick` should next be called, after `now` (None: nothing is timed).

    Deadlines at or before `now` were dealt with by the last `tick(now)` or wait on
    something else (another deadline, a reconnection); returning them would make the
    adapter's clock spin.
    """
    candidates = [_absent_at(host, s) for s in host.waits.gone_since if _matters(host, s)]
    phase, wait = host.state.phase, host.waits.wait
    if phase == TablePhase.COMMIT:
        candidates.append(wait.since + COMMIT_WAIT)
    elif phase in (TablePhase.CONTRIBUTE, TablePhase.SHOWDOWN):
        candidates.append(wait.since + grace(host))
    elif phase == TablePhase.RESULT:
        candidates.append(wait.since + ACK_WAIT)
    if wait.turn_seat is not None and wait.turn_left is None and host.state.rules.turn_timer:
        candidates.append(wait.turn_since + host.state.rules.turn_timer + TIMER_SLACK)
    out_of_time = bank_deadline(host)
    if out_of_time is not None:
        candidates.append(out_of_time)
    future = [c for c in candidates if c > now]
    return min(future) if future else None


def turn_deadline(host: ClockedTable) -> tuple[int | None, float | None]:
    """Whose move the table waits for, and when its turn timer runs out (None: no timer or paused)."""
    wait = host.waits.wait
    timer = host.state.rules.turn_timer
    if wait.turn_seat is None or not timer or wait.turn_left is not None:
        return wait.turn_seat, None
    return wait.turn_seat, wait.turn_since + timer


# ---- the time bank (SPEC.md 8) ---------------------------------------------------------


def bank_left(host: ClockedTable, seat: int) -> float:
    """Seconds left in `seat`'s time bank, not counting the turn it may be on now."""
    return max(host.state.rules.time_bank - host.waits.bank_used.get(seat, 0.0), 0.0)


def turn_used(host: ClockedTable, now: float) -> float:
    """Seconds the seat on turn has spent on this turn while connected."""
    wait = host.waits.wait
    return host.waits.turn_used if wait.turn_left is not None else max(now - wait.turn_since, 0.0)


def bank_draw(used: float) -> float:
    """What a turn of `used` seconds takes from the bank: the time beyond the free seconds."""
    return max(used - TIME_BANK_FREE_PER_TURN, 0.0)


def _banked_seat(host: ClockedTable) -> int | None:
    """The seat whose turn draws on its bank now (`on_the_clock`)."""
    seat = host.waits.wait.turn_seat
    return seat if seat is not None and on_the_clock(host.state, seat) else None


def bank_deadline(host: ClockedTable) -> float | None:
    """When the seat on turn runs out of time (None: no bank, or its turn is paused)."""
    seat = _banked_seat(host)
    if seat is None or host.waits.wait.turn_left is not None:
        return None
    return host.waits.wait.turn_since + TIME_BANK_FREE_PER_TURN + bank_left(host, seat)


def low_bank_deadline(host: ClockedTable) -> float | None:
    """When the seat on turn runs out of time, once its bank is low enough to show the table
    (less than `BANK_SHOWN` seconds left; None otherwise, or with no bank, or while paused)."""
    seat = _banked_seat(host)
    if seat is None or bank_left(host, seat) >= BANK_SHOWN:
        return None
    return bank_deadline(host)


def bank_now(host: ClockedTable, seat: int, now: float) -> float:
    """Seconds left in `seat`'s bank at `now`, counting the turn it is on."""
    left = bank_left(host, seat)
    if seat == _banked_seat(host):
        left -= bank_draw(turn_used(host, now))
    return max(left, 0.0)


def _out_of_time(host: ClockedTable, now: float) -> int | None:
    seat = _banked_seat(host)
    deadline = bank_deadline(host)
    return seat if deadline is not None and now >= deadline else None


def _charge_turn_of(host: ClockedTable, before: TableState, now: float) -> None:
    """The turn the host timed in `before` ended: the seat's time beyond the free seconds is
    taken from its bank."""
    seat = host.waits.wait.turn_seat
    if seat is not None and on_the_clock(before, seat):
        used = host.waits.bank_used.get(seat, 0.0) + bank_draw(turn_used(host, now))
        host.waits.bank_used[seat] = min(used, float(host.state.rules.time_bank))


def _post_stalled(host: ClockedTable, seat: int, now: float) -> list[Output]:
    """The seat's bank is empty: it is declared absent (`stalled`) and stays empty."""
    host.waits.bank_used[seat] = float(host.state.rules.time_bank)
    return _post_absent(host, seat, "stalled", now)


def grace(host: ClockedTable) -> float:
    return float(host.state.rules.grace_period)


def _matters(host: ClockedTable, seat: int) -> bool:
    game = host.state.game
    return (
        game is not None
        and seat < len(game.dice)
        and game.dice[seat] > 0
        and seat not in host.state.absent
    )


def tick(host: ClockedTable, now: float) -> list[Output]:
    """Do whatever is due at `now`: post sets, decide rounds, declare absences, force moves."""
    outputs: list[Output] = []
    for _ in range(64):  # each step posts at most one entry; the loop ends when nothing is due
        step = _step(host, now)
        if not step:
            break
        outputs += step
    return outputs


def _absent_at(host: ClockedTable, seat: int) -> float:
    """When `seat`, away since `gone_since`, has been away its grace period: on its own turn
    the time it was away in earlier drops during the turn counts too, so coming back for a
    moment before the grace period ends, and dropping again, holds the table no longer than
    staying away does (its turn timer and bank run only while it is connected)."""
    wait = host.waits.wait
    away = wait.turn_away if wait.turn_seat == seat else 0.0
    return host.waits.gone_since[seat] + grace(host) - away


def _gone_too_long(host: ClockedTable, seat: int, now: float) -> bool:
    return seat in host.waits.gone_since and now >= _absent_at(host, seat)


def _declare_absent(host: ClockedTable, now: float) -> list[Output] | None:
    if not host.waits.gone_since:  # every seat is connected: nobody is gone too long
        return None
    state, game = host.state, host.state.game
    if game is None or state.phase in (TablePhase.LOBBY, TablePhase.OVER):
        return None
    for seat in game.survivors:
        if seat not in state.absent and _gone_too_long(host, seat, now):
            return _post_absent(host, seat, "grace_expired", now)
    return None


def _post_absent(host: ClockedTable, seat: int, reason: str, now: float) -> list[Output]:
    game = host.state.game
    assert game is not None
    return host._post_event(events.Absent(round=game.round, seat=seat, reason=reason), now)


def _absent_first_silent(host: ClockedTable, missing: list[int], now: float) -> list[Output] | None:
    """Declare the first seat of `missing` not yet absent; None when all of them are."""
    for seat in missing:
        if seat not in host.state.absent:
            return _post_absent(host, seat, "no_reply", now)
    return None


def _step(host: ClockedTable, now: float) -> list[Output]:
    absent = _declare_absent(host, now)
    if absent:
        return absent
    handler = _STEPS.get(host.state.phase)
    return handler(host, now) if handler else []


def maybe_start(host: ClockedTable, now: float) -> list[Output]:
    """Post the start event once the host means to start (`start_due`) and the seats taken
    make a start the table accepts (SPEC.md 3.3)."""
    state = host.state
    if state.phase != TablePhase.LOBBY or not host.start_due() or start_refusal(state):
        return []
    host_seat = host.host_seat()
    if host_seat_refusal(state, host_seat):
        return []  # round 1 is the host's to open, and its own player has not joined yet
    return host._post_event(events.Start(roster=expected_roster(state), host_seat=host_seat), now)


def _step_between(host: ClockedTable, now: float) -> list[Output]:
    state, game = host.state, host.state.game
    assert game is not None
    for seat in sorted(host.waits.returning):
        host.waits.returning.discard(seat)
        if seat in state.absent:
            outputs = host._post_event(events.Return(round=game.round, seat=seat), now)
            if seat in host.waits.awaiting_stand_in or seat in state.stand_ins:
                host.waits.awaiting_stand_in.discard(seat)
                outputs.append(RetireStandIn(seat))
            return outputs
    for seat in game.survivors:
        if seat in state.absent and seat not in state.stand_ins:
            if seat not in host.waits.awaiting_stand_in:
                host.waits.awaiting_stand_in.add(seat)
                return [NeedStandIn(seat)]
            return []  # the adapter has not installed it yet
    return host._post_event(expected_round(state), now)


def install_stand_in(host: ClockedTable, seat: int, public_key: bytes, now: float) -> list[Output]:
    """The adapter created the stand-in peer the host asked for."""
    state, game = host.state, host.state.game
    if (
        seat not in host.waits.awaiting_stand_in
        or game is None
        or state.phase != TablePhase.BETWEEN
    ):
        return []
    host.waits.awaiting_stand_in.discard(seat)
    event = events.StandIn(round=game.round, seat=seat, key=public_key)
    return [*host._post_event(event, now), *tick(host, now)]


def _step_commit(host: ClockedTable, now: float) -> list[Output]:
    attempt = host.state.attempt
    assert attempt is not None
    commits = host.waits.wait.commits
    if all(s in commits for s in attempt.seats):
        commit_set = events.CommitSet(
            round=attempt.round,
            attempt=attempt.attempt,
            commits=tuple(commits[s] for s in attempt.seats),
        )
        return host._post_event(commit_set, now)
    missing = [s for s in attempt.seats if s not in commits]
    waiting_for_return = any(
        s in host.waits.gone_since and not _gone_too_long(host, s, now) for s in missing
    )
    if now < host.waits.wait.since + COMMIT_WAIT or waiting_for_return:
        return []
    for seat in missing:
        host.waits.strikes[seat] = host.waits.strikes.get(seat, 0) + 1
    abort = events.Abort(
        round=attempt.round,
        attempt=attempt.attempt,
        missing=tuple(missing),
        reason="commit_timeout",
    )
    outputs = host._post_event(abort, now)
    for seat in missing:
        if host.waits.strikes[seat] >= STRIKES_TO_ABSENT and seat not in host.state.absent:
            host.waits.strikes[seat] = 0
            outputs += _post_absent(host, seat, "no_reply", now)
    return outputs


def _step_contribute(host: ClockedTable, now: float) -> list[Output]:
    attempt = host.state.attempt
    assert attempt is not None
    got = host.waits.wait.contributions
    if all(s in got for s in attempt.seats):
        ts = [got[s].bytes_field("contribution") for s in attempt.seats]
        r, starter = expected_beacon(host.state, ts)
        beacon = events.Beacon(
            round=attempt.round,
            attempt=attempt.attempt,
            contributions=tuple(got[s] for s in attempt.seats),
            beacon=r,
            starter=starter,
        )
        return host._post_event(beacon, now)
    missing = [s for s in attempt.seats if s not in got]
    if now < host.waits.wait.since + grace(host):
        return []
    absent = _absent_first_silent(host, missing, now)
    if absent is not None:
        return absent
    if host.state.voids >= void_limit(host.state) or any(
        host_holds_contribution(host.state, s) for s in missing
    ):
        # No more voids, or one of its own seats is silent (a void may not name it): the game
        # cannot go on (SPEC.md 8).
        return abandon(host, now)
    return _forfeit(host, missing, "no_contribution", now)


def _forfeit(host: ClockedTable, seats: list[int], reason: str, now: float) -> list[Output]:
    return host._post_event(expected_forfeit(host.state, tuple(seats), reason), now)


def _step_bidding(host: ClockedTable, now: float) -> list[Output]:
    game = host.state.game
    assert game is not None and game.turn is not None
    seat = game.turn
    if seat in host.state.absent and seat not in host.state.stand_ins:
        return _force(host, seat, "absent", now)
    if _out_of_time(host, now) == seat:
        return _post_stalled(host, seat, now)
    if _timer_expired(host, now):
        return _force(host, seat, "timer", now)
    return []


def _timer_expired(host: ClockedTable, now: float) -> bool:
    timer = host.state.rules.turn_timer
    wait = host.waits.wait
    return bool(timer) and wait.turn_left is None and now >= wait.turn_since + timer + TIMER_SLACK


def _force(host: ClockedTable, seat: int, reason: str, now: float) -> list[Output]:
    game = host.state.game
    assert game is not None
    if host.state.phase == TablePhase.RESULT:
        action = events.ForcedMove(type=MessageType.NEXT_ROUND)
    else:
        action = forced_move(blind_action(game, seat))
    return host._post_event(
        events.Forced(round=game.round, seat=seat, reason=reason, action=action), now
    )


def _step_showdown(host: ClockedTable, now: float) -> list[Output]:
    state, attempt = host.state, host.state.attempt
    assert attempt is not None
    missing = [s for s in attempt.seats if s not in attempt.openings]
    if not missing:
        return host._post_event(expected_result(state), now)
    all_absent = all(s in state.absent and s not in state.stand_ins for s in missing)
    if all_absent and result_decided(state):
        return host._post_event(expected_result(state), now)
    # An absent seat connected at the call (one out of time) has a client that opens by
    # itself: it gets the grace period like any seat, also when it reconnects meanwhile (to
    # take the seat back), or running out of time would cost its whole stack.
    if all_absent and not any(_there_at_the_call(host, s) for s in missing):
        return _forfeit(host, missing, "no_opening", now)
    if now < host.waits.wait.since + grace(host):
        return []
    declared = _absent_first_silent(host, missing, now)
    if declared:
        return declared
    return _forfeit(host, missing, "no_opening", now) if all_absent else []


def _there_at_the_call(host: ClockedTable, seat: int) -> bool:
    """Whether `seat` is connected, or was when the showdown began (it dropped since)."""
    gone = host.waits.gone_since.get(seat)
    return host.seat_connected(seat) or (gone is not None and gone >= host.waits.wait.since)


def _step_result(host: ClockedTable, now: float) -> list[Output]:
    state, game = host.state, host.state.game
    assert game is not None
    acked = all(
        s in state.acks or not (host.seat_connected(s) or s in host.waits.ack_grace)
        for s in range(len(game.dice))
    )
    settled = acked or now >= host.waits.wait.since + ACK_WAIT
    if settled:
        host.waits.ack_grace.clear()
    if game.phase == Phase.GAME_OVER:
        if settled:
            reason = game_over_reason(state)
            return host._post_event(events.GameOver(ranking=game.ranking, reason=reason), now)
        return []
    if not settled:
        return []
    held = host.waits.wait.next_round
    if held is not None:
        host.waits.wait.next_round = None
        return host._post_msg(host.waits.wait.next_round_conn, held, now)
    starter = game.next_starter
    assert starter is not None
    if starter in state.absent and starter not in state.stand_ins:
        return _force(host, starter, "absent", now)
    if _out_of_time(host, now) == starter:
        return _post_stalled(host, starter, now)
    if _timer_expired(host, now):
        return _force(host, starter, "timer", now)
    return []


#: What the host does by itself in each phase (built once: `_step` runs after every message).
_STEPS: dict[TablePhase, Callable[[ClockedTable, float], list[Output]]] = {
    TablePhase.BETWEEN: _step_between,
    TablePhase.COMMIT: _step_commit,
    TablePhase.CONTRIBUTE: _step_contribute,
    TablePhase.BIDDING: _step_bidding,
    TablePhase.SHOWDOWN: _step_showdown,
    TablePhase.RESULT: _step_result,
}


def abandon(host: ClockedTable, now: float) -> list[Output]:
    """End the game early (the host is shutting down). The log says so."""
    if host.state.phase == TablePhase.OVER:
        return []
    game = host.state.game
    ranking = game.ranking if game is not None else ()
    # Stopped in the seconds between the final result and its game-over entry: finished
    # when the game has its winner.
    reason = game_over_reason(host.state)
    return host._post_event(events.GameOver(ranking=ranking, reason=reason), now)


def after_change(host: ClockedTable, before: TableState, now: float) -> None:
    """The table moved on from `before`: restart the phase's waits and the turn timer."""
    state = host.state
    game = state.game
    turn = game.turn if game is not None and state.phase == TablePhase.BIDDING else None
    if state.phase == TablePhase.RESULT and game is not None and game.phase != Phase.GAME_OVER:
        turn = game.next_starter
    turn_over = turn != host.waits.wait.turn_seat or state.phase != before.phase
    if turn_over:
        _charge_turn_of(host, before, now)
    if state.phase != before.phase:
        host.waits.wait = _Waiting(since=now)
    if turn_over:
        host.waits.wait.turn_seat = turn
        host.waits.wait.turn_since = now
        host.waits.wait.turn_left = None
        host.waits.wait.turn_away, host.waits.wait.paused_at = 0.0, None
        if turn is not None and not host.seat_connected(turn):
            pause_turn(host, now)


def pause_turn(host: ClockedTable, now: float) -> None:
    """The seat whose turn it is went away: its turn timer (and its bank) stop until it is back."""
    timer = host.state.rules.turn_timer
    used = max(now - host.waits.wait.turn_since, 0.0)
    host.waits.turn_used = used
    host.waits.wait.turn_left = max(timer - used, 0.0) if timer else 0.0
    host.waits.wait.paused_at = now


def resume_turn(host: ClockedTable, now: float) -> None:
    """The seat whose turn it is came back: its turn timer and bank run on from where they stopped."""
    wait = host.waits.wait
    wait.turn_since = now - host.waits.turn_used
    wait.turn_left = None
    if wait.paused_at is not None:  # the time away adds up over the turn (`_absent_at`)
        wait.turn_away += max(now - wait.paused_at, 0.0)
        wait.paused_at = None
