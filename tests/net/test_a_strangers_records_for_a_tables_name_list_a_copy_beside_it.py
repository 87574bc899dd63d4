"""A stranger answering for a real table's own instance name (`Kitchen [3f3f3f3f]`: an SRV and
TXT with the cache-flush bit, and an A record of its own address) replaced the table in
python-zeroconf's cache, and so in every lobby: three packets moved the real table's row to
the stranger's address for as long as the stranger liked (or, if it did not answer the
lobby's check, removed the table from the lobby). Its records are now listed as a copy
beside the table, as a copy under another name always was (a copy gets no client: the key
check, docs/lan.md); the table stays listed where its host is.

Real zeroconf on the test's private loopback; the stranger sends from 127.0.0.2. Where the
table must stay unchanged, the stranger's records are seen to arrive (the browser's ledger
holds its SRV, from 127.0.0.2, and the browser looked the name up again after them), so that
a test cannot pass because they stopped reaching the browser.
"""

from __future__ import annotations

import asyncio
import socket

import pytest
from zeroconf import DNSOutgoing
from zeroconf.asyncio import AsyncServiceInfo
from zeroconf.const import _FLAGS_AA, _FLAGS_QR_RESPONSE

from p2pdice.net.discovery import SERVICE_TYPE, Advertiser, Browser, new_zeroconf
from tests.support.waiting import reached

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
TXT = {"name": "Kitchen", "id": TABLE_ID, "path": f"/t/{TABLE_ID}", "phase": "lobby"}
STRANGER = "127.0.0.2"


def copy_from(
    address: str, instance: str, *, at: str | None = None, seats: str = "", server: str = ""
) -> None:
    """The table's records (with `seats`), at address `at` (else `address`) port 9999, sent
    unasked from `address`; with `server`, only an SRV and TXT leading to that host name."""
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        instance,
        parsed_addresses=[at or address],
        port=9999,
        properties={k.encode(): v.encode() for k, v in {**TXT, "seats": seats}.items() if v},
        server=server or "stranger.local.",
    )
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    records = [info.dns_service(), info.dns_text()]
    if not server:
        records += [info.dns_pointer(), *info.dns_addresses()]
    for record in records:
        out.add_answer_at_time(record, 0)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, 5353))
        sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
        for packet in out.packets():
            sock.sendto(packet, ("224.0.0.251", 5353))


def count_lookups(browser: Browser) -> list[str]:
    """The names `browser` looks up from now on, in order."""
    names: list[str] = []
    lookup = browser._lookup

    async def looking_up(name: str) -> bool:
        names.append(name)
        return await lookup(name)

    browser._lookup = looking_up  # type: ignore[method-assign]
    return names


async def test_a_strangers_records_for_a_tables_name_do_not_move_the_table() -> None:
    host_zc, lobby_zc = new_zeroconf(), new_zeroconf()
    advert = Advertiser(host_zc, name="Kitchen", port=9000, addresses=["127.0.0.1"], txt=TXT)
    browser = Browser(lobby_zc)
    await browser.start()
    try:
        instance = await asyncio.wait_for(advert.start(), 10)
        assert await reached(lambda: instance in browser.tables, 8), "never listed"

        def places() -> set[tuple[str, int]]:
            return {(t.addresses[0], t.port) for t in browser.tables.values()}

        for _ in range(3):
            copy_from(STRANGER, instance)
            await asyncio.sleep(1.0)
        assert await reached(lambda: (STRANGER, 9999) in places(), 3), "copy never heard"
        real = browser.tables[instance]
        assert (real.addresses, real.port) == (["127.0.0.1"], 9000), "the table was moved"
        assert places() == {("127.0.0.1", 9000), (STRANGER, 9999)}
        assert {t.table_id for t in browser.tables.values()} == {TABLE_ID}
    finally:
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()


async def test_a_strangers_records_naming_the_hosts_address_do_not_remove_the_table() -> None:
    """The same records, naming the host's own address (which the stranger's machine cannot
    vouch for): the lookup of the name found no address to contact, and the table was
    dropped from the lobby."""
    host_zc, lobby_zc = new_zeroconf(), new_zeroconf()
    advert = Advertiser(host_zc, name="Kitchen", port=9000, addresses=["127.0.0.1"], txt=TXT)
    browser = Browser(lobby_zc)
    await browser.start()
    try:
        instance = await asyncio.wait_for(advert.start(), 10)
        assert await reached(lambda: instance in browser.tables, 8), "never listed"
        looked_up = count_lookups(browser)
        for i in range(3):  # a new TXT each time: each is an update, and a lookup
            copy_from(STRANGER, instance, at="127.0.0.1", seats=f"{i}/4")
            await asyncio.sleep(1.0)
            assert instance in browser.tables, "the table was dropped"
        # The stranger's records arrived: its SRV is in the ledger, and each was looked up.
        assert browser.ledger.served(instance, "stranger.local.", 9999, [STRANGER])
        assert looked_up.count(instance) >= 3, f"looked up {looked_up}"
        real = browser.tables[instance]
        assert (real.addresses, real.port) == (["127.0.0.1"], 9000)
        assert [e.kind for e in browser.pending() if e.kind == "removed"] == []
    finally:
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()


async def test_a_strangers_service_record_cannot_send_the_table_to_another_port() -> None:
    """An SRV for the table's name sent by the stranger, leading to the host's own host name
    (whose address its machine announced) at another port: the table's row moved to that
    port, where nothing answers, and the lobby then dropped it."""
    host_zc, lobby_zc = new_zeroconf(), new_zeroconf()
    advert = Advertiser(host_zc, name="Kitchen", port=9000, addresses=["127.0.0.1"], txt=TXT)
    browser = Browser(lobby_zc)
    await browser.start()
    try:
        instance = await asyncio.wait_for(advert.start(), 10)
        assert await reached(lambda: instance in browser.tables, 8), "never listed"
        looked_up = count_lookups(browser)
        for i in range(3):  # a new TXT each time: each is an update, and a lookup
            copy_from(STRANGER, instance, seats=f"{i}/4", server=advert.server)
            await asyncio.sleep(1.0)
        # The stranger's records arrived: its SRV is in the ledger, and each was looked up.
        assert browser.ledger.served(instance, advert.server, 9999, [STRANGER])
        assert looked_up.count(instance) >= 3, f"looked up {looked_up}"
        assert [(t.addresses, t.port) for t in browser.tables.values()] == [(["127.0.0.1"], 9000)]
    finally:
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()
