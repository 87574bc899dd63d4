"""A seat appends each line of its records (a verified entry, a message about to leave) on
the event loop, at once and in order, instead of a round trip through its writer thread; what
must be fsynced (the round's end, its secrets) is still written on that thread."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.store import AppendLog
from tests.support.waiting import until
from tests.support.wire import hosted

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_seat_appends_on_the_loop_and_fsyncs_on_its_writer_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    appended: list[tuple[str, str]] = []  #: (file, thread) of each line a seat appended
    fsynced: list[str] = []  #: threads of the fsyncs of the seats' records
    append, fsync = AppendLog.append, os.fsync

    def noting_append(self: AppendLog, line: bytes) -> None:
        if "/cpu/" in str(self.path):
            appended.append((self.path.name, threading.current_thread().name))
        append(self, line)

    def noting_fsync(fd: int) -> None:
        if "/cpu/" in (where := os.readlink(f"/proc/self/fd/{fd}")) and "/tables/" in where:
            fsynced.append(threading.current_thread().name)
        fsync(fd)

    monkeypatch.setattr(AppendLog, "append", noting_append)
    monkeypatch.setattr(os, "fsync", noting_fsync)
    rules = Rules(seats=2, starting_dice=1)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (_, table):
        await until(lambda: table.host.phase == TablePhase.OVER)
        for client in table.cpu_clients.values():
            await client.session.settled()
        kept = [
            AppendLog.read(path)
            for path in sorted((table.folder / "cpu").glob("*/tables/*/transcript.jsonl"))
        ]
    loop_thread = threading.main_thread().name
    files = {name for name, _ in appended}
    assert {"transcript.jsonl", "sent.jsonl"} <= files
    # Most lines go on the loop; those queued behind an fsync go with it, on the thread.
    on_loop = sum(1 for _, thread in appended if thread == loop_thread)
    assert on_loop > len(appended) // 2
    assert fsynced and all(thread.startswith("p2pdice-seat") for thread in fsynced)
    # In order: each seat's transcript is the host's log as it was when it caught up to it.
    assert len(kept) == 2 and all(lines == table.host.lines()[: len(lines)] for lines in kept)
    assert all(len(lines) > 5 for lines in kept)
