"""A host-run seat's link stopped mid-game (a stand-in retired when its player returns):
frames the table had already queued for it must not reach its closed transcript."""

from __future__ import annotations

import asyncio
import logging
import random
from pathlib import Path

import pytest

from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.net.client import LocalClient
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key
from tests.support.wire import hosted


async def test_frames_queued_for_a_stopped_local_seat_are_dropped_quietly(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    rules = Rules(seats=3, starting_dice=5)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (_, table):
        home = tmp_path / "seat"
        session = ClientSession(
            key=load_or_create_key(home / "identity.key"), name="Kim", home=home,
            bot=load_bot("easy"), rng=random.Random(4),
        )  # fmt: skip
        client = LocalClient(session, table.server)
        client.start()
        for _ in range(500):  # into the game, with entries flowing
            if session.view() is not None and session.view().round >= 2:
                break
            await asyncio.sleep(0.01)
        held: list[str] = []
        client.link._on_frame = held.append  # the table's writer: frames queued, not yet read
        for _ in range(500):
            if any('"type":"entry"' in f for f in held):
                break
            await asyncio.sleep(0.01)
        assert held
        with caplog.at_level(logging.ERROR):
            await client.stop()
            # What the writer still held when the link closed reaches the session after it
            # closed its files (the writer drains its queue before it stops).
            for frame in held:
                session.on_frame(frame)
    problems = [e for e in session.errors if "closed file" in e[1] or "could not handle" in e[1]]
    assert not problems, problems
    assert "closed file" not in caplog.text
