"""The seats a host runs itself close their logs when the table closes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.waiting import until
from tests.support.wire import hosted

pytestmark = pytest.mark.usefixtures("private_network")


async def test_host_run_seats_close_their_logs_with_the_table(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", cpu=["easy", "easy"]) as (_service, table):
        sessions = [client.session for client in table.cpu_clients.values()]
        await until(lambda: all(s.store is not None for s in sessions))
    for session in sessions:
        store = session.store
        assert store is not None
        for log in (store._sent, store._transcript):
            assert log is None or log._handle.closed
