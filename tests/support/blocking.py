"""Catching blocking calls on the event loop: asyncio's debug mode times every callback and
reports ("Executing <Handle ...> took 0.127 seconds") each that ran longer than the loop's
`slow_callback_duration`; `no_blocking_calls()` turns those reports into a test failure.

The bound, 0.05 s: a game's callbacks (a frame decoded, checked against the chain, signed and
sent; a bot's move) take at most about 8 ms here under asyncio debug mode, on a loaded machine
(two cores shared by several test runs; tests/net/test_blocking.py prints the slowest), so the
bound has a margin of about six over honest work and over scheduling jitter; what it must catch
is well above it: scrypt of a table password (about 0.13 s here, SPEC.md 3.4), an fsync on a
slow disk (0.1 s and more on an SD card), a sleep.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

#: Seconds a callback may run before it counts as blocking the loop (see above).
SLOW_CALLBACK = 0.05

_REPORT = re.compile(r"^Executing (?P<handle>.*) took (?P<seconds>[0-9.]+) seconds$", re.S)


@dataclass(frozen=True, slots=True)
class SlowCallback:
    handle: str  #: asyncio's description of the callback (its function and where it was made)
    seconds: float


@dataclass(slots=True)
class LoopWatch:
    """What one `watch_the_loop()` saw."""

    bound: float
    slow: list[SlowCallback] = field(default_factory=list)

    def report(self) -> str:
        lines = [f"{s.seconds:.3f} s  {s.handle}" for s in self.slow]
        return f"{len(self.slow)} callbacks blocked the loop over {self.bound} s:\n" + "\n".join(
            lines
        )


class _Collector(logging.Handler):
    def __init__(self, watch: LoopWatch) -> None:
        super().__init__(logging.WARNING)
        self.watch = watch

    def emit(self, record: logging.LogRecord) -> None:
        found = _REPORT.match(record.getMessage())
        if found is not None:
            self.watch.slow.append(SlowCallback(found["handle"], float(found["seconds"])))


@contextlib.asynccontextmanager
async def watch_the_loop(bound: float = SLOW_CALLBACK) -> AsyncIterator[LoopWatch]:
    """Run the body with the running loop in debug mode, collecting every callback that ran
    longer than `bound` seconds; the loop's settings are restored after."""
    loop = asyncio.get_running_loop()
    watch = LoopWatch(bound)
    collector = _Collector(watch)
    asyncio_log = logging.getLogger("asyncio")
    saved = loop.get_debug(), loop.slow_callback_duration, asyncio_log.level
    asyncio_log.addHandler(collector)
    asyncio_log.setLevel(logging.WARNING)  # the reports are warnings; a quieter level hides them
    loop.set_debug(True)
    loop.slow_callback_duration = bound
    try:
        yield watch
        await asyncio.sleep(0)  # ends the body's last step, so that it is timed too
    finally:
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
