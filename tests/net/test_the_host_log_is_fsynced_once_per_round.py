"""The host's log is fsynced when the table opens and once per round end, not once per
acknowledgement."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.client_intents import ends_a_round
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.store import AppendLog
from tests.support.waiting import until
from tests.support.wire import hosted

pytestmark = pytest.mark.usefixtures("private_network")


async def test_the_host_log_is_fsynced_once_per_round_not_per_acknowledgement(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    real_sync = AppendLog.sync

    def sync(self: AppendLog) -> None:
        synced.append(self.path)
        real_sync(self)

    monkeypatch.setattr(AppendLog, "sync", sync)
    rules = Rules(seats=3, starting_dice=2)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy"] * 3) as (_service, table):
        await until(lambda: table.host.phase == TablePhase.OVER)
        ends = [e for e in table.host.entries if ends_a_round(e)]
        assert len(ends) >= 3  # a result per round, and game_over
        # Once when the table opens (its genesis), then once per round end (on the log's
        # worker thread: the last may still be running when the game-over entry is posted).
        await until(lambda: synced.count(table.log.path) >= 1 + len(ends))
        assert synced.count(table.log.path) == 1 + len(ends)
