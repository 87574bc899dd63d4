"""Another p2pdice client already running on a player's machine, as a process in that
machine's namespace: `python -m tests.net.mdns_neighbour ADDRESS STEAL_FROM SECONDS`.

It browses for tables as a lobby does (its own zeroconf, bound to port 5353 like every mDNS
client). Two clients on one machine share port 5353, and an mDNS responder answers a query
that asks for a unicast reply (python-zeroconf's first query is one) by unicast to that port:
the kernel hands such a datagram to one of the sockets bound there, picked by a hash of the
addresses, so another client on the machine can receive the answer meant for a `join`. Which
one gets it is fixed for a pair of addresses but random across networks; here a reuseport
program makes the choice deterministic: unicast datagrams from STEAL_FROM go to this client
(the first socket bound at ADDRESS:5353), everything else to the next one (the `join`).
Prints one JSON line when ready, and exits after SECONDS.
"""

from __future__ import annotations

import asyncio
import ctypes
import ipaddress
import json
import socket
import sys

from p2pdice.net.discovery import Browser, new_zeroconf

SO_ATTACH_REUSEPORT_CBPF = 51  # linux/asm-generic/socket.h
SKF_NET_OFF = -0x100000  # classic BPF: load relative to the network (IP) header


class SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_uint16),
        ("jt", ctypes.c_uint8),
        ("jf", ctypes.c_uint8),
        ("k", ctypes.c_uint32),
    ]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]


def steer(sock: socket.socket, steal_from: str) -> None:
    """Datagrams from `steal_from` to socket 0 of the reuseport group, the rest to socket 1
    (an index past the group's end falls back to the kernel's hash)."""
    source = int(ipaddress.IPv4Address(steal_from))
    program = (SockFilter * 4)(
        SockFilter(0x20, 0, 0, (SKF_NET_OFF + 12) & 0xFFFFFFFF),  # ld [ip source]
        SockFilter(0x15, 0, 1, source),  # jeq steal_from
        SockFilter(0x06, 0, 0, 0),  # ret 0: this client
        SockFilter(0x06, 0, 0, 1),  # ret 1: the next client
    )
    fprog = SockFprog(len(program), program)
    sock.setsockopt(socket.SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, bytes(fprog))


async def main(address: str, steal_from: str, seconds: float) -> None:
    azc = new_zeroconf()
    browser = Browser(azc)
    await browser.start()
    steered = 0
    for reader in azc.zeroconf.engine.readers:
        sock = reader.transport.get_extra_info("socket")
        if sock is not None and sock.getsockname()[:2] == (address, 5353):
            steer(sock, steal_from)
            steered += 1
    print(json.dumps({"steered": steered}), flush=True)
    try:
        await asyncio.sleep(seconds)
    finally:
        await browser.stop()
        await azc.async_close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
