"""The lobby looks up, on a thread, whether this device holds a seat at each table it hears
of (its seat record, or its own transcript of the table when the record is lost), once for
each table id and host key. It stopped looking once it had asked about four times as many
as it listed: a stranger's 32 tables announcing a fresh id at each update used that up in
seconds, and once they were withdrawn, the user's own table heard afterwards was never looked up (no "(you)", and with
its seat record lost the seat was not found). The lobby now forgets the oldest it asked
about instead of stopping.

No network: the browser is replaced by one that yields the events given.
"""

from __future__ import annotations

import asyncio
import secrets
from pathlib import Path
from typing import Any

import pytest

from p2pdice.cli import lobby as cli_lobby
from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import Advert
from p2pdice.net import discovery
from p2pdice.net.discovery import BrowseEvent, TableAd
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState

MINE = "3f" * 32
HOST = "a1" * 8


def table(service: str, address: str, table_id: str, hk: str | None = None) -> TableAd:
    txt = {"name": service, "id": table_id, "path": f"/t/{table_id}", "phase": "playing"}
    return TableAd(service, service, [address], 9000, Advert.from_txt(txt | {"hk": hk or ""}))


class ScriptedBrowser:
    """Yields the churn (32 tables, each updated 10 times with a fresh id, then all but one
    withdrawn), then our table."""

    def __init__(self, azc: Any) -> None:
        self.ignored: dict[str, int] = {}
        churn = [
            BrowseEvent("added" if n == 0 else "updated", table(f"fake {i}", "10.0.0.66", tid))
            for n in range(10)
            for i in range(32)
            for tid in [secrets.token_hex(32)]
        ]
        gone = [BrowseEvent("removed", table(f"fake {i}", "10.0.0.66", "")) for i in range(1, 32)]
        ours = BrowseEvent("added", table("Kitchen", "10.0.0.5", MINE, HOST))
        self.queue = [*churn, *gone, ours]

    async def start(self) -> None:
        return None

    async def stop(self) -> None:
        return None

    async def events(self):
        while self.queue:
            yield self.queue.pop(0)
        await asyncio.Event().wait()

    def pending(self) -> list[BrowseEvent]:
        return []


class NoZeroconf:
    async def async_close(self) -> None:
        return None


async def test_the_lobby_looks_for_its_seat_at_a_table_heard_after_a_churn_of_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(discovery, "Browser", ScriptedBrowser)
    monkeypatch.setattr(discovery, "new_zeroconf", lambda: NoZeroconf())
    monkeypatch.setattr(cli_lobby, "REDRAW_EVERY", 0.0)
    asked: list[str] = []

    def look_for_seat(self: CliLobby, table_id: str, host_prefix: str) -> bool:
        asked.append(table_id)
        return table_id == MINE and host_prefix == HOST

    monkeypatch.setattr(CliLobby, "look_for_seat", look_for_seat)
    c = Controller(UiState(screen="lobby", from_lobby=True), invalidate=lambda: None)
    services = CliLobby(tmp_path)
    LobbyActions(c, services)
    task = asyncio.get_running_loop().create_task(services._browse(c, c.lobby))
    try:
        for _ in range(200):
            if "Kitchen" in c.ui.book.entries:
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.1)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
    assert "Kitchen" in c.ui.book.entries
    assert MINE in asked, "the user's own table was never looked up"
    assert MINE in c.ui.book.seated
