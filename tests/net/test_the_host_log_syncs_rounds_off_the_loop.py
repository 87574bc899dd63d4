"""The host's log (net/hostapp.py `HostLog`): every line is readable from the file as soon as it
is appended; the fsync that makes a round durable runs on the log's own thread, in order, and
`close` waits for it; an fsync that fails is reported in the log and never reaches the loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from pathlib import Path

import pytest

from p2pdice.net.hostapp import HostLog
from p2pdice.store import AppendLog


class RecordingLog(AppendLog):
    """A real append log that also notes which thread ran each fsync, and when."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.events: list[tuple[str, int]] = []

    def sync(self) -> None:
        super().sync()
        self.events.append(("sync", threading.get_ident()))

    def close(self) -> None:
        self.events.append(("close", threading.get_ident()))
        super().close()


class FailingLog(AppendLog):
    def sync(self) -> None:
        raise OSError(5, "Input/output error")


def test_appended_lines_are_in_the_file_before_any_sync(tmp_path: Path) -> None:
    async def scenario() -> None:
        log = HostLog(AppendLog(tmp_path / "log.jsonl"))
        log.append(b'{"seq":0}')
        log.append(b'{"seq":1}')
        assert AppendLog.read(tmp_path / "log.jsonl") == [b'{"seq":0}', b'{"seq":1}']
        await log.close()

    asyncio.run(scenario())


def test_round_syncs_run_on_the_logs_thread_in_order_and_close_waits_for_them(
    tmp_path: Path,
) -> None:
    file = RecordingLog(tmp_path / "log.jsonl")

    async def scenario() -> int:
        log = HostLog(file)
        for seq in range(3):
            log.append(b'{"seq":%d}' % seq)
            log.sync_soon()
        await log.close()
        return threading.get_ident()

    loop_thread = asyncio.run(scenario())
    assert [what for what, _ in file.events] == ["sync", "sync", "sync", "close"]
    threads = {thread for _, thread in file.events}
    assert len(threads) == 1 and loop_thread not in threads
    assert len(AppendLog.read(tmp_path / "log.jsonl")) == 3


def test_a_failed_sync_is_logged_and_the_loop_goes_on(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> list[bytes]:
        log = HostLog(FailingLog(tmp_path / "log.jsonl"))
        log.append(b'{"seq":0}')
        log.sync_soon()
        log.append(b'{"seq":1}')  # the loop carries on while the worker fails
        await log.close()
        return AppendLog.read(tmp_path / "log.jsonl")

    with caplog.at_level(logging.ERROR):
        lines = asyncio.run(scenario())
    assert lines == [b'{"seq":0}', b'{"seq":1}']
    assert any("could not be made durable" in r.getMessage() for r in caplog.records)
