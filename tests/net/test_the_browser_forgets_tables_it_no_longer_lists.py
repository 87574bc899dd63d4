"""The mDNS browser (net.discovery.Browser) keeps no trace of a table it stopped listing:

- a table given up at MAX_TABLES for an address with fewer, then listed again, is no longer
  counted past the caps (before: "N not listed" counted it still);
- a table given up at MAX_TABLES loses its waiting lookup and its confirmation flag, as a
  dropped one does (before: a lookup of it was still made);
- a name pushed out of the lookup queue loses its confirmation flag (before: a later lookup
  of the table for an update, losing one answer, dropped the table instead of retrying);
- a row the lobby's probes drop is forgotten by the browser (before: a copy `<name> @<addr>`
  was removed only by a goodbye from its own address, and one whose machine vanished counted
  toward MAX_PER_SENDER for good, so that address's real table was not listed).

No zeroconf: the browser's lookups (AsyncServiceInfo) answer from a table of this test, and
the browser is told of changes as zeroconf's ServiceBrowser tells it. Loopback addresses in
the private namespace (on-link, as the browser asks when it cannot see senders).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from zeroconf import ServiceStateChange

from p2pdice.cli import lobby as cli_lobby
from p2pdice.cli.lobby import CliLobby
from p2pdice.net import discovery
from p2pdice.net.discovery import SERVICE_TYPE, Browser, copy_key
from p2pdice.ui import lobbymodel
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.state import UiState

pytestmark = pytest.mark.usefixtures("private_network")

CLOSED_PORT = 9  # nothing listens there in the namespace: a probe is refused at once


def name(label: str) -> str:
    return f"{label}.{SERVICE_TYPE}"


class Lookups:
    """What each name's lookup finds: its addresses, None (no answer), or an Event the
    lookup waits for before answering; and every name looked up, in order."""

    def __init__(self) -> None:
        self.answers: dict[str, list[str] | None] = {}
        self.gates: dict[str, asyncio.Event] = {}
        self.asked: list[str] = []

    def info_class(self) -> Any:
        lookups = self

        class Info:
            def __init__(self, _type: str, name: str) -> None:
                self.name = name
                self.server = f"{name.split('.')[0]}-host.local."
                self.port = CLOSED_PORT
                self.properties = {b"id": b"3f" * 32, b"name": name.split(".")[0].encode()}
                self._addresses: list[str] = []

            async def async_request(self, _zc: Any, _timeout: float, _qt: Any = None) -> bool:
                lookups.asked.append(self.name)
                gate = lookups.gates.get(self.name)
                if gate is not None:
                    await asyncio.wait_for(gate.wait(), 5.0)
                found = lookups.answers.get(self.name)
                if found is None:
                    return False
                self._addresses = list(found)
                return True

            def parsed_addresses(self, _version: Any = None) -> list[str]:
                return self._addresses

        return Info


@pytest.fixture
def lookups(monkeypatch: pytest.MonkeyPatch) -> Lookups:
    found = Lookups()
    monkeypatch.setattr(discovery, "AsyncServiceInfo", found.info_class())
    monkeypatch.setattr(discovery, "MAX_TABLES", 3)
    monkeypatch.setattr(discovery, "MAX_PER_SENDER", 3)
    return found


def new_browser() -> Browser:
    return Browser(SimpleNamespace(zeroconf=SimpleNamespace()))  # type: ignore[arg-type]


def tell(browser: Browser, label: str, change: ServiceStateChange) -> None:
    browser._on_change(
        zeroconf=None, service_type=SERVICE_TYPE, name=name(label), state_change=change
    )


async def settled(browser: Browser) -> None:
    """Until no lookup is in flight (at most 5 s)."""
    for _ in range(500):
        await asyncio.sleep(0.01)
        if not browser._tasks:
            return
    raise AssertionError("lookups still in flight after 5 s")


async def listed(browser: Browser, lookups: Lookups, label: str, address: str) -> None:
    lookups.answers[name(label)] = [address]
    tell(browser, label, ServiceStateChange.Added)
    await settled(browser)


async def test_a_table_given_up_at_the_cap_and_listed_again_is_not_counted_past_it(
    lookups: Lookups,
) -> None:
    browser = new_browser()
    for label, address in (("a1", "127.0.0.2"), ("a2", "127.0.0.2"), ("b1", "127.0.0.3")):
        await listed(browser, lookups, label, address)
    await listed(browser, lookups, "c1", "127.0.0.4")  # a2 gives way: .2 had the most
    assert name("a2") not in browser.tables and browser.ignored["127.0.0.2"] == 1
    lookups.answers[name("b1")] = None
    tell(browser, "b1", ServiceStateChange.Removed)  # its host gone: room again
    await settled(browser)
    assert name("b1") not in browser.tables
    tell(browser, "a2", ServiceStateChange.Updated)
    await settled(browser)
    assert name("a2") in browser.tables
    assert browser.ignored["127.0.0.2"] == 0, browser.ignored


async def test_a_table_given_up_at_the_cap_is_not_looked_up_for_a_confirmation(
    lookups: Lookups, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = new_browser()
    for label, address in (("a1", "127.0.0.2"), ("a2", "127.0.0.2"), ("b1", "127.0.0.3")):
        await listed(browser, lookups, label, address)
    monkeypatch.setattr(discovery, "MAX_RESOLVING", 1)
    lookups.gates[name("c1")] = gate = asyncio.Event()
    lookups.answers[name("c1")] = ["127.0.0.4"]
    tell(browser, "c1", ServiceStateChange.Added)  # in flight, waiting for the gate
    await asyncio.sleep(0.05)
    tell(browser, "a2", ServiceStateChange.Removed)  # a stranger's goodbye: a2 waits
    assert name("a2") in browser._confirming
    asked = lookups.asked.count(name("a2"))
    gate.set()
    await settled(browser)
    assert name("c1") in browser.tables and name("a2") not in browser.tables  # given up
    assert lookups.asked.count(name("a2")) == asked, "a table given up was looked up again"
    assert name("a2") not in browser._confirming


async def test_a_confirmation_pushed_out_of_the_queue_leaves_no_flag(
    lookups: Lookups, monkeypatch: pytest.MonkeyPatch
) -> None:
    browser = new_browser()
    await listed(browser, lookups, "t", "127.0.0.2")
    assert [e.kind for e in browser.pending()] == ["added"]
    monkeypatch.setattr(discovery, "MAX_RESOLVING", 0)  # names wait
    monkeypatch.setattr(discovery, "MAX_WAITING", 1)
    tell(browser, "t", ServiceStateChange.Removed)  # a stranger's goodbye: t waits, flagged
    tell(browser, "u", ServiceStateChange.Added)  # pushes t out of the queue
    assert name("t") not in browser._waiting
    monkeypatch.setattr(discovery, "MAX_RESOLVING", 16)
    lookups.answers[name("t")] = None  # the update's lookup loses its one answer
    tell(browser, "t", ServiceStateChange.Updated)
    await settled(browser)
    assert name("t") in browser.tables, "one lost answer to an update dropped the table"
    assert "removed" not in [e.kind for e in browser.pending()]
    await browser.stop()


async def test_a_copy_the_lobby_drops_leaves_room_for_its_addresss_real_table(
    lookups: Lookups, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(discovery, "MAX_PER_SENDER", 1)
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.1)
    monkeypatch.setattr(cli_lobby, "PROBE_TICK", 0.05)
    browser = new_browser()
    await listed(browser, lookups, "kitchen", "127.0.0.2")
    await listed(browser, lookups, "kitchen", "127.0.0.3")  # a stranger's records: a copy
    copy = copy_key(name("kitchen"), "127.0.0.3")
    assert copy in browser.tables
    c = Controller(UiState(screen="lobby", from_lobby=True), invalidate=lambda: None)
    book = c.ui.book
    loop = asyncio.get_running_loop()
    for event in browser.pending():
        t = event.table
        book.announce(t.service, t.name, t.addresses, t.port, t.advert, loop.time())
    assert copy in book.entries
    services = CliLobby(tmp_path)
    LobbyActions(c, services)
    services.browser = browser  # as the browse sets it
    services.start_probing(c)
    try:
        for _ in range(100):  # at most 5 s: three refused probes drop each row
            if not book.entries:
                break
            await asyncio.sleep(0.05)
    finally:
        await services.stop()
    assert not book.entries, "the probes dropped no row"
    assert copy not in browser.tables, "the browser still tracks the copy the lobby dropped"
    await listed(browser, lookups, "porch", "127.0.0.3")  # that address's own table
    assert name("porch") in browser.tables, browser.ignored
