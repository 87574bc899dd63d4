"""A stranger announcing fresh table names as fast as it can (thousands a second, each an
"added" to every browser) filled the browser's queue of names waiting for a lookup, oldest
out first: a real table opened meanwhile was pushed out before its lookup, and zeroconf
reports a name added only once, so no lobby listed it, for as long as the churn went on and
after (SPEC.md 10.4: one flooding machine must not crowd out the tables of others). Names
now wait, and are looked up, in a bounded number per announcing address.

Real zeroconf on the test's private loopback; the churner, a process of its own, sends from
127.0.0.2.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys

import pytest

from p2pdice.net.discovery import Advertiser, Browser, new_zeroconf
from tests.support.waiting import reached

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
CHURN_SECONDS = 14.0

#: Fresh names, five a packet, with their SRV, TXT and A records, from 127.0.0.2, for
#: argv[1] seconds (bounded in packets too).
CHURNER = """
import secrets, socket, sys, time
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText
from zeroconf.const import (_CLASS_IN, _CLASS_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A,
    _TYPE_PTR, _TYPE_SRV, _TYPE_TXT)
KIND = "_p2pdice._tcp.local."
sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.2", 5353))
sock.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF, socket.inet_aton("127.0.0.1"))
end, sent = time.monotonic() + float(sys.argv[1]), 0
print("churning", flush=True)
while time.monotonic() < end and sent < 100000:
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    for j in range(5):
        tid = secrets.token_hex(32)
        name, host = f"Churn {sent}-{j} [{tid[:8]}].{KIND}", f"c{sent}-{j}.local."
        for record in (
            DNSPointer(KIND, _TYPE_PTR, _CLASS_IN, 4500, name),
            DNSService(name, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, 9100, host),
            DNSText(name, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, b"\\x0bname=Churn"),
            DNSAddress(host, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120, bytes([127, 0, 0, 2])),
        ):
            out.add_answer_at_time(record, 0)
    for packet in out.packets():
        sock.sendto(packet, ("224.0.0.251", 5353))
    sent += 1
    time.sleep(0.002)
"""


async def test_a_table_opened_during_a_churn_of_fresh_names_is_listed() -> None:
    lobby_zc, host_zc = new_zeroconf(), new_zeroconf()
    browser = Browser(lobby_zc)
    await browser.start()
    churner = subprocess.Popen(
        [sys.executable, "-c", CHURNER, str(CHURN_SECONDS)], stdout=subprocess.PIPE, text=True
    )
    advert = Advertiser(
        host_zc,
        name="Kitchen",
        port=9000,
        addresses=["127.0.0.1"],
        txt={"name": "Kitchen", "id": TABLE_ID, "path": f"/t/{TABLE_ID}", "phase": "lobby"},
    )
    try:
        assert churner.stdout is not None and churner.stdout.readline() == "churning\n"
        await asyncio.sleep(3.0)  # the churn is in full flow
        instance = await asyncio.wait_for(advert.start(), 15)
        listed = await reached(lambda: instance in browser.tables, 8.0)  # the churn goes on
        assert churner.poll() is None, "the churn ended before the check"
        assert listed, "the table opened during the churn was never listed"
        assert len(browser.tables) <= 200
    finally:
        churner.kill()
        churner.wait()
        await advert.stop()
        await browser.stop()
        for azc in (host_zc, lobby_zc):
            await azc.async_close()
