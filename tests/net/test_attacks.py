"""Attacks from one machine on the LAN (issue 13): each reproduced against a real host over
real sockets on loopback, inside the test session's private namespace.

Every test here failed before its defence existed: lock-outs by connections that never
answer (item 1), half-open HTTP requests and exhausted file descriptors (item 2), `sync`
amplification (item 4), symbolic links planted in the data folder (item 7). The heavier
measurements of the same attacks are in `benchmarks/attacks.py`.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.hostapp import HostService, TableConfig
from p2pdice.net.session import ClientSession
from p2pdice.store import AppendLog, LinkRefused
from tests.support.wire import hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")


def key(n: int) -> SigningKey:
    return SigningKey(bytes([n]) * 32)


async def until(predicate: object, timeout: float) -> bool:
    """Poll `predicate()` for up to `timeout` seconds (bounded: tests never hang)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return bool(predicate())  # type: ignore[operator]


# ---- item 7: links in the data folder ------------------------------------------------------


async def test_a_client_never_writes_its_transcript_through_a_planted_link(
    tmp_path: Path,
) -> None:
    """Someone who can write to the data folder plants `transcript.jsonl` as a link to a file
    of the player's; the client used to append the table's log to that file."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    async with hosted(tmp_path / "h", cpu=["easy"]) as (service, table):
        home = tmp_path / "c"
        folder = home / "tables" / table.id
        folder.mkdir(parents=True)
        (folder / "transcript.jsonl").symlink_to(victim)
        session = ClientSession(key=key(7), name="watcher", home=home, mode="spectate")
        outcome = await asyncio.wait_for(
            run_websocket(session, url_of(service, table), give_up_after=5), 10
        )
        assert outcome == Outcome.FATAL
        assert session.fatal is not None and "symbolic link" in session.fatal[1]
        session.close()
    assert victim.read_bytes() == b"precious\n"


async def test_a_host_never_appends_its_log_through_a_planted_link(tmp_path: Path) -> None:
    """The same link at `hosted/<id>/log.jsonl`, found when the host resumes the table."""
    home = tmp_path / "h"
    service = HostService(home=home, bind="127.0.0.1", advertise=False)
    await service.start()
    config = TableConfig(name="linked", rules=Rules(seats=2))
    try:
        table = await service.open_table(config)
        log_path = table.log.path
    finally:
        await service.stop()
    lines = AppendLog.read(log_path)
    victim = tmp_path / "victim.jsonl"
    victim.write_bytes(log_path.read_bytes())
    log_path.unlink()
    log_path.symlink_to(victim)
    before = victim.read_bytes()
    service = HostService(home=home, bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        with pytest.raises(LinkRefused, match="symbolic link"):
            await service.open_table(config, resume_lines=lines)
    finally:
        await service.stop()
    assert victim.read_bytes() == before
    with pytest.raises(LinkRefused):
        AppendLog.read(log_path)  # nor is a log read through a link


# ---- item 2: a secrets write that fails ----------------------------------------------------


async def test_a_host_run_seat_that_cannot_save_its_secrets_says_so_and_leaves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With no file descriptor left (or a full disk) the host-run CPU could not save its
    round's secrets: the exception vanished into a log line per frame and the seat sat at
    the table never committing, so the game stalled. It must say so once and leave."""
    caplog.set_level(logging.INFO)
    service = HostService(home=tmp_path / "h", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        table = await service.open_table(
            TableConfig(name="no secrets", rules=Rules(seats=2), cpu=["easy", "easy"])
        )
        # Before the loop runs the seats' joins: the first CPU's secrets folder is a file,
        # so writing any secrets file of it fails (as with EMFILE or ENOSPC).
        folder = table.folder / "cpu" / "1" / "tables" / table.id
        folder.mkdir(parents=True)
        (folder / "secrets").write_bytes(b"")
        first = table.cpu_clients["1"]
        assert await until(lambda: first.session.seat is not None, 5)
        seat = first.session.seat
        # It leaves the table: its seat is disconnected (the protocol's absence rules take
        # over from there), and the failure is said once, without a traceback.
        assert await until(lambda: not table.host.seat_connected(seat), 10)
        said = [r for r in caplog.records if "could not save the secrets" in r.getMessage()]
        assert len(said) == 1 and said[0].levelno == logging.ERROR and not said[0].exc_info
        assert first.session.fatal is not None
    finally:
        await service.stop()
