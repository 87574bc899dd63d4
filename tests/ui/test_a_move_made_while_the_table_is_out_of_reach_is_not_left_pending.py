"""The terminal client at a real table (hosted in this process, reached over a TCP relay this
test can cut), on its turn, when the table goes out of reach:

- a move made while the link still looks up but nothing reaches the host is shown pending;
- while the client reconnects, a move is not made ("nothing was sent"), and the one still
  unconfirmed waits for the link to come back;
- once the host has not taken the client back for its whole --give-up, the screen says the
  host stopped answering, offers no bid, shows nothing as pending any more, and a key that
  would move says nothing was sent.

Before, such a move was signed and queued on a connection that never came: "Liar!
(pending)" for ever, on a screen that still invited a bid."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from p2pdice.cli.runtime import start_join
from p2pdice.core.advert import socket_url
from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.net.hostapp import HostService, TableConfig
from p2pdice.ui.controller import ENDED_NOT_SENT, RECONNECTING_NOT_SENT, Controller
from p2pdice.ui.state import UiState
from p2pdice.ui.viewmodel import LOST_LINE, RECONNECTING_LINE, table_model
from tests.ui.hosted_with_a_bot import fresh
from tests.ui.test_lobby_actions import until

pytestmark = pytest.mark.usefixtures("private_network")  # a failing link looks for the table

GIVE_UP = 2.0


@dataclass
class Relay:
    """Plain TCP to the host: `hold` swallows what the client sends (its link looks up, and
    nothing it sends arrives), `cut` closes every connection and refuses new ones."""

    to: int
    held: bool = False
    pairs: list[tuple[asyncio.StreamWriter, asyncio.StreamWriter]] = field(default_factory=list)
    server: asyncio.Server | None = None

    async def start(self) -> int:
        self.server = await asyncio.start_server(self._pair, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _pair(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.to)
        self.pairs.append((writer, up_writer))
        await asyncio.gather(
            self._copy(reader, up_writer, upstream=True),
            self._copy(up_reader, writer, upstream=False),
            return_exceptions=True,
        )

    async def _copy(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, *, upstream: bool
    ) -> None:
        while data := await reader.read(65536):
            if upstream and self.held:
                continue
            writer.write(data)
            await writer.drain()
        writer.close()

    def cut(self) -> None:
        assert self.server is not None
        self.server.close()
        for player, host in self.pairs:
            player.transport.abort()
            host.transport.abort()


@contextlib.asynccontextmanager
async def at_a_table_over_a_relay(tmp_path: Path) -> AsyncIterator[tuple[Controller, Relay]]:
    """Ann (this terminal) joins a two-seat table with a host-run CPU over the relay; she
    opens round 1."""
    service = HostService(home=tmp_path / "host", bind="127.0.0.1", advertise=False)
    await service.start()
    runtime = None
    try:
        rules = Rules(seats=2, first_starter=FirstStarter.SEAT0)
        table = await service.open_table(TableConfig(name="kitchen", rules=rules, cpu=["medium"]))
        relay = Relay(service.port)
        port = await relay.start()
        runtime = await start_join(
            tmp_path / "ann",
            url=socket_url(f"127.0.0.1:{port}", table.path),
            name="Ann",
            password=None,
            spectate=False,
            table_id=table.host.table_id,
            give_up_after=GIVE_UP,
        )
        c = Controller(UiState())
        c.set_runtime(runtime)
        yield c, relay
    finally:
        if runtime is not None:
            await runtime.close()
        await service.stop()


async def test_a_move_is_not_left_pending_when_the_table_goes_out_of_reach(
    tmp_path: Path,
) -> None:
    async with at_a_table_over_a_relay(tmp_path) as (c, relay):
        await until(lambda: fresh(c).my_turn(), 20)
        relay.held = True
        c.bid()  # the opening bid: sent, never read
        assert fresh(c).snap().pending_action is not None

        relay.cut()
        await until(lambda: fresh(c).snap().link == "reconnecting", 10)
        assert table_model(c.snap()).turn_line == RECONNECTING_LINE
        c.ui.message = ""
        c.bid()
        assert c.ui.message == RECONNECTING_NOT_SENT

        await until(lambda: fresh(c).snap().link == "lost", GIVE_UP + 15)
        snap = c.snap()
        model = table_model(snap)
        assert model.turn_line == LOST_LINE
        assert snap.pending_action is None  # on its way nowhere
        assert model.entry is None and not model.my_turn and not c.my_turn()
        for key in (c.bid, c.liar):
            c.ui.message = ""
            key()
            assert c.ui.message == ENDED_NOT_SENT
            assert fresh(c).snap().pending_action is None
