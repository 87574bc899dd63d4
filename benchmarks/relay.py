"""Benchmark baseline: the same broadcast of unsigned JSON through a bare aiohttp relay.

Not a benchmark itself; the benchmarks start its two roles in child processes:

- `server`: one aiohttp app; every text frame that arrives on `/r/<group>` is forwarded as
  is to every other connection of that group, awaited in turn. `POST /go` tells every
  connection to start; `GET /stats` counts the frames relayed.
- `client`: players and listeners. Players take turns like the paced benchmark bidders:
  player i sends message n+1 (about 200 bytes of JSON) GAP_MS after it has received message
  n from player i-1, and player 0 sends message 0 on "go". Every connection notes when each
  message arrived (parsed, for players; raw arrival, for listeners), and every player when
  it sent (before encoding). Times are time.monotonic_ns().

No signatures, no transcript, no game: what is left is Python, asyncio, aiohttp and the
loopback, which is the floor under the p2pdice figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from .common import require_isolation

PAD = "x" * 140  #: brings a message to about 200 bytes


# ---- the relay ---------------------------------------------------------------------------------


class Relay:
    def __init__(self) -> None:
        self.groups: dict[str, list[web.WebSocketResponse]] = defaultdict(list)
        self.relayed = 0
        self.app = web.Application()
        self.app.router.add_get("/r/{group}", self.websocket)
        self.app.router.add_post("/go", self.go)
        self.app.router.add_get("/stats", self.stats)

    async def websocket(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(compress=False, max_msg_size=256 * 1024)
        await ws.prepare(request)
        members = self.groups[request.match_info["group"]]
        members.append(ws)
        try:
            async for msg in ws:
                if msg.type != aiohttp.WSMsgType.TEXT:
                    break
                self.relayed += 1
                for other in list(members):
                    if other is not ws and not other.closed:
                        with contextlib.suppress(ConnectionError, RuntimeError):
                            await other.send_str(msg.data)
        finally:
            members.remove(ws)
        return ws

    async def go(self, request: web.Request) -> web.Response:
        for members in self.groups.values():
            for ws in list(members):
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str('{"type":"go"}')
        return web.json_response({"connections": sum(len(m) for m in self.groups.values())})

    async def stats(self, request: web.Request) -> web.Response:
        return web.json_response({"relayed": self.relayed, "t": time.monotonic_ns()})


async def serve(args: argparse.Namespace) -> None:
    relay = Relay()
    runner = web.AppRunner(relay.app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1] if runner.addresses else 0
    print(json.dumps({"port": port, "url": f"http://127.0.0.1:{port}"}), flush=True)
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runner.cleanup()


# ---- the clients -------------------------------------------------------------------------------


class Player:
    def __init__(
        self,
        ws: aiohttp.ClientWebSocketResponse,
        group: str,
        index: int,
        args: argparse.Namespace,
    ) -> None:
        self.ws = ws
        self.group = group
        self.index = index
        self.players = args.players
        self.count = args.count
        self.gap = args.gap_ms / 1000
        self.successor_only = args.successor_only
        self.sent: list[tuple[int, int]] = []
        self.recv: list[tuple[int, int]] = []
        self.done = asyncio.Event()
        self._next: asyncio.Task[None] | None = None

    async def send(self, n: int) -> None:
        if self.gap:
            await asyncio.sleep(self.gap)
        t = time.monotonic_ns()
        text = json.dumps(
            {"type": "bid", "g": self.group, "n": n, "seat": self.index, "pad": PAD},
            separators=(",", ":"),
            sort_keys=True,
        )
        self.sent.append((n, t))
        await self.ws.send_str(text)
        if n >= self.count - 1:
            self.done.set()

    async def run(self) -> None:
        async for msg in self.ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            obj = json.loads(msg.data)
            t = time.monotonic_ns()
            if obj["type"] == "go":
                if self.index == 0:
                    self._next = asyncio.create_task(self.send(0))
                continue
            n = obj["n"]
            mine = (n + 1) % self.players == self.index
            if not self.successor_only or mine:
                self.recv.append((n, t))
            if n >= self.count - 1:
                self.done.set()
                break
            if mine:
                self._next = asyncio.create_task(self.send(n + 1))

    def results(self) -> dict[str, Any]:
        return {"group": self.group, "index": self.index, "sent": self.sent, "recv": self.recv}


class Listener:
    def __init__(self, ws: aiohttp.ClientWebSocketResponse, group: str, count: int) -> None:
        self.ws = ws
        self.group = group
        self.count = count
        self.first: dict[int, int] = {}

    async def run(self) -> None:
        async for msg in self.ws:
            t = time.monotonic_ns()
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            at = msg.data.find('"n":') + 4
            if at < 4:
                continue
            n = int(msg.data[at : msg.data.index(",", at)])
            self.first[n] = t
            if n >= self.count - 1:
                break


async def clients(args: argparse.Namespace) -> dict[str, Any]:
    players: list[Player] = []
    listeners: list[Listener] = []
    async with aiohttp.ClientSession() as http:
        for spec in args.player or []:
            group, _, indexes = spec.partition(":")
            low, _, high = indexes.partition("-")
            for index in range(int(low), int(high or low) + 1):
                ws = await http.ws_connect(f"{args.url}/r/{group}", max_msg_size=256 * 1024)
                players.append(Player(ws, group, index, args))
        for spec in args.listeners or []:
            group, _, many = spec.partition(":")
            for _ in range(int(many)):
                ws = await http.ws_connect(f"{args.url}/r/{group}", max_msg_size=256 * 1024)
                listeners.append(Listener(ws, group, args.count))
        print("ready", flush=True)
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        tasks = [asyncio.create_task(p.run()) for p in players]
        tasks += [asyncio.create_task(li.run()) for li in listeners]
        stopping = asyncio.create_task(stop.wait())
        finished: list[asyncio.Task[Any]] = [asyncio.create_task(p.done.wait()) for p in players]
        finished += tasks[len(players) :]
        waiting = asyncio.gather(*finished, return_exceptions=True)
        waits: set[asyncio.Future[Any]] = {waiting, stopping}
        await asyncio.wait(waits, timeout=args.timeout, return_when=asyncio.FIRST_COMPLETED)
        for task in tasks + finished:
            task.cancel()
        stopping.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await waiting
        for p in players:
            await p.ws.close()
        for li in listeners:
            await li.ws.close()
    merged: dict[int, list[int]] = {}
    for li in listeners:
        for n, t in li.first.items():
            low_high = merged.setdefault(n, [t, t, 0])
            low_high[0] = min(low_high[0], t)
            low_high[1] = max(low_high[1], t)
            low_high[2] += 1
    return {
        "players": [p.results() for p in players],
        "listeners": {str(n): v for n, v in merged.items()},
    }


def main(argv: list[str] | None = None) -> int:
    require_isolation()
    parser = argparse.ArgumentParser(prog="python -m benchmarks.relay")
    parser.add_argument("role", choices=["server", "client"])
    parser.add_argument("--url", help="http://127.0.0.1:PORT of the relay (clients)")
    parser.add_argument("--player", action="append", help="GROUP:I or GROUP:I-J, players here")
    parser.add_argument("--listeners", action="append", help="GROUP:K, K listeners here")
    parser.add_argument("--players", type=int, default=6, help="players per group")
    parser.add_argument("--count", type=int, default=1000, help="messages per group")
    parser.add_argument("--gap-ms", type=float, default=10.0)
    parser.add_argument("--successor-only", action="store_true")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    if args.role == "server":
        asyncio.run(serve(args))
        return 0
    if args.url and args.url.startswith("http"):
        args.url = "ws" + args.url[4:]
    results = asyncio.run(clients(args))
    Path(args.out).write_text(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
