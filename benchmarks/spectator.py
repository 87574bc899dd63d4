"""Benchmark worker: many raw spectator WebSockets that note when each entry arrives.

Not a benchmark itself. Each connection completes the handshake the way SPEC.md 10.2
describes (challenge in, `{"type":"spectate"}` out, welcome in) and from then on records, for
every entry frame, the time it arrived (time.monotonic_ns(), taken before anything else is
done with the frame). Nothing is verified: this measures the host's fan-out, not a client.

Prints "ready" once every connection has been welcomed; at the end writes, per sequence
number, the first and last arrival over this process's connections and how many got it. Every
30 s each connection asks for what follows the last entry it has, as the product's spectators
do (a host closes a spectator that sends no `sync` for two minutes); an entry that comes twice
counts at its first arrival.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp

from p2pdice.core.client import SPECTATOR_KEEPALIVE

from .common import require_isolation


class Watcher:
    def __init__(self) -> None:
        self.arrivals: list[tuple[int, int]] = []  #: (t_ns, seq), parsed after the fact
        self.start = 0  #: the log's length when we were challenged

    def next_seq(self) -> int:
        return self.arrivals[-1][1] + 1 if self.arrivals else self.start

    async def handshake(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        challenge = await ws.receive_json(timeout=10)
        assert challenge["type"] == "challenge", challenge
        self.start = challenge["entries"]
        await ws.send_str('{"type":"spectate"}')
        while True:
            frame = await ws.receive_json(timeout=10)
            if frame["type"] == "welcome":
                return
            if frame["type"] == "error":
                raise RuntimeError(f"spectate refused: {frame}")

    async def watch(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        arrivals = self.arrivals
        async for msg in ws:
            t = time.monotonic_ns()
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            data = msg.data
            if not data.startswith('{"entry":'):
                if '"closing"' in data:
                    break
                continue
            at = data.rfind('"seq":') + 6
            seq = int(data[at : data.index(",", at)])
            arrivals.append((t, seq))
            if '"game_over"' in data:
                break


async def run(args: argparse.Namespace) -> dict[str, list[int]]:
    watchers = [Watcher() for _ in range(args.connections)]
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=10)
    async with aiohttp.ClientSession(timeout=timeout) as http:
        sockets = []
        for watcher in watchers:
            # One at a time: a host closes the oldest of more than 16 connections still
            # answering their challenge (net/server.py MAX_PENDING).
            ws = await http.ws_connect(args.url, max_msg_size=256 * 1024, heartbeat=30)
            await watcher.handshake(ws)
            sockets.append(ws)
        print("ready", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        tasks = [asyncio.create_task(w.watch(ws)) for w, ws in zip(watchers, sockets, strict=True)]
        everyone = asyncio.gather(*tasks, return_exceptions=True)

        async def keepalive() -> None:
            while True:
                await asyncio.sleep(SPECTATOR_KEEPALIVE)
                for watcher, ws in zip(watchers, sockets, strict=True):
                    if not ws.closed:
                        with contextlib.suppress(Exception):
                            await ws.send_str(f'{{"from":{watcher.next_seq()},"type":"sync"}}')

        tasks.append(asyncio.create_task(keepalive()))
        stopping = asyncio.create_task(stop.wait())
        waits: set[asyncio.Future[Any]] = {everyone, stopping}
        await asyncio.wait(waits, timeout=args.timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks:
            task.cancel()
        stopping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await everyone
        for ws in sockets:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1.0)
    merged: dict[str, list[int]] = {}
    for w in watchers:
        seen: set[int] = set()
        for t, seq in w.arrivals:
            if seq in seen:
                continue  # sent again in answer to a keepalive
            seen.add(seq)
            row = merged.setdefault(str(seq), [t, t, 0])
            row[0] = min(row[0], t)
            row[1] = max(row[1], t)
            row[2] += 1
    return merged


def main(argv: list[str] | None = None) -> int:
    require_isolation()
    parser = argparse.ArgumentParser(prog="python -m benchmarks.spectator")
    parser.add_argument("--url", required=True)
    parser.add_argument("--connections", type=int, default=100)
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    merged = asyncio.run(run(args))
    Path(args.out).write_text(json.dumps({"entries": merged, "connections": args.connections}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
