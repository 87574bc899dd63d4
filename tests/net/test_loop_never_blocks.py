"""No callback blocks the event loop: a host serves every table and player from one loop, so a
callback that runs long (scrypt, an fsync, a sleep) stalls every table it hosts. Checked with
asyncio's debug mode (tests/support/blocking.py) over real games on loopback sockets."""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import pytest

from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key
from tests.support.blocking import SLOW_CALLBACK, no_blocking_calls, watch_the_loop
from tests.support.wire import hosted, url_of

PASSWORD = "correct horse battery"


async def test_the_detector_reports_a_callback_that_blocks() -> None:
    async with watch_the_loop() as watch:
        asyncio.get_running_loop().call_soon(time.sleep, 2 * SLOW_CALLBACK)
        await asyncio.sleep(0.01)  # honest waiting is not blocking
        await asyncio.sleep(3 * SLOW_CALLBACK)
    assert len(watch.slow) == 1, watch.report()
    assert "sleep" in watch.slow[0].handle and watch.slow[0].seconds >= 2 * SLOW_CALLBACK
    with pytest.raises(AssertionError, match="1 callbacks blocked the loop") as failure:
        async with no_blocking_calls():
            await asyncio.to_thread(time.sleep, 2 * SLOW_CALLBACK)  # off the loop: fine
            time.sleep(2 * SLOW_CALLBACK)  # this step of the test's own task blocks
    # The failure shows the blocking call itself, not only the task it ran in.
    assert "time.sleep(2 * SLOW_CALLBACK)  # this step" in str(failure.value)


def _player(home: Path, name: str, seed: int) -> ClientSession:
    return ClientSession(
        key=load_or_create_key(home / "identity.key"),
        name=name,
        home=home,
        password=PASSWORD,
        cpu=True,
        bot=load_bot("easy"),
        rng=random.Random(seed),
    )


async def test_a_password_game_with_stored_records_never_blocks_the_loop(tmp_path: Path) -> None:
    """Opening a password table (scrypt), joining it over sockets (each joiner's scrypt and
    password exchange), playing to the end with every record on disk (secrets, sent messages,
    transcripts, the host's log and their fsyncs) and closing it."""
    players = [_player(tmp_path / f"p{n}", f"P{n}", seed=n) for n in range(2)]
    rules = Rules(seats=3, starting_dice=2)
    async with no_blocking_calls():
        try:
            async with hosted(tmp_path / "host", rules=rules, cpu=["easy"], password=PASSWORD) as (
                service,
                table,
            ):
                url = url_of(service, table)
                games = (run_websocket(p, url, linger=0, find_again=False) for p in players)
                outcomes = await asyncio.wait_for(asyncio.gather(*games), 60)
        finally:
            for player in players:
                player.close()
    assert outcomes == [Outcome.OVER, Outcome.OVER]
    assert all(not p.alarms for p in players)


async def test_the_host_keeps_its_files_off_the_loop_on_a_slow_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fsync of the host's own files (its log, table.json, their folder) takes twice the
    bound, as on an SD card: none may run on the loop. Host-run seats keep their records as
    any player does (the client session's), so theirs are left at the disk's own speed."""
    tables = tmp_path / "host" / "hosted"
    real_fsync = os.fsync

    def slow_fsync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}")
        if where.startswith(str(tables)) and "/cpu/" not in where:
            time.sleep(2 * SLOW_CALLBACK)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    rules = Rules(seats=2, starting_dice=2)
    async with (
        no_blocking_calls(),
        hosted(tmp_path / "host", rules=rules, cpu=["easy", "easy"]) as (_, table),
    ):
        await asyncio.wait_for(table.server.over.wait(), 60)
