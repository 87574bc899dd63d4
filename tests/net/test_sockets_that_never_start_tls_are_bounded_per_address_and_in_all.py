"""Sockets that connect and never send a ClientHello (item: half-open TLS handshakes).

asyncio gives every TLS socket a 256 KiB read buffer the moment it is accepted, and the
host kept each for its whole handshake timeout (10 s), whatever the number: one machine on
the Wi-Fi opening 9,000 such sockets took 2.7 GB of the host's memory in ten seconds (the
host raises its open-file limit to the hard one, so descriptors did not stop it first).
The port now counts sockets per source address and in all before any TLS state exists
(net/tls.py SocketGate, SPEC.md 10.1 "Limits of the reference host").
"""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from p2pdice.net.server import Limits
from tests.support.wire import RawClient, hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")


async def silent_sockets(
    port: int, count: int, source: str = "127.0.0.1"
) -> list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]:
    """`count` plain TCP connections to the host's port that send nothing at all."""
    sockets = []
    for _ in range(count):
        sockets.append(
            await asyncio.wait_for(
                asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 2
            )
        )
    return sockets


async def closed_by_the_host(
    sockets: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]], within: float
) -> int:
    """How many of `sockets` the host has closed within `within` seconds (it sends nothing
    before the client's ClientHello, so a socket it keeps reads nothing)."""

    async def closed(reader: asyncio.StreamReader) -> bool:
        try:
            return await asyncio.wait_for(reader.read(1), within) == b""
        except TimeoutError:
            return False
        except OSError:
            return True  # reset: closed too

    results = await asyncio.gather(*(closed(reader) for reader, _ in sockets))
    return sum(results)


def close_all(sockets: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]) -> None:
    for _, writer in sockets:
        with contextlib.suppress(Exception):
            writer.close()


async def test_one_address_holds_only_so_many_sockets_before_tls(tmp_path: Path) -> None:
    """Beyond its share, an address's new sockets are closed at once, unread; another
    machine still gets in and joins."""
    limits = Limits(limit_loopback=True, sockets_per_address=4)  # loopback as a LAN machine
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        sockets = await silent_sockets(service.port, 30)
        try:
            assert await closed_by_the_host(sockets, 1.0) == 30 - 4
            async with await RawClient.connect(url_of(service, table), source="127.0.0.2") as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
        finally:
            close_all(sockets)


async def test_sockets_from_many_addresses_are_bounded_in_all_and_a_player_still_gets_in(
    tmp_path: Path,
) -> None:
    """Past the port's total, a new socket closes the one that has waited longest in its TLS
    handshake: silent sockets from any number of addresses never pile up, and an honest
    client, whose handshake takes milliseconds, is served."""
    limits = Limits(max_sockets=8)  # loopback exempt per address: only the total holds
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        sockets = await silent_sockets(service.port, 20)
        try:
            assert await closed_by_the_host(sockets, 1.0) >= 20 - 8
            async with await RawClient.connect(url_of(service, table)) as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
        finally:
            close_all(sockets)
