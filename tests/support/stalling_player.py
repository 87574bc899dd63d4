"""A real player process that takes a seat and never moves: `python -m tests.support.stalling_player
HOST:PORT HOME`. It runs the same client session as `p2pdice join` (it commits, contributes,
opens and acknowledges as the protocol asks), but its player never chooses a bid, a call or
the next round: what a person who walks away from the table, or holds it hostage, looks like
to the host."""

from __future__ import annotations

import asyncio
import random
import sys
from pathlib import Path

from p2pdice.bots.registry import load_bot
from p2pdice.net.client import run_websocket
from p2pdice.net.resolve import Target, resolve
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key

NEVER = 10_000.0  #: seconds its bot "thinks" before each move: longer than any test runs


def stalling_session(target: Target, home: Path) -> ClientSession:
    """The session of a player who takes a seat at `target` and never chooses a move."""
    return ClientSession(
        key=load_or_create_key(home / "identity.key"),
        name="Staller",
        home=home,
        mode="play",
        cpu=True,
        bot=load_bot("medium"),
        rng=random.Random(1),
        expect_table=target.table_id,
        expect_host_prefix=target.host_key_prefix,
        think=NEVER,
    )


async def main(address: str, home: Path) -> int:
    target = await resolve(address, timeout=5.0)
    session = stalling_session(target, home)
    print(f"joining {target.url}", flush=True)
    outcome = await run_websocket(session, target.url, give_up_after=60.0, stop=asyncio.Event())
    session.close()
    print(f"outcome {outcome}", flush=True)
    check = session.final_check
    for alarm in [*session.alarms, *(check.alarms if check is not None else ())]:
        print(f"ALARM: {alarm}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], Path(sys.argv[2]))))
