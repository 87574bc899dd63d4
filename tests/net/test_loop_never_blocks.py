"""No callback blocks the event loop: a host serves every table and player from one loop, so a
callback that runs long (scrypt, an fsync, a sleep) stalls every table it hosts. Checked with
asyncio's debug mode (tests/support/blocking.py) over real games on loopback sockets."""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from pathlib import Path

import pytest

from p2pdice.bots.registry import load_bot
from p2pdice.core.errors import Reason
from p2pdice.core.peer import Secrets
from p2pdice.core.rules import Rules
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.session import ClientSession
from p2pdice.store import ClientStore, load_or_create_key
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


def _compute(seconds: float) -> None:
    """Busy for `seconds` of this thread's own CPU time, however long the wall clock takes."""
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs CPU affinity (Linux)")
async def test_a_callback_slowed_only_by_other_processes_does_not_count_as_blocking() -> None:
    """On a loaded machine a short computation takes long on the wall clock; the time it spent
    waiting for a core is not held against it. Three busy processes share the loop thread's only
    core, so a callback of a third of the bound in CPU takes over the bound in wall time."""
    cpu = min(os.sched_getaffinity(0))
    saved = os.sched_getaffinity(0)
    spinners = [
        await asyncio.create_subprocess_exec(sys.executable, "-c", "while True: pass")
        for _ in range(3)
    ]
    try:
        for spinner in spinners:
            os.sched_setaffinity(spinner.pid, {cpu})
        os.sched_setaffinity(0, {cpu})  # this thread only: the loop's
        async with watch_the_loop() as watch:
            asyncio.get_running_loop().call_soon(_compute, SLOW_CALLBACK / 3)
            await asyncio.sleep(4 * SLOW_CALLBACK)
    finally:
        os.sched_setaffinity(0, saved)
        for spinner in spinners:
            spinner.kill()
            await asyncio.wait_for(spinner.wait(), 10)
    assert not watch.slow, watch.report()
    assert [e.handle for e in watch.excused if "_compute" in e.handle], (
        "the callback never ran over the bound in wall time: nothing was shown"
    )
    computed = next(e for e in watch.excused if "_compute" in e.handle)
    assert computed.own_seconds < SLOW_CALLBACK <= computed.seconds


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
                await player.aclose()
    assert outcomes == [Outcome.OVER, Outcome.OVER]
    assert all(not p.alarms for p in players)


async def test_the_host_keeps_its_files_off_the_loop_on_a_slow_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fsync under the host's folder takes twice the bound, as on an SD card: its log,
    table.json, their folder, and the records of its host-run CPU seats (their round secrets,
    seat, transcript and sent messages): none may run on the loop."""
    tables = tmp_path / "host" / "hosted"
    real_fsync = os.fsync
    slowed: list[str] = []

    def slow_fsync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}")
        if where.startswith(str(tables)):
            slowed.append(where)
            time.sleep(2 * SLOW_CALLBACK)
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", slow_fsync)
    rules = Rules(seats=2, starting_dice=2)
    async with (
        no_blocking_calls(),
        hosted(tmp_path / "host", rules=rules, cpu=["easy", "easy"]) as (_, table),
    ):
        await asyncio.wait_for(table.server.over.wait(), 60)
    assert any("/cpu/" in where and "/secrets" in where for where in slowed), slowed


async def test_a_commitment_leaves_only_after_its_secrets_are_saved_on_a_slow_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The player's disk takes twice the bound for each fsync of its round secrets (the file
    and its folder): the write runs off the loop, and the commitment that binds the secrets
    is queued for the host only once that write has finished (SPEC.md 8: a seat that crashed
    after committing must be able to open)."""
    home = tmp_path / "p0"
    real_fsync, real_save = os.fsync, ClientStore.save_secrets
    saved: set[tuple[Path, int, int]] = set()

    def slow_fsync(fd: int) -> None:
        where = os.readlink(f"/proc/self/fd/{fd}")
        if where.startswith(str(home)) and "/secrets" in where:
            time.sleep(2 * SLOW_CALLBACK)
        real_fsync(fd)

    def save_secrets(store: ClientStore, round_: int, attempt: int, secrets: Secrets) -> None:
        real_save(store, round_, attempt, secrets)
        saved.add((store.folder, round_, attempt))

    monkeypatch.setattr(os, "fsync", slow_fsync)
    monkeypatch.setattr(ClientStore, "save_secrets", save_secrets)
    player = _player(home, "P0", seed=3)
    commitments: list[tuple[int, int, bool]] = []  #: (round, attempt, saved when queued)

    class Outgoing(asyncio.Queue[str]):
        def put_nowait(self, frame: str) -> None:
            body = json.loads(frame).get("msg", {}).get("body", {})
            if body.get("type") == "commit":
                store = player.store
                assert store is not None
                key = (store.folder, body["round"], body["attempt"])
                commitments.append((body["round"], body["attempt"], key in saved))
            super().put_nowait(frame)

    player.outgoing = Outgoing()
    rules = Rules(seats=2, starting_dice=2)
    async with no_blocking_calls():
        try:
            async with hosted(tmp_path / "host", rules=rules, cpu=["easy"], password=PASSWORD) as (
                service,
                table,
            ):
                playing = run_websocket(player, url_of(service, table), linger=0, find_again=False)
                outcome = await asyncio.wait_for(playing, 60)
        finally:
            await player.aclose()
    assert outcome == Outcome.OVER and not player.alarms
    assert commitments and all(was_saved for _, _, was_saved in commitments), commitments


async def test_a_commitment_whose_secrets_cannot_be_saved_never_leaves(tmp_path: Path) -> None:
    """The secrets write fails on the writer thread (their folder is a file, as with a full
    disk): the seat stops with the reason, hangs up, and its commitment is never sent."""
    home = tmp_path / "p0"
    player = _player(home, "P0", seed=3)
    sent: list[str] = []

    class Outgoing(asyncio.Queue[str]):
        def put_nowait(self, frame: str) -> None:
            sent.append(json.loads(frame).get("msg", {}).get("body", {}).get("type", ""))
            super().put_nowait(frame)

    player.outgoing = Outgoing()
    rules = Rules(seats=2, starting_dice=2)
    async with hosted(tmp_path / "host", rules=rules, cpu=["easy"], password=PASSWORD) as (
        service,
        table,
    ):
        folder = home / "tables" / table.id
        folder.mkdir(parents=True)
        (folder / "secrets").write_bytes(b"")
        playing = run_websocket(player, url_of(service, table), linger=0, find_again=False)
        try:
            outcome = await asyncio.wait_for(playing, 30)
        finally:
            await player.aclose()
    assert outcome == Outcome.FATAL
    assert player.fatal is not None and player.fatal[0] == Reason.INTERNAL
    assert "could not save the secrets of round 1" in player.fatal[1]
    assert "join" in sent and "commit" not in sent
