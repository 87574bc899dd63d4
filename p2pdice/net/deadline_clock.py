"""One table's clock: calls the sans-I/O host's `tick(now)` when the deadline its
`next_deadline(now)` names has come, on the running loop's monotonic clock.

The host leaves deadlines at or before `now` out of `next_deadline` (they were dealt with by
a tick, or the clock would spin), so the clock ticks whenever its wait ends, however it ended,
and plans the next wait from that same `now`. On a busy loop a deadline can pass between the
change that made it and the moment this task runs (six joins at once, each starting a 2 s
settle, behind TLS handshakes), or a wake-up from a change just after a deadline can reach
this task before the timer that says "time" does: planning without that tick lost the
deadline for good.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

log = logging.getLogger(__name__)


class DeadlineClock:
    def __init__(
        self,
        next_deadline: Callable[[float], float | None],
        tick: Callable[[float], None],
        *,
        name: str = "table-clock",
    ) -> None:
        self._next_deadline = next_deadline
        self._tick = tick
        self._name = name
        self._wake = asyncio.Event()
        self._waiting_for: float | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self._name)

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)

    def poke(self, now: float) -> None:
        """After a change that may have moved the next deadline: wake the clock only when it
        did (a bid on a table without a timer moves none), or when the deadline the clock
        waits for has come, so that it ticks now rather than after its timer."""
        if self._task is None:
            return
        waiting = self._waiting_for
        if (waiting is not None and now >= waiting) or self._next_deadline(now) != waiting:
            self._wake.set()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        deadline = self._waiting_for = self._next_deadline(loop.time())
        while True:
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout_at(deadline):  # None: wait for a wake-up only
                    await self._wake.wait()
            now = loop.time()
            try:
                self._tick(now)  # what came due, whether or not this wait was for it
            except Exception:  # a bug must not stop the table's clock for good
                log.exception("%s: the tick failed", self._name)
            # A wake-up the tick's own changes asked for is answered by this plan.
            deadline = self._waiting_for = self._next_deadline(now)
