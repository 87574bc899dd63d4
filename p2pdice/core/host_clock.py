"""The host's sense of time: deadlines, and what each phase does when one passes.

HostTable owns one HostClock: `host.py` reacts to what connections send, this module reacts
to `now` (protocol/SPEC.md 8) and keeps the waits that never reach the log. Nothing here reads a
clock; the adapter passes `now` in and asks `next_deadline(now)` when to call `tick` again.
"""

from __future__ import annotations

from typing import Any, Protocol

from .events import make_event
from .game import Phase, blind_action
from .host_outputs import Conn, NeedStandIn, Output, RetireStandIn, _Waiting
from .messages import Message
from .table import (
    TablePhase,
    TableState,
    action_json,
    expected_beacon,
    expected_forfeit,
    expected_result,
    expected_roster,
    expected_round,
    game_over_reason,
    result_decided,
    void_limit,
)

COMMIT_WAIT = 15.0  #: seconds a connected seat has to commit before the attempt is aborted
ACK_WAIT = 5.0  #: seconds to wait for acknowledgements before moving on
TIMER_SLACK = 2.0  #: extra seconds the host gives a client's own timer move before forcing
STRIKES_TO_ABSENT = 2  #: aborts blamed on one seat before it is declared absent


class ClockedTable(Protocol):
    """What the clock acts through: the host table that owns it."""

    @property
    def state(self) -> TableState: ...

    def seat_connected(self, seat: int) -> bool: ...

    def _post_event(self, event: dict[str, Any], now: float) -> list[Output]: ...

    def _post_msg(self, conn: Conn | None, msg: Message, now: float) -> list[Output]: ...


