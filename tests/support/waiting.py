"""Polling an in-process host until a condition holds, for tests that share its event loop.

`faults.until` does the same for real processes and names what it waited for; this one keeps
the short form the in-process net tests use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


async def until(condition: Callable[[], object], timeout: float = 20.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def reached(condition: Callable[[], object], timeout: float) -> bool:
    """Whether `condition` came true within `timeout` seconds (for tests that say what
    failed in their own assertion message)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.05)
    return bool(condition())
