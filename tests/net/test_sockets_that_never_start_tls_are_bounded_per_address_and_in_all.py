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

import aiohttp
import pytest

from p2pdice.net.server import Limits
from p2pdice.net.tls import client_context
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


async def tls_connection(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A connection to the host's port past its TLS handshake, that has sent nothing yet."""
    return await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, ssl=client_context()), 2
    )


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
    """Beyond its share, an address's sockets are closed unread, its oldest first, to make
    room for its new ones; another machine still gets in and joins."""
    limits = Limits(limit_loopback=True, sockets_per_address=4)  # loopback as a LAN machine
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        sockets = await silent_sockets(service.port, 30)
        try:
            assert await closed_by_the_host(sockets, 1.0) == 30 - 4
            async with await RawClient.connect(url_of(service, table), source="127.0.0.2") as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
        finally:
            close_all(sockets)


async def test_sockets_past_the_ports_total_are_bounded_and_a_player_still_gets_in(
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


async def test_a_full_port_makes_room_from_unfinished_requests_never_from_websockets(
    tmp_path: Path,
) -> None:
    """Sockets past their TLS handshake that never finish a request head fill the port's
    total: a newcomer closes the oldest of them, and the WebSockets open before are kept."""
    limits = Limits(max_sockets=8)
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table)
        watchers = [await RawClient.connect(url + "?spectate=1") for _ in range(2)]
        heads: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        try:
            for raw in watchers:
                await raw.send({"type": "spectate"})
                await raw.recv_type("welcome")
            for _ in range(12):
                reader, writer = await tls_connection(service.port)
                writer.write(b"GET /tables HTTP/1.1\r\nHost: attacker\r\n")  # never the end
                heads.append((reader, writer))
            assert await closed_by_the_host(heads, 1.0) >= 12 - (8 - 2)
            async with await RawClient.connect(url) as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
            for raw in watchers:
                await raw.send({"from": 0, "type": "sync"})
                assert (await raw.recv_type("entry"))["entry"]["seq"] == 0
        finally:
            close_all(heads)
            for raw in watchers:
                await raw.close()


async def test_a_plain_request_for_a_tables_path_is_not_kept_like_a_websocket(
    tmp_path: Path,
) -> None:
    """A GET of a table's path without the WebSocket upgrade is answered 400 and stays an
    HTTP socket the port may close to make room: such sockets, kept alive, used to be held
    like WebSockets and locked newcomers out."""
    limits = Limits(max_sockets=6)
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        heads: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        try:
            for _ in range(6):
                reader, writer = await tls_connection(service.port)
                writer.write(f"GET {table.path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                assert b" 400 " in await asyncio.wait_for(reader.readline(), 2)
                heads.append((reader, writer))
            async with await RawClient.connect(url_of(service, table)) as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
        finally:
            close_all(heads)


async def test_players_behind_one_address_with_lobbies_open_can_still_join(
    tmp_path: Path,
) -> None:
    """Sixteen lobbies behind one NAT address each keep a listing's socket alive: a player
    from that address joining next closes the oldest listing socket, not its own join."""
    limits = Limits(limit_loopback=True)  # loopback as a LAN machine
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        lobbies = [
            aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(ssl=client_context(), local_addr=("127.0.0.9", 0))
            )
            for _ in range(16)
        ]
        try:
            for http in lobbies:
                async with http.get(f"https://127.0.0.1:{service.port}/tables") as answer:
                    assert answer.status == 200
                    await answer.read()
            assert service.gate.by_address.get("127.0.0.9") == 16
            async with await RawClient.connect(url_of(service, table), source="127.0.0.9") as raw:
                assert raw.challenge is not None and raw.challenge["seat"] is not None
        finally:
            for http in lobbies:
                await http.close()
