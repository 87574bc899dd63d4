"""A reader so far behind that its outbox fills is hung up, so it reconnects and syncs again,
rather than left waiting in silence."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.net import server as server_module
from tests.support.waiting import until
from tests.support.wire import RawClient, hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_reader_too_far_behind_is_hung_up_not_left_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = Rules(seats=2, starting_dice=1)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (service, table):
        await until(lambda: table.host.phase == TablePhase.OVER)
        assert len(table.host.entries) > 3
        # From here on a connection may hold only two frames it has not yet been sent.
        monkeypatch.setattr(server_module, "OUTBOX_LIMIT", 2)
        async with await RawClient.connect(url_of(service, table)) as slow:
            await slow.send({"type": "sync", "from": 0})  # the whole log at once
            await slow.closed(timeout=5)  # hung up: the client reconnects and syncs again
        await until(lambda: not any(not c.local for c in table.server.connections.values()))
