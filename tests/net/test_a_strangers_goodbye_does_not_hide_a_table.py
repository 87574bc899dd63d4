"""Anyone on the LAN can send an mDNS goodbye (a record with TTL 0) for any table's name, and
python-zeroconf's browser then reports the table removed. A goodbye that does not come from
the table's own address must not take a live table out of a lobby or `join NAME` (before: one
spoofed packet a second kept the real "Kitchen" out of every lobby, so a fake of the name
was the only one left to join). The host's own goodbye still removes the table at once.

Real zeroconf on the test's private loopback: the host advertises at 127.0.0.1, the stranger
sends from 127.0.0.2 (another address of the same loopback, as another machine would).
The stranger's goodbyes are seen to arrive (the browser's ledger hears them from 127.0.0.2,
and zeroconf's report of the removal has the browser look the table up again), so that the
test cannot pass because they stopped reaching the browser.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from zeroconf import DNSOutgoing, DNSPointer
from zeroconf.const import _CLASS_IN, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_PTR

from p2pdice.net.discovery import SERVICE_TYPE, Advertiser, Browser, new_zeroconf
from tests.support.waiting import reached

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
STRANGER = "127.0.0.2"


def goodbye_from(address: str, instance: str) -> None:
    """One unsolicited mDNS answer withdrawing `instance` (its PTR with TTL 0), sent from
    `address`, port 5353, to the mDNS group."""
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 0, instance), 0)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, 5353))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        for packet in out.packets():
            sock.sendto(packet, ("224.0.0.251", 5353))


async def test_a_strangers_goodbye_leaves_the_table_listed_and_its_hosts_removes_it() -> None:
    host_zc, lobby_zc = new_zeroconf(), new_zeroconf()
    advert = Advertiser(
        host_zc,
        name="Kitchen",
        port=9000,
        addresses=["127.0.0.1"],
        txt={"name": "Kitchen", "id": TABLE_ID, "path": f"/t/{TABLE_ID}", "phase": "lobby"},
    )
    browser = Browser(lobby_zc)
    heard: list[tuple[str, str]] = []  # goodbyes the ledger handed to the browser
    farewell = browser.ledger.on_farewell
    assert farewell is not None

    def hear(name: str, sender: str) -> None:
        heard.append((name, sender))
        farewell(name, sender)

    browser.ledger.on_farewell = hear
    confirmations: list[str] = []  # lookups made because zeroconf reported a removal
    lookup = browser._lookup

    async def looking_up(name: str) -> bool:
        if name in browser._confirming:
            confirmations.append(name)
        return await lookup(name)

    browser._lookup = looking_up  # type: ignore[method-assign]
    await browser.start()
    try:
        instance = await asyncio.wait_for(advert.start(), 10)
        assert await reached(lambda: instance in browser.tables, 8), "never listed"
        removed: list[str] = []
        for _ in range(5):  # one a second, as a prankster would keep sending them
            goodbye_from(STRANGER, instance)
            await asyncio.sleep(1.0)
            removed += [e.table.service for e in browser.pending() if e.kind == "removed"]
            assert instance in browser.tables, "a stranger's goodbye took the table out"
        assert removed == []
        assert heard.count((instance, STRANGER)) >= 3, f"the goodbyes did not arrive: {heard}"
        assert instance in confirmations, "zeroconf never reported the table removed"
        await advert.stop()  # the host's own goodbye, from the table's address
        assert await reached(lambda: instance not in browser.tables, 2.0), "still listed"
        removed = [e.table.service for e in browser.pending() if e.kind == "removed"]
        assert removed == [instance]
    finally:
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()
