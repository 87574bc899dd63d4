"""A seat that keeps the table waiting uses up its time bank and is handed to the host's moves
and a CPU: a signed `absent` act with reason `stalled` that verify checks and lists
(protocol/SPEC.md 7 and 8, RULES.md R8).

The host is driven by the in-memory harness with a fake clock; the staller is a connected,
caught-up seat whose player simply never chooses a move."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pdice.bots.protosim import Conn, LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core import host_clock
from p2pdice.core.errors import Reason
from p2pdice.core.events import make_event
from p2pdice.core.host import TIMER_SLACK
from p2pdice.core.rules import TIME_BANK_FREE_PER_TURN, FirstStarter, Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import build_entry
from p2pdice.core.verify import verify_lines

EASY = load_bot("easy")


class StallingTable(LocalTable):
    """The in-memory table where the player of `staller`'s own connection never moves (its
    stand-in, on another connection, plays as any CPU does)."""

    staller: Conn | None = None

    def _decide_one(self) -> bool:
        seat = self.seats.get(self.staller) if self.staller is not None else None
        if seat is None or not seat.connected:
            return super()._decide_one()
        seat.connected = False  # only while the others decide: it still receives everything
        try:
            return super()._decide_one()
        finally:
            seat.connected = True


def stalling_table(rules: Rules, staller_seat: int) -> StallingTable:
    lt = StallingTable(rules, [EASY] * rules.seats, rng=random.Random(3))
    lt.staller = staller_seat + 1  # connections are numbered from 1 in seat order
    lt.seat_everyone()
    return lt


def host_events(lt: LocalTable, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [
        (e.seq, e.event) for e in lt.host.entries if e.event is not None and e.event["type"] == kind
    ]


def test_a_seat_that_never_moves_is_out_of_time_after_its_bank_and_the_free_seconds() -> None:
    rules = Rules(seats=3, starting_dice=1, time_bank=60, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    assert lt.host.phase == TablePhase.BIDDING and lt.host.state.game.turn == 0
    start = lt.now
    due = start + TIME_BANK_FREE_PER_TURN + 60
    assert lt.host.next_deadline(lt.now) == due
    lt.now = due - 0.5
    lt._host_outputs(lt.host.tick(lt.now))
    lt.run_until_idle()
    assert host_events(lt, "absent") == []
    assert host_clock.bank_now(lt.host, 0, lt.now) == pytest.approx(0.5)
    lt.play(max_rounds=20)
    (seq, stalled), *_ = host_events(lt, "absent")
    assert (stalled["seat"], stalled["reason"], stalled["round"]) == (0, "stalled", 1)
    forced = [e for _, e in host_events(lt, "forced")]
    assert forced and forced[0]["seat"] == 0 and forced[0]["reason"] == "absent"
    assert lt.host.phase == TablePhase.OVER
    report = verify_lines(lt.host.lines())
    assert report.ok, report.failure
    assert report.stalls and report.stalls[0].startswith("P0 (seat 0) ran out of time in round 1")
    assert "the host moved for it" in report.stalls[0]
    assert [(w.index, w.seat, w.kind) for w in report.warnings] == [(seq, 0, "stalled")]


def test_only_the_time_beyond_the_free_seconds_of_each_turn_is_drawn_from_the_bank() -> None:
    rules = Rules(seats=2, starting_dice=3, time_bank=60, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    lt.staller = None  # it moves, but only when the test lets time pass first
    host = lt.host
    slow = TIME_BANK_FREE_PER_TURN + 20  # seconds the seat thinks on each of its turns
    for turn in range(1, 3):
        assert host.waits.wait.turn_seat == 0
        lt.now += slow
        lt.run_until_idle()  # it moves; the other seat answers at once
        assert host_clock.bank_left(host, 0) == pytest.approx(60 - 20 * turn)
        assert host_clock.bank_left(host, 1) == 60
        if host.state.phase != TablePhase.BIDDING:
            break
    assert host_events(lt, "absent") == []


def test_the_bank_stops_while_the_seat_is_away_and_its_grace_period_runs_instead() -> None:
    rules = Rules(seats=2, starting_dice=2, time_bank=60, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    start = lt.now
    lt.now = start + TIME_BANK_FREE_PER_TURN + 10  # 10 s of its bank used
    lt.disconnect(1)
    lt.run_until_idle()
    assert lt.host.next_deadline(lt.now) == lt.now + rules.grace_period
    lt.now += rules.grace_period - 1
    lt.reconnect(1)
    lt.run_until_idle()
    assert lt.host.next_deadline(lt.now) == pytest.approx(lt.now + 50)


def test_a_last_second_mover_on_a_timed_table_runs_out_within_a_few_turns() -> None:
    """It always moves just before the turn timer: each turn costs the bank 30 + slack - free."""
    rules = Rules(seats=2, starting_dice=5, turn_timer=30, time_bank=60)
    lt = stalling_table(rules, 0)
    for _ in range(200):
        if host_events(lt, "absent") or lt.host.phase == TablePhase.OVER:
            break
        lt.run_until_idle()
        if not lt.advance_clock():
            break
    (_, stalled), *_ = host_events(lt, "absent")
    assert (stalled["seat"], stalled["reason"]) == (0, "stalled")
    per_turn = 30 + TIMER_SLACK - TIME_BANK_FREE_PER_TURN
    timer_moves = [e for _, e in host_events(lt, "forced") if e["reason"] == "timer"]
    assert len(timer_moves) == int(60 // per_turn)  # then the bank, not the timer, ran out
    lt.play(max_rounds=20)
    assert verify_lines(lt.host.lines()).ok


def _forged_after(lt: LocalTable, index: int, event: dict[str, Any]) -> Any:
    entries = lt.host.entries
    forged = build_entry(
        lt.host.key, index, entries[index].prev, event=event, table=lt.host.table_id
    )
    return verify_lines([*lt.host.lines()[:index], forged.line], partial=True)


def _first_bidding_entry(lt: LocalTable) -> int:
    """The index just after the first beacon: the table waits for the starter's bid there."""
    return next(
        e.seq + 1 for e in lt.host.entries if e.event is not None and e.event["type"] == "beacon"
    )


