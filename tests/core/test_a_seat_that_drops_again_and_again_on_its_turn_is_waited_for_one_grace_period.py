"""A seat on its turn that drops its connection, comes back for a moment before its grace
period ends and drops again, over and over, held the table for ever: each return started a
fresh grace period, and its turn timer and time bank run only while it is connected (SPEC.md
8), so neither ever ran out. The time a seat spends away during its turn now adds up: it is
declared absent once it has been away a grace period in all, as one that stays away is.

The host is driven by the in-memory harness with a fake clock (as in
test_a_seat_out_of_time_is_handed_to_a_cpu.py); the flapping seat's player never moves."""

from __future__ import annotations

from typing import Any

import pytest

from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines
from tests.core.test_a_seat_out_of_time_is_handed_to_a_cpu import host_events, stalling_table


def flap(lt: Any, conn: int, away: float, times: int) -> None:
    """`times` drops of `away` seconds each, back for a tenth of a second in between."""
    for _ in range(times):
        lt.disconnect(conn)
        lt.run_until_idle()
        lt.now += away
        lt._host_outputs(lt.host.tick(lt.now))
        lt.run_until_idle()
        if host_events(lt, "absent"):
            return
        lt.reconnect(conn)
        lt.run_until_idle()
        lt.now += 0.1
        lt._host_outputs(lt.host.tick(lt.now))
        lt.run_until_idle()


@pytest.mark.parametrize("time_bank", [180, 0])
def test_a_seat_that_keeps_dropping_on_its_turn_is_declared_absent(time_bank: int) -> None:
    rules = Rules(seats=2, starting_dice=2, time_bank=time_bank, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    assert lt.host.phase == TablePhase.BIDDING and lt.host.state.game.turn == 0
    start = lt.now
    flap(lt, 1, rules.grace_period - 1, times=20)  # 20 drops of 29 s: ten minutes away
    absent = host_events(lt, "absent")
    assert absent, "the seat held its turn for ever by coming back for a moment"
    (_, event), *_ = absent
    assert (event["seat"], event["reason"]) == (0, "grace_expired")
    # Away a grace period in all (and the few tenths it was back), not twenty.
    assert lt.now - start <= 2 * rules.grace_period + 1
    lt.play(max_rounds=20)
    assert lt.host.phase == TablePhase.OVER
    report = verify_lines(lt.host.lines())
    assert report.ok, report.failure


def test_a_seat_that_drops_once_on_its_turn_still_has_its_whole_grace_period() -> None:
    """One drop (a Wi-Fi hiccup) is waited for a whole grace period, as before; back for an
    instant and gone again, only what is left of it remains."""
    rules = Rules(seats=2, starting_dice=2, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    lt.disconnect(1)
    lt.run_until_idle()
    assert lt.host.next_deadline(lt.now) == pytest.approx(lt.now + rules.grace_period)
    lt.now += rules.grace_period - 1
    lt.reconnect(1)
    lt.run_until_idle()
    lt.disconnect(1)
    lt.run_until_idle()
    # Back for an instant: what is left of its grace period is one second.
    assert lt.host.next_deadline(lt.now) == pytest.approx(lt.now + 1)
    assert host_events(lt, "absent") == []
