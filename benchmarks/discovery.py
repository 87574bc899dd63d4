"""Discovery: from `p2pdice host` starting to its table showing in a browser.

Two ways, several times each, on the private loopback (real multicast DNS on `lo`):

- browser first: a `p2pdice.net.discovery.Browser` (in this process) is already listening
  when `p2pdice host --headless --bind 127.0.0.1` is started; the time is from starting the
  host process to the browser's "added" event for that table;
- browser after: the host is started and has printed its ready line (its record is
  registered), then a new browser starts, as `p2pdice browse` / `browse_once` does; the
  time is from starting the browser to its "added" event (and, also reported, from starting
  the host).

Baseline, same run: the "browser first" measurement for a minimal process that only imports
python-zeroconf and registers a record of the same type (`benchmarks.zc_announce`): what
mDNS probing and Python start-up cost with none of p2pdice.

    python -m benchmarks.discovery [--quick] [--json]
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from p2pdice.net.discovery import Browser, new_zeroconf

from . import common
from .common import figure, python_module, spawn, stats


def host_cmd(name: str, home: Path) -> list[str]:
    return python_module(
        "p2pdice", "host", "--headless", "--bind", "127.0.0.1", "--seats", "2",
        "--name", name, "--home", str(home), "--json",
    )  # fmt: skip


async def wait_added(browser: Browser, name: str, timeout: float = 20.0) -> float:
    """time.monotonic() of the first "added" event for table `name`."""

    async def wait() -> float:
        async for event in browser.events():
            if event.kind == "added" and event.table.name == name:
                return time.monotonic()
        raise AssertionError("unreachable")

    return await asyncio.wait_for(wait(), timeout)


async def browser_first(folder: Path, cmd_of: Any, reps: int) -> list[float]:
    azc = new_zeroconf()
    browser = Browser(azc)
    await browser.start()
    out = []
    try:
        await asyncio.sleep(0.5)
        for rep in range(reps):
            name = f"bench-{uuid.uuid4().hex[:8]}"
            started = time.monotonic()
            proc = spawn(cmd_of(name, folder / f"first{rep}"), stdout_pipe=True)
            try:
                found = await wait_added(browser, name)
                out.append(found - started)
            finally:
                await asyncio.to_thread(common.stop, proc)
            await asyncio.sleep(0.3)
    finally:
        await browser.stop()
        await azc.async_close()
    return out


async def browser_after(folder: Path, reps: int) -> tuple[list[float], list[float]]:
    from_browse, from_host = [], []
    for rep in range(reps):
        name = f"bench-{uuid.uuid4().hex[:8]}"
        started = time.monotonic()
        proc = spawn(host_cmd(name, folder / f"after{rep}"), stdout_pipe=True)
        try:
            await asyncio.to_thread(common.read_json_line, proc)
            browse_start = time.monotonic()
            azc = new_zeroconf()
            browser = Browser(azc)
            await browser.start()
            try:
                found = await wait_added(browser, name)
            finally:
                await browser.stop()
                await azc.async_close()
            from_browse.append(found - browse_start)
            from_host.append(found - started)
        finally:
            await asyncio.to_thread(common.stop, proc)
        await asyncio.sleep(0.3)
    return from_browse, from_host


def announce_cmd(name: str, home: Path) -> list[str]:
    return python_module("benchmarks.zc_announce", name)


async def measure(folder: Path, reps: int) -> dict[str, list[float]]:
    first = await browser_first(folder, host_cmd, reps)
    after_browse, after_host = await browser_after(folder, reps)
    base = await browser_first(folder, announce_cmd, reps)
    return {"first": first, "after": after_browse, "after_host": after_host, "base": base}


def run(*, quick: bool = False) -> dict[str, Any]:
    reps = 3 if quick else 10
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-discovery-") as tmp:
        got = asyncio.run(measure(Path(tmp), reps))
    base = stats(got["base"])
    what = "bare python-zeroconf process registering a record, browser first"
    figures = [
        figure(
            "discovery",
            "discovery: host start -> listed (browser first)",
            "s",
            stats(got["first"]),
            base,
            baseline_what=what,
            notes=f"{reps} repetitions",
        ),
        figure(
            "discovery",
            "discovery: browse start -> listed (host up)",
            "s",
            stats(got["after"]),
            notes=f"{reps} repetitions; host start -> listed: median "
            f"{common.percentile(got['after_host'], 0.5):.2f} s",
        ),
    ]
    text = [
        "discovery: host start -> listed by a browser started after it: median "
        f"{common.percentile(got['after_host'], 0.5):.2f} s, p99 "
        f"{common.percentile(got['after_host'], 0.99):.2f} s"
    ]
    return {"figures": figures, "details": {"seconds": got, "text": text}}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("discovery", run, argv, needs_network=True)


if __name__ == "__main__":
    sys.exit(main())
