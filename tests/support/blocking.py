"""Catching blocking calls on the event loop: asyncio's debug mode times every callback and
reports ("Executing <Handle ...> took 0.127 seconds") each that ran longer than the loop's
`slow_callback_duration`; `no_blocking_calls()` turns those reports into a test failure.

asyncio names only the callback (a task's step, with the line it is suspended at after it),
not what blocked inside it, so a watcher thread also looks at the loop's thread while a
callback runs over the bound and keeps its stack: the failure shows the blocking call.

The bound, 0.08 s, measured: over whole games here, under asyncio debug mode on a loaded
machine (two cores shared by several test runs), the slowest callbacks that compute (a frame
checked against the chain, signed and sent; a bot's move) took 17 ms, and those that also
fsync a small file on this SSD (a player's round secrets) 25 ms; with the suite's four
workers on two cores a callback waits for a core too (54 ms seen once), so the bound is three
to five times those, and still under what it must catch: scrypt of a table password (0.13 s
here, SPEC.md 3.4), an fsync on a slow disk (0.1 s and more on an SD card).

A callback's time waiting for a core is not its own: on a loaded machine (a CI runner, the
suite's workers on two cores) a callback that computes 20 ms can take 80 ms of wall time
without blocking anything. Where Linux reports it (/proc/thread-self/schedstat: time on a core,
time runnable but waiting for one), that wait is taken off each callback's time before it is
held against the bound; what remains is computing and blocking (a sleep, an fsync, a lock),
which is what the bound is for.

While watching, the objects the test process held before are frozen out of the garbage
collector (gc.freeze): a full collection (Python's own, or the one a host makes after closing a
table) scans every object, and the test runner's heap (pytest, hypothesis, all the suite has
imported) is twice a host process's, so it would cost the runner's price, not a host's.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
import sys
import threading
import time
import traceback
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

#: Seconds a callback may run before it counts as blocking the loop (see above).
SLOW_CALLBACK = 0.08
#: Innermost frames of a blocked loop's stack shown in a report.
STACK_DEPTH = 8

_REPORT = re.compile(r"^Executing (?P<handle>.*) took (?P<seconds>[0-9.]+) seconds$", re.S)


@dataclass(frozen=True, slots=True)
class SlowCallback:
    handle: str  #: asyncio's description of the callback (its function and where it was made)
    seconds: float  #: wall time, as asyncio reported it
    waiting_for_a_core: float = 0.0  #: of which runnable but not running (other processes' time)

    @property
    def own_seconds(self) -> float:
        return self.seconds - self.waiting_for_a_core


@dataclass(slots=True)
class LoopWatch:
    """What one `watch_the_loop()` saw."""

    bound: float
    slow: list[SlowCallback] = field(default_factory=list)
    #: Callbacks over the bound in wall time only because they waited for a core.
    excused: list[SlowCallback] = field(default_factory=list)
    #: The loop thread's innermost frames, each time a callback was seen running over the bound.
    stacks: list[str] = field(default_factory=list)

    def report(self) -> str:
        lines = [f"{len(self.slow)} callbacks blocked the loop over {self.bound} s:"]
        lines += [
            f"{s.own_seconds:.3f} s ({s.seconds:.3f} s wall, {s.waiting_for_a_core:.3f} s "
            f"waiting for a core)  {s.handle}"
            for s in self.slow
        ]
        for stack in self.stacks:
            lines += ["", "the loop was found blocked here:", stack]
        return "\n".join(lines)


_SCHEDSTAT = "/proc/thread-self/schedstat"


def _runqueue_seconds() -> float | None:
    """This thread's total time runnable but waiting for a core, or None where not reported."""
    try:
        with open(_SCHEDSTAT, "rb") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class _RunqueueMeter:
    """Notes each callback's run-queue wait at its start, in the thread that runs it, by
    wrapping `asyncio.Handle._run` (the one place every callback passes); asyncio's slow-callback
    report is logged from that thread right after the callback, when the wait is read again."""

    def __init__(self) -> None:
        self._at_start = threading.local()
        self._original = asyncio.Handle._run

    def install(self) -> None:
        original, at_start = self._original, self._at_start

        def timed_run(handle: asyncio.Handle) -> None:
            at_start.value = _runqueue_seconds()
            original(handle)

        setattr(asyncio.Handle, "_run", timed_run)  # noqa: B010 (a private method replaced)

    def uninstall(self) -> None:
        setattr(asyncio.Handle, "_run", self._original)  # noqa: B010

    def waited_since_start(self) -> float:
        start, now = getattr(self._at_start, "value", None), _runqueue_seconds()
        return 0.0 if start is None or now is None else max(0.0, now - start)


