"""The table's clock (net/deadline_clock.py) on a real event loop: every deadline the host
names is ticked once it has come, however the clock's wait ends.

The host leaves past deadlines out of `next_deadline`, so a deadline the clock re-plans past
without ticking is lost for good: in a soak a table whose two players joined within a few
milliseconds of each other never started, nor a benchmark's six seats that joined at once
(the start waits for strangers' joins to settle).
"""

from __future__ import annotations

import asyncio
import time

from p2pdice.net.deadline_clock import DeadlineClock


class Deadlines:
    """Deadlines kept as the host keeps them: `next_deadline` names the earliest still ahead
    of `now`, and a tick deals with every one that has come."""

    def __init__(self, *deadlines: float, fail_first: bool = False) -> None:
        self.pending = sorted(deadlines)
        self.ticked: list[float] = []
        self.fail_first = fail_first

    def next_deadline(self, now: float) -> float | None:
        ahead = [d for d in self.pending if d > now]
        return min(ahead) if ahead else None

    def tick(self, now: float) -> None:
        if self.fail_first:
            self.fail_first = False
            raise RuntimeError("a bug in one tick")
        self.ticked += [d for d in self.pending if d <= now]
        self.pending = [d for d in self.pending if d > now]


async def settle(deadlines: Deadlines, want: int, within: float = 2.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + within
    while len(deadlines.ticked) < want and loop.time() < end:
        await asyncio.sleep(0.01)


async def test_a_deadline_passed_on_a_busy_loop_is_ticked_though_a_change_woke_the_clock() -> None:
    loop = asyncio.get_running_loop()
    due = loop.time() + 0.05
    deadlines = Deadlines(due)
    clock = DeadlineClock(deadlines.next_deadline, deadlines.tick)
    clock.start()
    await asyncio.sleep(0)  # the clock now waits for `due`

    def busy_then_change() -> None:
        # The loop is held past `due` by other work, which then changes the table: the
        # clock's wake-up is queued before the timer that says `due` has come.
        time.sleep(0.08)
        clock.poke(loop.time())

    loop.call_soon(busy_then_change)
    await settle(deadlines, 1)
    await clock.stop()
    assert deadlines.ticked == [due]


async def test_a_deadline_that_passes_before_the_woken_clock_runs_is_ticked() -> None:
    loop = asyncio.get_running_loop()
    deadlines = Deadlines()
    clock = DeadlineClock(deadlines.next_deadline, deadlines.tick)
    clock.start()
    await asyncio.sleep(0)  # the clock waits with no deadline

    def change_then_busy() -> None:
        # A change makes a deadline 10 ms ahead and wakes the clock; the loop is then held
        # past it before the clock runs (joins behind TLS handshakes), so by the time the
        # clock plans, the host no longer names that deadline.
        deadlines.pending.append(loop.time() + 0.01)
        clock.poke(loop.time())
        time.sleep(0.05)

    loop.call_soon(change_then_busy)
    await settle(deadlines, 1)
    await clock.stop()
    assert len(deadlines.ticked) == 1 and not deadlines.pending


async def test_deadlines_are_ticked_in_turn_with_nothing_else_happening() -> None:
    now = asyncio.get_running_loop().time()
    deadlines = Deadlines(now + 0.02, now + 0.05)
    clock = DeadlineClock(deadlines.next_deadline, deadlines.tick)
    clock.start()
    await settle(deadlines, 2)
    await clock.stop()
    assert deadlines.ticked == [now + 0.02, now + 0.05] and not deadlines.pending


async def test_an_earlier_deadline_made_by_a_change_is_kept_after_a_poke() -> None:
    loop = asyncio.get_running_loop()
    late = loop.time() + 60
    deadlines = Deadlines(late)
    clock = DeadlineClock(deadlines.next_deadline, deadlines.tick)
    clock.start()
    await asyncio.sleep(0)
    soon = loop.time() + 0.03
    deadlines.pending = sorted([*deadlines.pending, soon])
    clock.poke(loop.time())
    await settle(deadlines, 1)
    await clock.stop()
    assert deadlines.ticked == [soon] and deadlines.pending == [late]


async def test_a_change_that_moves_no_deadline_does_not_wake_the_clock() -> None:
    loop = asyncio.get_running_loop()
    deadlines = Deadlines(loop.time() + 60)
    planned: list[float] = []
    clock = DeadlineClock(
        lambda now: planned.append(now) or deadlines.next_deadline(now), deadlines.tick
    )
    clock.start()
    await asyncio.sleep(0)
    for _ in range(50):
        clock.poke(loop.time())
        await asyncio.sleep(0)
    await clock.stop()
    # One plan at the start, and one look per poke; no re-planning wake-up among them.
    assert len(planned) == 1 + 50 and not deadlines.ticked


async def test_a_tick_that_fails_leaves_the_clock_running() -> None:
    now = asyncio.get_running_loop().time()
    deadlines = Deadlines(now + 0.02, now + 0.06, fail_first=True)
    clock = DeadlineClock(deadlines.next_deadline, deadlines.tick)
    clock.start()
    await settle(deadlines, 1)
    assert clock.running
    await clock.stop()
    # The next tick deals with the deadline the failed one left.
    assert deadlines.ticked == [now + 0.02, now + 0.06] and not clock.running
