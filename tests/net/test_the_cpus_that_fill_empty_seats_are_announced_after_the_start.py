"""The host's machine can read the hands of every CPU it runs, so its advertisement counts
them (the TXT and `GET /tables` key `cpu`, SPEC.md 10.4) and a lobby row discloses them:
in the lobby the seats kept for its own CPUs, and from the start on every seat it plays, the
CPUs that filled the empty seats (`cpu_fill`) included. A tester saw `"cpu": "0"` and no
"host CPU" line while `CPU easy 1, host-run` played: the record counted only the genesis's
`host_cpu`. (Stand-ins: tests/core/test_advert.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pdice.core.rules import Rules
from p2pdice.core.table_state import TablePhase
from p2pdice.net.hostapp import HostService, TableConfig
from tests.support.procs import bot_join, kill_all, spawn
from tests.ui.test_lobby_actions import lobby_at, until

DISCLOSED = "1 host CPU (its host could read those dice)"


async def test_a_cpu_that_filled_an_empty_seat_is_announced_and_shown_in_the_lobby(
    tmp_path: Path,
) -> None:
    service = HostService(home=tmp_path / "host", bind="127.0.0.1", advertise=False)
    await service.start()
    bots = []
    try:
        config = TableConfig(name="Den", rules=Rules(seats=3), fill_levels=["easy"])
        table = await service.open_table(config)
        before = table.advert()  # none promised: the record says CPUs will fill (`fill`)
        assert (before.cpu, before.fill, table.txt()["cpu"]) == (0, True, "0")
        address = f"127.0.0.1:{service.port}"
        for seed, name in enumerate(("Ann", "Bea"), 1):
            args = bot_join(address, name=name, seed=seed, home=tmp_path / name, give_up=30)
            bots.append(spawn(*args, log=tmp_path / f"{name}.out"))
        await until(lambda: len(table.host.state.joins) == 2, 30)
        table.start_game()  # the empty seat gets a host-run CPU
        await until(lambda: table.host.phase != TablePhase.LOBBY, 30)
        seated = [(s.name, s.host_run) for s in table.host.state.roster]
        assert seated[2] == ("CPU easy 1", True), seated
        assert table.advert().cpu == 1
        assert table.txt()["cpu"] == table.summary()["cpu"] == "1"
        watcher = lobby_at(tmp_path / "zed", (service, table))
        [row] = watcher.ui.book.rows()
        assert row.cpu == "1 host CPU" and DISCLOSED in row.details(), row.details()
    finally:
        kill_all(*bots)
        await asyncio.wait_for(service.stop(), 30)
