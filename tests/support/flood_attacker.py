"""A LAN attacker that costs a table work for nothing, as its own process, from each source
address given, reconnecting whenever it is closed, for a bounded time:

- `catch-up`: each connection asks for the whole log (`sync` from 0) without ever joining,
  reads what comes for at most a second, and closes: a new connection, a new copy;
- `deep`: each connection sends frames of 32,000 nested brackets (64,000 bytes: under the size
  limit, refused only once parsed) as fast as the socket takes them.

It prints one JSON line: connections made and refused, bytes sent and received, and the
refusals it got, by reason.

    python -m tests.support.flood_attacker URL --mode catch-up --source 10.231.0.101 ...
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys

import aiohttp

from p2pdice.net.tls import client_context

MAX_CONNECTIONS = 20000  #: per source address, whatever the time allows
DEEP = "[" * 32000 + "]" * 32000
SYNC = '{"from":0,"type":"sync"}'


class Tally:
    def __init__(self) -> None:
        self.reasons: collections.Counter[str] = collections.Counter()
        self.connections = self.refused = self.sent = self.received = 0


async def one_connection(
    http: aiohttp.ClientSession, url: str, mode: str, until: float, tally: Tally
) -> None:
    loop = asyncio.get_running_loop()
    async with http.ws_connect(url + "?spectate=1", max_msg_size=0, heartbeat=None) as ws:
        first = await ws.receive(timeout=5.0)
        if first.type != aiohttp.WSMsgType.TEXT or '"type":"challenge"' not in first.data:
            tally.refused += 1
            if first.type == aiohttp.WSMsgType.TEXT:
                tally.reasons[json.loads(first.data).get("reason", "?")] += 1
            return
        tally.connections += 1
        entries = json.loads(first.data)["entries"]
        if mode == "catch-up":
            await ws.send_str(SYNC)
            tally.sent += len(SYNC)
            got, deadline = 0, min(until, loop.time() + 1.0)
            while got < entries and loop.time() < deadline:
                msg = await ws.receive(timeout=max(0.01, deadline - loop.time()))
                if msg.type != aiohttp.WSMsgType.TEXT:
                    return
                tally.received += len(msg.data)
                if msg.data.startswith('{"entry":'):
                    got += 1
                elif '"type":"error"' in msg.data:
                    tally.reasons[json.loads(msg.data)["reason"]] += 1
            return
        while loop.time() < until:
            await ws.send_str(DEEP)
            tally.sent += len(DEEP)
            try:
                msg = await ws.receive(timeout=0.001)
            except TimeoutError:
                continue
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            tally.received += len(msg.data)
            if '"type":"error"' in msg.data:
                tally.reasons[json.loads(msg.data)["reason"]] += 1


async def attack(url: str, source: str, mode: str, until: float, tally: Tally) -> None:
    loop = asyncio.get_running_loop()
    connector = aiohttp.TCPConnector(local_addr=(source, 0), force_close=True, ssl=client_context())
    async with aiohttp.ClientSession(connector=connector) as http:
        for _ in range(MAX_CONNECTIONS):
            if loop.time() >= until:
                return
            try:
                await one_connection(http, url, mode, until, tally)
            except (aiohttp.ClientError, OSError, TimeoutError) as err:
                tally.reasons[type(err).__name__] += 1
                await asyncio.sleep(0.05)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--mode", choices=["catch-up", "deep"], required=True)
    parser.add_argument("--source", action="append", required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    tally = Tally()
    until = asyncio.get_running_loop().time() + args.seconds
    await asyncio.gather(*(attack(args.url, s, args.mode, until, tally) for s in args.source))
    print(
        json.dumps(
            {
                "connections": tally.connections,
                "refused": tally.refused,
                "sent": tally.sent,
                "received": tally.received,
                "reasons": dict(tally.reasons),
            },
            sort_keys=True,
        ),
        flush=True,
    )


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