@pytest.mark.parametrize(
    ("bank", "seat", "why"),
    [(0, 0, "without a time bank"), (60, 1, "not waiting for its move")],
)
def test_out_of_time_is_refused_without_a_bank_or_for_a_seat_not_on_turn(
    bank: int, seat: int, why: str
) -> None:
    rules = Rules(seats=2, starting_dice=1, time_bank=bank, first_starter=FirstStarter.SEAT0)
    lt = LocalTable(rules, [EASY, EASY], rng=random.Random(5))
    lt.seat_everyone()
    lt.play(max_rounds=5)
    index = _first_bidding_entry(lt)
    report = _forged_after(lt, index, make_event("absent", round=1, seat=seat, reason="stalled"))
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (index, Reason.BAD_EVENT)
    assert why in report.failure.detail


def test_a_table_without_a_bank_waits_for_a_silent_seat_as_before() -> None:
    rules = Rules(seats=2, starting_dice=1, time_bank=0, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    assert lt.host.next_deadline(lt.now) is None


def test_the_table_is_told_when_the_seat_on_turn_runs_out_once_its_bank_is_low() -> None:
    rules = Rules(seats=2, starting_dice=1, time_bank=60, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    assert lt.host.low_bank_deadline() is None  # 60 s left: nothing to show yet
    low = Rules(seats=2, starting_dice=1, time_bank=20, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(low, 0)
    start = lt.now
    assert host_clock.BANK_SHOWN > 20
    assert lt.host.low_bank_deadline() == start + TIME_BANK_FREE_PER_TURN + 20


def test_a_staller_who_comes_back_has_only_the_free_seconds_of_each_turn() -> None:
    rules = Rules(seats=2, starting_dice=3, time_bank=30, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    came_back: list[bool] = []

    def reconnect_after_the_stand_in(conn: Conn, line: bytes) -> bytes:
        if conn == 1 and b'"type":"stand_in"' in line and not came_back:
            came_back.append(True)
            lt.disconnect(1)  # its player is back: the client reconnects with its own key
            lt.reconnect(1)
        return line

    lt.on_deliver = reconnect_after_the_stand_in
    checked = 0
    for _ in range(400):  # bounded: until seat 0 is stalled a second time, or the game ends
        lt.run_until_idle()
        if len(host_events(lt, "absent")) == 2 or lt.host.phase == TablePhase.OVER:
            break
        if host_events(lt, "return") and lt.host.waits.wait.turn_seat == 0:
            assert lt.host.next_deadline(lt.now) == pytest.approx(
                lt.host.waits.wait.turn_since + TIME_BANK_FREE_PER_TURN
            )
            checked += 1
        lt.advance_clock()
    assert came_back and host_events(lt, "return") and checked
    assert [e["reason"] for _, e in host_events(lt, "absent")] == ["stalled", "stalled"]
    lt.play(max_rounds=20)
    report = verify_lines(lt.host.lines())
    assert report.ok, report.failure
    first, second = report.stalls
    assert "a CPU played for it from round 2" in first and "it came back in round" in first
    assert second.startswith("P0 (seat 0) ran out of time in round")


def test_out_of_time_is_refused_for_a_cpu_the_host_runs() -> None:
    rules = Rules(seats=2, starting_dice=1, first_starter=FirstStarter.SEAT0)
    lt = LocalTable(rules, [EASY, EASY], rng=random.Random(5), host_cpu=1)
    lt.seat_everyone()
    lt.play(max_rounds=5)
    assert lt.host.state.roster[1].host_run
    # Just after seat 0's opening bid the table waits for seat 1, the host's own CPU.
    index = next(
        e.seq + 1
        for e in lt.host.entries
        if e.msg is not None and e.msg.type == "bid" and e.msg.seat == 0
    )
    report = _forged_after(lt, index, make_event("absent", round=1, seat=1, reason="stalled"))
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (index, Reason.BAD_EVENT)
    assert "a CPU the host runs" in report.failure.detail
