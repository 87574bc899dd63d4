"""A browser stopped while names wait for a lookup (a busy network, a flood): each cancelled
lookup's cleanup started the next waiting one, on a zeroconf already closed, and asyncio
printed "Task exception was never retrieved" with a NotRunningException traceback for each
(on the terminal at the end of `browse` and `join NAME`)."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from zeroconf import ServiceStateChange

from p2pdice.net.discovery import MAX_RESOLVING, SERVICE_TYPE, Browser, new_zeroconf

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_browser_stopped_with_names_waiting_leaves_no_failed_task() -> None:
    loop = asyncio.get_running_loop()
    failures: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: failures.append(context))
    try:
        azc = new_zeroconf()
        browser = Browser(azc)
        await browser.start()
        for i in range(3 * MAX_RESOLVING):  # names nobody answers for: lookups of 3 s
            name = f"Nobody {i}.{SERVICE_TYPE}"
            browser._on_change(azc.zeroconf, SERVICE_TYPE, name, ServiceStateChange.Added)
        await asyncio.sleep(0.2)
        await browser.stop()
        await azc.async_close()
        await asyncio.sleep(0.5)
        gc.collect()  # a task whose exception was never retrieved is reported when collected
        await asyncio.sleep(0.1)
    finally:
        loop.set_exception_handler(None)
    assert [c.get("message") for c in failures] == []
