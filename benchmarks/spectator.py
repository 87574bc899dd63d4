"""Benchmark worker: many raw spectator WebSockets that note when each entry arrives.

Not a benchmark itself. Each connection completes the handshake the way SPEC.md 10.2
describes (challenge in, `{"type":"spectate"}` out, welcome in) and from then on records, for
every entry frame, the time it arrived (time.monotonic_ns(), taken before anything else is
done with the frame). Nothing is verified: this measures the host's fan-out, not a client.

Prints "ready" once every connection has been welcomed; at the end writes, per sequence
number, the first and last arrival over this process's connections and how many got it.
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

from .common import require_isolation


class Watcher:
    def __init__(self) -> None:
        self.arrivals: list[tuple[int, int]] = []  #: (t_ns, seq), parsed after the fact

    async def handshake(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        challenge = await ws.receive_json(timeout=10)
        assert challenge["type"] == "challenge", challenge
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
        for _ in watchers:
            sockets.append(await http.ws_connect(args.url, max_msg_size=256 * 1024, heartbeat=30))
        await asyncio.gather(*(w.handshake(ws) for w, ws in zip(watchers, sockets, strict=True)))
        print("ready", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        tasks = [asyncio.create_task(w.watch(ws)) for w, ws in zip(watchers, sockets, strict=True)]
        everyone = asyncio.gather(*tasks, return_exceptions=True)
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
        for t, seq in w.arrivals:
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
