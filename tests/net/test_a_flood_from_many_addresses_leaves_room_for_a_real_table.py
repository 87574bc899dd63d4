"""One machine can hold many addresses on a LAN. Announcing MAX_PER_SENDER fake tables from
each of seven of them (224 in all) filled the browser's MAX_TABLES, and a real table opened
afterwards was only counted, never listed: the lobby showed no row for it at all (its
address had no other table to count it under). At MAX_TABLES the address with the most
tables now gives up its newest for a table from an address with fewer (SPEC.md 10.4: a
flood must not crowd out the tables of others).

Real zeroconf on the test's private loopback; the flooder, a process of its own, sends from
127.0.0.2 to 127.0.0.8, each fake from the address it names.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from p2pdice.net.discovery import MAX_PER_SENDER, MAX_TABLES, Advertiser, Browser, new_zeroconf
from tests.support.waiting import reached

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
ADDRESSES = [f"127.0.0.{i}" for i in range(2, 9)]
assert len(ADDRESSES) * MAX_PER_SENDER > MAX_TABLES

#: argv: seconds, tables per address, addresses. Each address's fakes, re-sent every second.
FLOODER = """
import socket, sys, time
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
from zeroconf.const import (_CLASS_IN, _CLASS_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A,
    _TYPE_PTR, _TYPE_SRV, _TYPE_TXT)
KIND = "_p2pdice._tcp.local."
seconds, per, addresses = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
blasts = []
for a, address in enumerate(addresses):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((address, 5353))
    sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
    packets = []
    for i in range(0, per, 4):
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for j in range(i, min(i + 4, per)):
            name, host = f"Fake {a}-{j}.{KIND}", f"fake-{a}-{j}.local."
            for record in (
                DNSPointer(KIND, _TYPE_PTR, _CLASS_IN, 4500, name),
                DNSService(name, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, 9100, host),
                DNSText(name, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, b"\\x09name=Fake"),
                DNSAddress(host, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120, socket.inet_aton(address)),
            ):
                out.add_answer_at_time(record, 0)
        packets += out.packets()
    blasts.append((sock, packets))
end = time.monotonic() + seconds
print("flooding", flush=True)
for _ in range(int(seconds) + 1):
    if time.monotonic() >= end:
        break
    for sock, packets in blasts:
        for packet in packets:
            sock.sendto(packet, ("224.0.0.251", 5353))
            time.sleep(0.002)
    time.sleep(max(0.0, min(1.0, end - time.monotonic())))
"""


async def test_a_real_table_opened_after_a_flood_from_many_addresses_is_listed() -> None:
    lobby_zc, host_zc = new_zeroconf(), new_zeroconf()
    browser = Browser(lobby_zc)
    await browser.start()
    flooder = subprocess.Popen(
        [sys.executable, "-c", FLOODER, "20", str(MAX_PER_SENDER), *ADDRESSES],
        stdout=subprocess.PIPE,
        text=True,
    )
    advert = Advertiser(
        host_zc,
        name="Kitchen",
        port=9000,
        addresses=["127.0.0.1"],
        txt={"name": "Kitchen", "id": TABLE_ID, "path": f"/t/{TABLE_ID}", "phase": "lobby"},
    )
    try:
        assert flooder.stdout is not None and flooder.stdout.readline() == "flooding\n"
        await reached(lambda: len(browser.tables) >= MAX_TABLES, 12.0)
        assert len(browser.tables) == MAX_TABLES, "the flood never filled the browser"
        instance = await asyncio.wait_for(advert.start(), 15)
        assert await reached(lambda: instance in browser.tables, 5.0), (
            "the real table was never listed"
        )
        assert len(browser.tables) <= MAX_TABLES
        by_address: dict[str, int] = {}
        for table in browser.tables.values():
            by_address[table.addresses[0]] = by_address.get(table.addresses[0], 0) + 1
        assert max(by_address.values()) <= MAX_PER_SENDER
    finally:
        flooder.kill()
        flooder.wait()
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()
