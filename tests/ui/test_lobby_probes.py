"""The lobby's liveness probes (cli.lobby.CliLobby) on loopback, without mDNS: a listed
table takes the host's fresher listing, and one whose host is gone greys out, then goes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pdice.cli import lobby as cli_lobby
from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import Advert
from p2pdice.core.rules import Rules
from p2pdice.ui import lobbymodel
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState
from tests.support.wire import hosted

SERVICE = "kitchen._p2pdice._tcp.local."


async def wait_for(predicate, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


async def test_probes_refresh_a_listed_table_and_drop_one_whose_host_is_gone(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.1)
    monkeypatch.setattr(cli_lobby, "PROBE_TICK", 0.05)
    c = Controller(UiState(screen="lobby", from_lobby=True))
    services = CliLobby(tmp_path / "me")
    LobbyActions(c, services)
    book = c.ui.book
    async with hosted(tmp_path / "host", rules=Rules(seats=3), name="kitchen") as (service, t):
        old = Advert.from_txt({"id": t.id, "seats": "2/3", "phase": "lobby", "path": t.path})
        book.announce(SERVICE, "kitchen", ["127.0.0.1"], service.port, old, 0.0)
        services.start_probing(c)
        try:
            await wait_for(lambda: book.entries[SERVICE].alive is True)
            entry = book.entries[SERVICE]
            assert entry.advert.seats == (0, 3) and not entry.stale  # the host's own listing
        finally:
            await services.stop()
    services.start_probing(c)
    try:
        await wait_for(lambda: SERVICE not in book.entries or book.entries[SERVICE].stale)
        assert [row.phase for row in book.rows()] in ([], ["not answering"])
        await wait_for(lambda: SERVICE not in book.entries)  # no goodbye needed
    finally:
        await services.stop()