class _Collector(logging.Handler):
    def __init__(self, watch: LoopWatch, meter: _RunqueueMeter) -> None:
        super().__init__(logging.WARNING)
        self.watch = watch
        self.meter = meter

    def emit(self, record: logging.LogRecord) -> None:
        found = _REPORT.match(record.getMessage())
        if found is None:
            return
        slow = SlowCallback(
            found["handle"], float(found["seconds"]), self.meter.waited_since_start()
        )
        (self.watch.slow if slow.own_seconds >= self.watch.bound else self.watch.excused).append(
            slow
        )


class _StackSampler(threading.Thread):
    """Looks at the loop every quarter of the bound; a callback still running after the
    bound has the loop thread's stack kept, once."""

    def __init__(self, loop: asyncio.AbstractEventLoop, watch: LoopWatch) -> None:
        super().__init__(name="loop-stack-sampler", daemon=True)
        self.loop = loop
        self.watch = watch
        self.loop_thread = threading.get_ident()
        self.done = threading.Event()

    def run(self) -> None:
        running: object = None
        since, kept = 0.0, False
        while not self.done.wait(self.watch.bound / 4):
            # In debug mode the loop names the callback it is running (CPython's BaseEventLoop).
            handle = getattr(self.loop, "_current_handle", None)
            now = time.monotonic()
            if handle is not running:
                running, since, kept = handle, now, False
            elif handle is not None and not kept and now - since >= self.watch.bound:
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    frames = traceback.extract_stack(frame)[-STACK_DEPTH:]
                    self.watch.stacks.append("".join(traceback.format_list(frames)).rstrip())
                kept = True


@contextlib.asynccontextmanager
async def watch_the_loop(bound: float = SLOW_CALLBACK) -> AsyncIterator[LoopWatch]:
    """Run the body with the running loop in debug mode, collecting every callback that ran
    longer than `bound` seconds and where it blocked; the loop's settings are restored after."""
    loop = asyncio.get_running_loop()
    watch = LoopWatch(bound)
    meter = _RunqueueMeter()
    collector = _Collector(watch, meter)
    sampler = _StackSampler(loop, watch)
    asyncio_log = logging.getLogger("asyncio")
    saved = loop.get_debug(), loop.slow_callback_duration, asyncio_log.level
    asyncio_log.addHandler(collector)
    asyncio_log.setLevel(logging.WARNING)  # the reports are warnings; a quieter level hides them
    loop.set_debug(True)
    loop.slow_callback_duration = bound
    meter.install()
    sampler.start()
    gc.freeze()
    try:
        yield watch
        await asyncio.sleep(0)  # ends the body's last step, so that it is timed too
    finally:
        gc.unfreeze()
        meter.uninstall()
        sampler.done.set()
        sampler.join()  # at most a quarter of the bound
        loop.set_debug(saved[0])
        loop.slow_callback_duration = saved[1]
        asyncio_log.setLevel(saved[2])
        asyncio_log.removeHandler(collector)


@contextlib.asynccontextmanager
async def no_blocking_calls(bound: float = SLOW_CALLBACK) -> AsyncIterator[LoopWatch]:
    """`watch_the_loop()` that fails the test, listing them, when any callback blocked."""
    async with watch_the_loop(bound) as watch:
        yield watch
    assert not watch.slow, watch.report()
