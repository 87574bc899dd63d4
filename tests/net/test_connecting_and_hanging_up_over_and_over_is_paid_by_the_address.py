"""One address connecting and hanging up as fast as it can (issue: connection churn).

Every connection costs the host its TLS handshake and its upgrade before the first frame,
and at a table with a password a challenge that offers a seat also costs it the host's SPAKE2
message (about 3 ms of pure-Python arithmetic on the event loop). No budget paid for any of
it: one machine could keep a password table's host busy on challenges it never answered.
A new connection now costs its address frame units (SPEC.md 10.1), so a burst is let in and
the rest refused `TOO_MANY_CONNECTIONS` until the budget refills; another address is not
affected.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pdice.net.frames import MAX_FRAME
from p2pdice.net.limits import frame_cost
from p2pdice.net.server import Limits
from tests.support.wire import Closed, RawClient, hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")

_UNITS = Limits()
#: Connections an address is let in at once (while its frame budget holds a largest frame's
#: cost), and a second after that, at `address_connection_cost` units each.
BURST = int(
    (_UNITS.address_frame_burst - frame_cost(MAX_FRAME)) // _UNITS.address_connection_cost + 1
)
REFILL_PER_SECOND = _UNITS.address_frame_rate / _UNITS.address_connection_cost


async def connect_and_hang_up(url: str, source: str) -> str:
    """One connection: `challenge` when the host let it in, else the refusal's reason."""
    raw = await RawClient.connect(url, read_challenge=False, source=source)
    async with raw:
        try:
            first = await raw.recv(timeout=3)
        except Closed:
            return "closed"
        return first["type"] if first["type"] != "error" else first["reason"]


async def test_an_address_that_reconnects_over_and_over_is_refused_until_it_slows_down(
    tmp_path: Path,
) -> None:
    limits = Limits(limit_loopback=True)  # loopback stands for a LAN machine here
    async with hosted(tmp_path / "h", password="hunter2", limits=limits) as (service, table):
        url = url_of(service, table)
        loop = asyncio.get_running_loop()
        began = loop.time()
        answers = [await connect_and_hang_up(url, "127.0.0.1") for _ in range(40)]
        took = loop.time() - began
        let_in = answers.count("challenge")
        # A burst, and what refilled while the forty were made (slower on a loaded machine):
        # never all forty.
        allowed = BURST + REFILL_PER_SECOND * took + 1
        assert let_in <= allowed < 40, (answers, took)
        assert answers.count("TOO_MANY_CONNECTIONS") == 40 - let_in, answers
        assert await connect_and_hang_up(url, "127.0.0.2") == "challenge"
        await asyncio.sleep(1.0)  # ten connections' worth refills in a second
        assert await connect_and_hang_up(url, "127.0.0.1") == "challenge"
