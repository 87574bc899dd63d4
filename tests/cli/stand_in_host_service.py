"""A stand-in for HostService in tests of `host`'s command line, so they run without sockets:
it records that it started, and the table it opens (with the class's `rules`) is over at
once. The network itself is tested in tests/net."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest

from p2pdice.core.rules import Rules

TABLE_ID = "5eed" * 16


class StandInHostService:
    started: ClassVar[list[StandInHostService]] = []
    rules: ClassVar[Rules] = Rules(seats=2)

    def __init__(self, **kw: Any) -> None:
        self.port = 4242
        self.running = False
        self.advertise = kw.get("advertise", True)

    def join_addresses(self) -> list[str]:
        return [f"127.0.0.1:{self.port}"]

    async def start(self) -> None:
        self.running = True
        StandInHostService.started.append(self)

    async def stop(self, *, end_games: bool = True) -> None:
        self.running = False

    async def open_table(self, config: Any, *, resume_lines: Any = None) -> SimpleNamespace:
        over = asyncio.Event()
        over.set()
        state = SimpleNamespace(rules=self.rules, game=None, roster=(), cpu_fill=False)
        return SimpleNamespace(
            id=TABLE_ID,
            path=f"/t/{TABLE_ID}",
            folder=Path("/nowhere"),
            host=SimpleNamespace(state=state, chain=SimpleNamespace(hashes=[])),
            server=SimpleNamespace(over=over, listeners=[], players_behind=list),
        )


def stand_in_host_service(
    monkeypatch: pytest.MonkeyPatch, rules: Rules
) -> type[StandInHostService]:
    """Put the stand-in in HostService's place for one test; its tables have `rules`."""
    import p2pdice.net.hostapp

    monkeypatch.setattr(StandInHostService, "started", [])
    monkeypatch.setattr(StandInHostService, "rules", rules)
    monkeypatch.setattr(p2pdice.net.hostapp, "HostService", StandInHostService)
    return StandInHostService
