"""A LAN attacker on a password table, as its own process: from each source address given, it
connects, answers the challenge with a join whose password attempt is garbage (random bytes,
or a well-formed SPAKE2 message made without the table's scrypt) and no proof of work, and
does it again, for a bounded time. It prints one JSON line: the refusals it got, by reason.

    python -m tests.support.password_attacker URL --source 10.231.0.101 ... --seconds 10
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import os
import secrets
import sys

from spake2 import SPAKE2_A

from p2pdice.core.pake import ID_HOST, ID_JOINER
from p2pdice.core.signing import SigningKey
from tests.support.wire import Closed, RawClient, join_frame

MAX_ATTEMPTS = 5000  #: per source address, whatever the time allows


def garbage(n: int) -> bytes:
    """A joiner's password message that cost nothing: random bytes, or (every other one) a
    valid SPAKE2 element blinded by a random 'verifier' (no scrypt of any password)."""
    if n % 2:
        return SPAKE2_A(os.urandom(32), idA=ID_JOINER, idB=ID_HOST).start()
    return b"A" + os.urandom(32)


async def attack(url: str, source: str, until: float, seen: collections.Counter[str]) -> None:
    loop = asyncio.get_running_loop()
    for n in range(MAX_ATTEMPTS):
        if loop.time() >= until:
            return
        try:
            async with await RawClient.connect(url, source=source) as raw:
                challenge = raw.challenge
                assert challenge is not None
                if challenge["seat"] is None:
                    seen["no seat offered"] += 1
                    continue
                frame = join_frame(
                    SigningKey(secrets.token_bytes(32)),
                    challenge,
                    head=bytes(32),  # checked after the password: any head will do
                    name=f"phantom {n}",
                    pake=garbage(n),
                    proof=secrets.token_bytes(32),
                )
                await raw.send(frame)
                seen[(await raw.error(timeout=5.0))["reason"]] += 1
        except (TimeoutError, Closed, OSError, AssertionError) as err:
            seen[type(err).__name__] += 1
            await asyncio.sleep(0.05)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("--source", action="append", required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    seen: collections.Counter[str] = collections.Counter()
    until = asyncio.get_running_loop().time() + args.seconds
    await asyncio.gather(*(attack(args.url, source, until, seen) for source in args.source))
    print(json.dumps(dict(seen), sort_keys=True), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
