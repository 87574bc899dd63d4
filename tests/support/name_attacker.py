"""A LAN attacker trying to sit at a table under names that look like someone else's, as its
own process: for each name given it takes the offered seat with a fresh key and a join
signed by hand (an honest client cleans and repairs a name before it
signs, so it would never send these), and reads the host's answer. A join that is seated is
left at once (so the next name finds the seat free). It prints one JSON line: each name's
answer, `seated` or the refusal's reason code, in the order given.

    python -m tests.support.name_attacker URL NAMES.json [--source ADDRESS ...]

NAMES.json is a JSON list of `{"name": ..., "cpu": bool}`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import sys
from pathlib import Path

from p2pdice.core.codec import encode
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import entry_hash
from tests.support.wire import Closed, RawClient, unsigned_join

TRIES = 5  #: connections per name while no seat is offered (another join in progress)


class Attacker:
    """One connection at a time, kept across refusals (as a client that is refused a name
    signs again on the same challenge); a new one after a seat or a hang-up. Reading the
    log afresh on every try would spend the address's catch-up budget (SPEC.md 10.1)."""

    def __init__(self, url: str, sources: list[str]) -> None:
        self.url = url
        #: Addresses to connect from, the next after each seat taken: the lobby's seats per
        #: address (SPEC.md 10.1) would otherwise refuse the next name for its rate alone.
        self.sources: list[str | None] = [*sources] or [None]
        self.raw: RawClient | None = None
        self.head = b""

    async def _connect(self) -> RawClient | str:
        for _ in range(TRIES):
            raw = await RawClient.connect(self.url, source=self.sources[0])
            assert raw.challenge is not None
            if raw.challenge["seat"] is not None:
                break
            await raw.close()
            await asyncio.sleep(0.5)  # another join is in progress
        else:
            return "no seat offered"
        await raw.send({"type": "sync", "from": 0})
        for _ in range(raw.challenge["entries"]):
            frame = await raw.recv_type("entry", "error")
            if frame["type"] == "error":
                await raw.close()
                return str(frame["reason"])
            self.head = entry_hash(encode(frame["entry"]))
        return raw

    async def try_name(self, name: str, cpu: bool) -> str:
        if self.raw is None:
            raw = await self._connect()
            if isinstance(raw, str):
                return raw
            self.raw = raw
        raw = self.raw
        assert raw.challenge is not None
        msg = unsigned_join(
            SigningKey(secrets.token_bytes(32)), raw.challenge, head=self.head, name=name, cpu=cpu
        )
        await raw.send({"type": "join", "msg": msg, "pake": None, "proof": None, "work": None})
        try:
            answer = await raw.recv_type("welcome", "error", timeout=10)
        except Closed as err:
            self.raw = None
            return f"closed: {err}"
        if answer["type"] == "welcome":
            await raw.close()  # leaving the lobby frees the seat for the next name
            self.raw = None
            self.sources = self.sources[1:] or self.sources
            return "seated"
        return str(answer["reason"])


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("names", type=Path)
    parser.add_argument("--source", action="append", default=[])
    args = parser.parse_args()
    tries = json.loads(args.names.read_text(encoding="utf-8"))
    attacker = Attacker(args.url, args.source)
    answers = [await attacker.try_name(t["name"], t["cpu"]) for t in tries]
    print(json.dumps(answers), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
    sys.exit(0)
