"""A LAN attacker churning a table's lobby, as its own process: from each source address
given, it connects, reads the log, takes the offered seat with a fresh key and disconnects
(which leaves the seat), over and over for a bounded time. It prints one JSON line: seats
taken and refusals, by reason.

    python -m tests.support.churn_attacker URL --source 10.231.0.101 ... --seconds 6
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import secrets
import sys

from p2pdice.core.codec import encode
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import entry_hash
from tests.support.wire import Closed, RawClient, join_frame

MAX_CYCLES = 5000  #: per source address, whatever the time allows


async def churn(url: str, source: str, until: float, seen: collections.Counter[str]) -> None:
    loop = asyncio.get_running_loop()
    for n in range(MAX_CYCLES):
        if loop.time() >= until:
            return
        try:
            async with await RawClient.connect(url, source=source) as raw:
                challenge = raw.challenge
                assert challenge is not None
                if challenge["seat"] is None:
                    seen["no seat offered"] += 1
                    await asyncio.sleep(0.05)
                    continue
                await raw.send({"type": "sync", "from": 0})
                head = b""
                for _ in range(challenge["entries"]):
                    entry = (await raw.recv_type("entry"))["entry"]
                    head = entry_hash(encode(entry))
                frame = join_frame(
                    SigningKey(secrets.token_bytes(32)), challenge, head=head, name=f"ghost {n}"
                )
                await raw.send(frame)
                answer = await raw.recv_type("welcome", "error")
                seen["seated" if answer["type"] == "welcome" else answer["reason"]] += 1
        except (Closed, OSError, TimeoutError, AssertionError) as err:
            seen[type(err).__name__] += 1
            await asyncio.sleep(0.05)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--source", action="append", required=True)
    parser.add_argument("--seconds", type=float, default=6.0)
    args = parser.parse_args()
    seen: collections.Counter[str] = collections.Counter()
    until = asyncio.get_running_loop().time() + args.seconds
    await asyncio.gather(*(churn(args.url, s, until, seen) for s in args.source))
    print(json.dumps(dict(seen), sort_keys=True), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
