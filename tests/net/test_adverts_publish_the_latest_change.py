"""A change to a table made while its advertisement is still being announced is published
after that announcement, so the advertisement ends on the table's latest state."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from tests.support.wire import hosted

pytestmark = pytest.mark.usefixtures("private_network")


class SlowAdvertiser:
    """Stands in for zeroconf: each update takes a while, as its announcements do."""

    def __init__(self) -> None:
        self.txt: dict[str, str] = {}
        self.published: list[dict[str, str]] = []

    async def update(self, txt: dict[str, str]) -> None:
        if txt == self.txt:
            return
        self.txt = dict(txt)
        await asyncio.sleep(0.2)
        self.published.append(dict(txt))

    async def stop(self) -> None:
        pass


async def test_a_change_during_an_advertisement_update_is_published_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with hosted(tmp_path / "h", rules=Rules(seats=3)) as (_service, table):
        advertiser = SlowAdvertiser()
        table.advertiser = advertiser  # type: ignore[assignment]
        table._on_change()
        await asyncio.sleep(0.05)  # the first update is under way
        later = {**table.txt(), "seats": "2/3"}
        monkeypatch.setattr(table, "txt", lambda: later)
        table._on_change()  # a second change while the first is still being announced
        assert table._txt_task is not None
        await asyncio.wait_for(table._txt_task, 5)
        assert advertiser.published[-1] == later
        table.advertiser = None
