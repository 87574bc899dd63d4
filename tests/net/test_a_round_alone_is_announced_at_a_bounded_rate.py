"""A table's advertisement carries the round being played (SPEC.md 10.4), which changes every
round: a change of the round alone is announced at most once per `round_every` seconds, and
then with the latest round; any other change (the phase, the seats) goes out at once, carrying
the latest round with it. Real zeroconf on the private loopback, heard by a real Browser."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from p2pdice.core.advert import Advert, table_path
from p2pdice.net.discovery import (
    ROUND_ANNOUNCE_EVERY,
    Advertiser,
    BrowseEvent,
    Browser,
    new_zeroconf,
)

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
EVERY = 3.0  # seconds: short, for the test


async def heard(browser: Browser, until: float) -> list[BrowseEvent]:
    """Every event the browser reports for the table until loop time `until`."""
    loop = asyncio.get_running_loop()
    events: list[BrowseEvent] = []

    async def collect() -> None:
        async for event in browser.events():
            events.append(event)

    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(collect(), max(0.0, until - loop.time()))
    return events


async def test_a_round_alone_waits_its_turn_and_any_other_change_goes_at_once() -> None:
    base = Advert(
        table_id=TABLE_ID, name="Kitchen", path=table_path(TABLE_ID), phase="playing", round=1
    ).to_txt()
    host, listener = new_zeroconf(), new_zeroconf()
    browser = Browser(listener)
    await browser.start()
    advertiser = Advertiser(
        host, name="Kitchen", port=9000, addresses=["127.0.0.1"], txt=base, round_every=EVERY
    )
    loop = asyncio.get_running_loop()
    try:
        await asyncio.wait_for(advertiser.start(), 10)
        registered = loop.time()
        for round_ in (2, 3, 4):  # three rounds in quick succession (CPU seats)
            await asyncio.wait_for(advertiser.update({**base, "round": str(round_)}), 1)
            await asyncio.sleep(0.3)
        assert advertiser.announced["round"] == "1"  # none of them announced yet
        events = await heard(browser, registered + EVERY + 4)
        rounds = [(e.table.advert.round, e.kind) for e in events]
        assert (1, "added") in rounds, rounds
        assert 2 not in dict(rounds) and 3 not in dict(rounds), rounds  # never each round
        assert 4 in dict(rounds), rounds  # the latest, once its turn came
        assert advertiser.announced["round"] == "4"
        # The game ends: a change of phase goes out at once, with the round it ended in.
        ended = loop.time()
        await advertiser.update({**base, "round": "5", "phase": "finished"})
        assert advertiser.announced["phase"] == "finished"
        events = await heard(browser, ended + 2.5)
        assert any(e.table.advert.phase == "finished" for e in events), events
    finally:
        await advertiser.stop()
        await browser.stop()
        for azc in (host, listener):
            await azc.async_close()


def test_the_spec_states_the_bound_the_host_keeps() -> None:
    spec = " ".join((Path(__file__).resolve().parents[2] / "protocol/SPEC.md").read_text().split())
    assert f"at most once every {ROUND_ANNOUNCE_EVERY:g} s" in spec
