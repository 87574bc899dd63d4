"""A table that fills its empty seats with the host's CPUs is started while a player on
another machine still holds a seat offered to it (answering its challenge). A fill CPU that
finds no seat free asks again later, with a backoff like a socket client's: it used to ask
again on the host's loop at once, tens of thousands of times a second, spinning the host's
CPU (and before that, it never asked again and the table stayed in its lobby for good). Once
the other player gives the seat up, the CPU sits down and the game starts."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.net.client import LocalClient
from p2pdice.net.hostapp import HostService, TableConfig
from p2pdice.net.session import ClientSession
from tests.support.wire import RawClient, url_of

pytestmark = pytest.mark.usefixtures("private_network")


async def test_a_fill_cpu_without_a_free_seat_asks_again_a_few_times_then_sits_down(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    relinks: list[float] = []
    relink = LocalClient._reconnect

    def counted(self: LocalClient) -> None:
        relinks.append(time.monotonic())
        relink(self)

    monkeypatch.setattr(LocalClient, "_reconnect", counted)
    service = HostService(home=tmp_path / "h", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        people = [
            ClientSession(key=SigningKey(bytes([i + 1]) * 32), name=f"P{i}", home=None)
            for i in range(2)
        ]
        config = TableConfig(name="t", rules=Rules(seats=4), fill_levels=["easy"])
        table = await service.open_table(config, players=people)
        other = await RawClient.connect(url_of(service, table))
        assert other.challenge["seat"] == 2  # held while it answers
        cpu_before = time.process_time()
        table.start_game()
        await asyncio.sleep(3.0)
        assert table.host.phase == TablePhase.LOBBY  # a seat is still held
        assert 1 <= len(relinks) <= 8, len(relinks)  # 0.2, 0.4, 0.8, 1.6 s apart
        assert time.process_time() - cpu_before < 1.0
        await other.close()  # the seat is given up
        for _ in range(100):  # bounded: 10 s
            if table.host.phase != TablePhase.LOBBY:
                break
            await asyncio.sleep(0.1)
        assert table.host.phase != TablePhase.LOBBY
        assert len(table.host.state.roster) == 4
    finally:
        await service.stop()
