"""Benchmark worker: the product's HostService in a process of its own, with a few extras.

Not a benchmark itself. It runs `p2pdice.net.hostapp.HostService` exactly as
`p2pdice host --headless --no-advertise` does (no CPU seats), and adds what the load
benchmarks need:

- `--max-connections N`: the per-table connection cap (the product's default is 64; the
  spectator benchmark needs 200 and more);
- `POST /bench/open`: open one more table (the load generator keeps 20 going this way);
- `GET /bench/stats`: entries posted so far, tables open and finished;
- `--record FILE`: when each entry was posted (seq, time.monotonic_ns()), written at exit.

Prints one JSON line when listening: {"port": ..., "urls": [...]}. Stops on SIGTERM, or
with `--until-over` once every table it opened has finished.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import signal
import sys
import tempfile
import time
from pathlib import Path

from aiohttp import web

from p2pdice.core.advert import LISTING_SCHEME, socket_url
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import Entry
from p2pdice.net.hostapp import HostedTable, HostService, TableConfig
from p2pdice.net.server import Limits

from .common import require_isolation


class BenchHost:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        home = Path(args.home or tempfile.mkdtemp(prefix="p2pdice-bench-host-"))
        self.service = HostService(
            home=home,
            bind="127.0.0.1",
            advertise=False,
            limits=Limits(max_connections=args.max_connections),
        )
        self.service.app.router.add_post("/bench/open", self._open)
        self.service.app.router.add_get("/bench/stats", self._stats)
        self.tables: list[HostedTable] = []
        self.posted: list[tuple[int, int, int]] = []  #: (table index, seq, t_ns)
        self.entries = 0
        self.all_over = asyncio.Event()

    def rules(self) -> Rules:
        return Rules(seats=self.args.seats, starting_dice=self.args.starting_dice)

    async def open_table(self) -> HostedTable:
        index = len(self.tables)
        table = await self.service.open_table(
            TableConfig(name=f"bench {index}", rules=self.rules())
        )
        self.tables.append(table)
        inner = table.server._on_entry
        record = self.args.record is not None

        def on_entry(entry: Entry) -> None:
            self.entries += 1
            if record:
                self.posted.append((index, entry.seq, time.monotonic_ns()))
            if inner is not None:
                inner(entry)

        table.server._on_entry = on_entry
        table.server.listeners.append(self._check_over)
        return table

    def url(self, table: HostedTable) -> str:
        return socket_url(f"127.0.0.1:{self.service.port}", table.path)

    def _check_over(self) -> None:
        if self.tables and all(t.host.phase == TablePhase.OVER for t in self.tables):
            self.all_over.set()

    async def _open(self, request: web.Request) -> web.Response:
        table = await self.open_table()
        return web.json_response({"url": self.url(table)})

    async def _stats(self, request: web.Request) -> web.Response:
        over = sum(1 for t in self.tables if t.host.phase == TablePhase.OVER)
        return web.json_response(
            {
                "entries": self.entries,
                "tables": len(self.tables),
                "over": over,
                "t": time.monotonic_ns(),
            }
        )


async def run(args: argparse.Namespace) -> BenchHost:
    bench = BenchHost(args)
    await bench.service.start()
    for _ in range(args.tables):
        await bench.open_table()
    print(
        json.dumps(
            {
                "port": bench.service.port,
                "host_url": f"{LISTING_SCHEME}://127.0.0.1:{bench.service.port}",
                "urls": [bench.url(t) for t in bench.tables],
            }
        ),
        flush=True,
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_signal_handler(signal.SIGINT, stop.set)
    waits = {asyncio.create_task(stop.wait())}
    if args.until_over:
        waits.add(asyncio.create_task(bench.all_over.wait()))
    await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in waits:
        task.cancel()
    if bench.all_over.is_set():
        await asyncio.sleep(0.5)  # as `p2pdice host` does: let the last entry reach everyone
    with contextlib.suppress(Exception):
        await asyncio.wait_for(bench.service.stop(), 10.0)
    return bench


def main(argv: list[str] | None = None) -> int:
    require_isolation()
    parser = argparse.ArgumentParser(prog="python -m benchmarks.hostproc")
    parser.add_argument("--tables", type=int, default=1)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--starting-dice", type=int, default=5)
    parser.add_argument("--max-connections", type=int, default=64)
    parser.add_argument("--until-over", action="store_true")
    parser.add_argument("--home")
    parser.add_argument("--record", help="write entry post times here at exit")
    parser.add_argument("--profile", help="write a cProfile of this process here")
    args = parser.parse_args(argv)
    profiler = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not wall
    if profiler is not None:
        profiler.enable()
    try:
        bench = asyncio.run(run(args))
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
    if args.record:
        Path(args.record).write_text(json.dumps({"posted": bench.posted, "entries": bench.entries}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