class HostClock:
    """The host's waits and what it does when one runs out, for one HostTable (which owns it
    and posts what it decides)."""

    def __init__(self, table: ClockedTable, now: float) -> None:
        self.table = table
        self.wait = _Waiting(since=now)  #: the current phase's waits (reset on each phase)
        self.gone_since: dict[int, float] = {}  #: seat -> when its last connection went
        self.strikes: dict[int, int] = {}  #: aborts blamed on each seat
        self.returning: set[int] = set()  #: absent seats back with their own key
        self.awaiting_stand_in: set[int] = set()  #: seats whose stand-in the adapter owes
        #: Seats whose acknowledgement a resumed host still waits for although they have not
        #: reconnected yet: theirs may have died with the old process, and a resent one must
        #: not find the round gone (verify --mine would call it dropped).
        self.ack_grace: set[int] = set()

    @property
    def state(self) -> TableState:
        return self.table.state

    # ---- the clock -----------------------------------------------------------------------

    def next_deadline(self, now: float) -> float | None:
        """When `tick` should next be called, after `now` (None: nothing is timed).

        Deadlines at or before `now` were dealt with by the last `tick(now)` or wait on
        something else (another deadline, a reconnection); returning them would make the
        adapter's clock spin.
        """
        candidates = [self.gone_since[s] + self.grace for s in self.gone_since if self._matters(s)]
        phase, wait = self.state.phase, self.wait
        if phase == TablePhase.COMMIT:
            candidates.append(wait.since + COMMIT_WAIT)
        elif phase in (TablePhase.CONTRIBUTE, TablePhase.SHOWDOWN):
            candidates.append(wait.since + self.grace)
        elif phase == TablePhase.RESULT:
            candidates.append(wait.since + ACK_WAIT)
        if wait.turn_seat is not None and wait.turn_left is None and self.state.rules.turn_timer:
            candidates.append(wait.turn_since + self.state.rules.turn_timer + TIMER_SLACK)
        future = [c for c in candidates if c > now]
        return min(future) if future else None

    def turn_deadline(self) -> tuple[int | None, float | None]:
        """Whose move the table waits for, and when its turn timer runs out (None: no timer or paused)."""
        wait = self.wait
        timer = self.state.rules.turn_timer
        if wait.turn_seat is None or not timer or wait.turn_left is not None:
            return wait.turn_seat, None
        return wait.turn_seat, wait.turn_since + timer

    @property
    def grace(self) -> float:
        return float(self.state.rules.grace_period)

    def _matters(self, seat: int) -> bool:
        game = self.state.game
        return (
            game is not None
            and seat < len(game.dice)
            and game.dice[seat] > 0
            and seat not in self.state.absent
        )

    def tick(self, now: float) -> list[Output]:
        """Do whatever is due at `now`: post sets, decide rounds, declare absences, force moves."""
        outputs: list[Output] = []
        for _ in range(64):  # each step posts at most one entry; the loop ends when nothing is due
            step = self._step(now)
            if not step:
                break
            outputs += step
        return outputs

    def _gone_too_long(self, seat: int, now: float) -> bool:
        since = self.gone_since.get(seat)
        return since is not None and now >= since + self.grace

    def _declare_absent(self, now: float) -> list[Output] | None:
        state, game = self.state, self.state.game
        if game is None or state.phase in (TablePhase.LOBBY, TablePhase.OVER):
            return None
        for seat in game.survivors:
            if seat not in state.absent and self._gone_too_long(seat, now):
                return self._post_absent(seat, "grace_expired", now)
        return None

    def _post_absent(self, seat: int, reason: str, now: float) -> list[Output]:
        game = self.state.game
        assert game is not None
        return self.table._post_event(
            make_event("absent", round=game.round, seat=seat, reason=reason), now
        )

    def _absent_first_silent(self, missing: list[int], now: float) -> list[Output] | None:
        """Declare the first seat of `missing` not yet absent; None when all of them are."""
        for seat in missing:
            if seat not in self.state.absent:
                return self._post_absent(seat, "no_reply", now)
        return None

    def _step(self, now: float) -> list[Output]:
        absent = self._declare_absent(now)
        if absent:
            return absent
        handler = {
            TablePhase.BETWEEN: self._step_between,
            TablePhase.COMMIT: self._step_commit,
            TablePhase.CONTRIBUTE: self._step_contribute,
            TablePhase.BIDDING: self._step_bidding,
            TablePhase.SHOWDOWN: self._step_showdown,
            TablePhase.RESULT: self._step_result,
        }.get(self.state.phase)
        return handler(now) if handler else []

    def maybe_start(self, now: float) -> list[Output]:
        """Post the start event once every seat is taken."""
        state = self.state
        if state.phase != TablePhase.LOBBY or len(state.joins) != state.rules.seats:
            return []
        return self.table._post_event(make_event("start", roster=expected_roster(state)), now)

    def _step_between(self, now: float) -> list[Output]:
        state, game = self.state, self.state.game
        assert game is not None
        for seat in sorted(self.returning):
            self.returning.discard(seat)
            if seat in state.absent:
                outputs = self.table._post_event(
                    make_event("return", round=game.round, seat=seat), now
                )
                if seat in self.awaiting_stand_in or seat in state.stand_ins:
                    self.awaiting_stand_in.discard(seat)
                    outputs.append(RetireStandIn(seat))
                return outputs
        for seat in game.survivors:
            if seat in state.absent and seat not in state.stand_ins:
                if seat not in self.awaiting_stand_in:
                    self.awaiting_stand_in.add(seat)
                    return [NeedStandIn(seat)]
                return []  # the adapter has not installed it yet
        return self.table._post_event(make_event("round", **expected_round(state)), now)

    def install_stand_in(self, seat: int, public_key: bytes, now: float) -> list[Output]:
        """The adapter created the stand-in peer the host asked for."""
        state, game = self.state, self.state.game
        if seat not in self.awaiting_stand_in or game is None or state.phase != TablePhase.BETWEEN:
            return []
        self.awaiting_stand_in.discard(seat)
        event = make_event("stand_in", round=game.round, seat=seat, key=public_key)
        return [*self.table._post_event(event, now), *self.tick(now)]

    def _step_commit(self, now: float) -> list[Output]:
        attempt = self.state.attempt
        assert attempt is not None
        commits = self.wait.commits
        if all(s in commits for s in attempt.seats):
            raws = [commits[s].to_json() for s in attempt.seats]
            return self.table._post_event(
                make_event(
                    "commit_set", round=attempt.round, attempt=attempt.attempt, commits=raws
                ),
                now,
            )
        missing = [s for s in attempt.seats if s not in commits]
        waiting_for_return = any(
            s in self.gone_since and not self._gone_too_long(s, now) for s in missing
        )
        if now < self.wait.since + COMMIT_WAIT or waiting_for_return:
            return []
        for seat in missing:
            self.strikes[seat] = self.strikes.get(seat, 0) + 1
        outputs = self.table._post_event(
            make_event(
                "abort",
                round=attempt.round,
                attempt=attempt.attempt,
                missing=missing,
                reason="commit_timeout",
            ),
            now,
        )
        for seat in missing:
            if self.strikes[seat] >= STRIKES_TO_ABSENT and seat not in self.state.absent:
                self.strikes[seat] = 0
                outputs += self._post_absent(seat, "no_reply", now)
        return outputs

    def _step_contribute(self, now: float) -> list[Output]:
        attempt = self.state.attempt
        assert attempt is not None
        got = self.wait.contributions
        if all(s in got for s in attempt.seats):
            ts = [got[s].bytes_field("contribution") for s in attempt.seats]
            r, starter = expected_beacon(self.state, ts)
            return self.table._post_event(
                make_event(
                    "beacon",
                    round=attempt.round,
                    attempt=attempt.attempt,
                    contributions=[got[s].to_json() for s in attempt.seats],
                    beacon=r,
                    starter=starter,
                ),
                now,
            )
        missing = [s for s in attempt.seats if s not in got]
        if now < self.wait.since + self.grace:
            return []
        absent = self._absent_first_silent(missing, now)
        if absent is not None:
            return absent
        if self.state.voids >= void_limit(self.state):
            return self.abandon(now)  # no more voids: the game cannot go on (SPEC.md 8)
        return self._forfeit(missing, "no_contribution", now)

    def _forfeit(self, seats: list[int], reason: str, now: float) -> list[Output]:
        attempt = self.state.attempt
        assert attempt is not None
        return self.table._post_event(
            make_event(
                "forfeit",
                round=attempt.round,
                attempt=attempt.attempt,
                seats=seats,
                reason=reason,
                **expected_forfeit(self.state, seats),
            ),
            now,
        )

    def _step_bidding(self, now: float) -> list[Output]:
        game = self.state.game
        assert game is not None and game.turn is not None
        seat = game.turn
        if seat in self.state.absent and seat not in self.state.stand_ins:
            return self._force(seat, "absent", now)
        if self._timer_expired(now):
            return self._force(seat, "timer", now)
        return []

    def _timer_expired(self, now: float) -> bool:
        timer = self.state.rules.turn_timer
        wait = self.wait
        return (
            bool(timer) and wait.turn_left is None and now >= wait.turn_since + timer + TIMER_SLACK
        )

    def _force(self, seat: int, reason: str, now: float) -> list[Output]:
        game = self.state.game
        assert game is not None
        if self.state.phase == TablePhase.RESULT:
            action: dict[str, Any] = {"type": "next_round"}
        else:
            action = action_json(blind_action(game, seat))
        return self.table._post_event(
            make_event("forced", round=game.round, seat=seat, reason=reason, action=action), now
        )

    def _step_showdown(self, now: float) -> list[Output]:
        state, attempt = self.state, self.state.attempt
        assert attempt is not None
        missing = [s for s in attempt.seats if s not in attempt.openings]
        if not missing:
            return self.table._post_event(make_event("result", **expected_result(state)), now)
        if all(s in state.absent and s not in state.stand_ins for s in missing):
            if result_decided(state):
                return self.table._post_event(make_event("result", **expected_result(state)), now)
            return self._forfeit(missing, "no_opening", now)
        if now < self.wait.since + self.grace:
            return []
        return self._absent_first_silent(missing, now) or []

    def _step_result(self, now: float) -> list[Output]:
        state, game = self.state, self.state.game
        assert game is not None
        acked = all(
            s in state.acks or not (self.table.seat_connected(s) or s in self.ack_grace)
            for s in range(len(game.dice))
        )
        settled = acked or now >= self.wait.since + ACK_WAIT
        if settled:
            self.ack_grace.clear()
        if game.phase == Phase.GAME_OVER:
            if settled:
                reason = game_over_reason(state)
                return self.table._post_event(
                    make_event("game_over", ranking=list(game.ranking), reason=reason), now
                )
            return []
        if not settled:
            return []
        held = self.wait.next_round
        if held is not None:
            self.wait.next_round = None
            return self.table._post_msg(self.wait.next_round_conn, held, now)
        starter = game.next_starter
        assert starter is not None
        if starter in state.absent and starter not in state.stand_ins:
            return self._force(starter, "absent", now)
        if self._timer_expired(now):
            return self._force(starter, "timer", now)
        return []

    def abandon(self, now: float) -> list[Output]:
        """End the game early (the host is shutting down). The log says so."""
        if self.state.phase == TablePhase.OVER:
            return []
        game = self.state.game
        ranking = list(game.ranking) if game is not None else []
        # Stopped in the seconds between the final result and its game-over entry: finished
        # when the game has its winner.
        reason = game_over_reason(self.state)
        return self.table._post_event(make_event("game_over", ranking=ranking, reason=reason), now)

    def after_change(self, before: TableState, now: float) -> None:
        """The table moved on from `before`: restart the phase's waits and the turn timer."""
        state = self.state
        if state.phase != before.phase:
            self.wait = _Waiting(since=now)
        game = state.game
        turn = game.turn if game is not None and state.phase == TablePhase.BIDDING else None
        if state.phase == TablePhase.RESULT and game is not None and game.phase != Phase.GAME_OVER:
            turn = game.next_starter
        if turn != self.wait.turn_seat or state.phase != before.phase:
            self.wait.turn_seat = turn
            self.wait.turn_since = now
            self.wait.turn_left = None
            if turn is not None and not self.table.seat_connected(turn):
                self.pause_turn(now)

    def pause_turn(self, now: float) -> None:
        """The seat whose turn it is went away: its turn timer stops until it is back."""
        timer = self.state.rules.turn_timer
        if timer:
            used = now - self.wait.turn_since
            self.wait.turn_left = max(timer - used, 0.0)
        else:
            self.wait.turn_left = 0.0

    def resume_turn(self, now: float) -> None:
        """The seat whose turn it is came back: its turn timer runs on from where it stopped."""
        timer = self.state.rules.turn_timer
        left = self.wait.turn_left or 0.0
        self.wait.turn_since = now - (timer - left) if timer else now
        self.wait.turn_left = None
