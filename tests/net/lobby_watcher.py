"""A lobby left open while tables are announced, run as a process in a namespace:
`python -m tests.net.lobby_watcher SECONDS SEARCH`.

The real lobby (`cli.lobby.CliLobby`: mDNS browsing and liveness probes) fills a real
controller's book, and every refresh draws the whole lobby screen as the terminal would.
After SECONDS it prints one JSON line: what the book lists, the rows a search for SEARCH
shows, and what the watch cost (CPU seconds, peak memory, screens drawn).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

from p2pdice.cli.lobby import CliLobby
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import render_screen
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState


def peak_rss_mib() -> float:
    """This program's own peak memory: VmHWM of its address space. (getrusage's ru_maxrss
    survives exec, so it would count the memory of the test process this one was forked
    from: hundreds of MiB late in a full run.)"""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def row_json(row: object) -> dict:
    keys = ("name", "where", "seats", "phase", "short_id", "group", "count")
    return {k: getattr(row, k, None) for k in keys}


async def watch(seconds: float, search: str) -> dict:
    drawn = 0
    c: Controller

    def draw() -> None:
        nonlocal drawn
        drawn += 1
        render_screen(c, 80, 24)

    c = Controller(UiState(screen="lobby", from_lobby=True), invalidate=draw)
    with tempfile.TemporaryDirectory() as home:
        services = CliLobby(Path(home))
        LobbyActions(c, services)
        cpu0, wall0 = time.process_time(), time.monotonic()
        services.start_browsing(c)
        await asyncio.sleep(seconds)
        cpu = time.process_time() - cpu0
        wall = time.monotonic() - wall0
        book = c.ui.book
        listed = book.rows()
        if hasattr(book, "search"):
            book.search(search)
            found = book.rows()
        else:  # a lobby without search: the rows a reader scans for the name
            found = [r for r in listed if search.lower() in r.name.lower()]
        await services.stop()
    heard: dict[str, list[int]] = {}
    for entry in book.entries.values():  # tables listed, and of them probed, by address
        counts = heard.setdefault(entry.address, [0, 0])
        counts[0] += 1
        counts[1] += entry.probed_at is not None
    return {
        "entries": len(book.entries),
        "heard": heard,
        "rows": [row_json(r) for r in listed],
        "found": [row_json(r) for r in found],
        "cpu_share": cpu / wall,
        "max_rss_mib": peak_rss_mib(),
        "drawn": drawn,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(watch(float(sys.argv[1]), sys.argv[2]))), flush=True)
