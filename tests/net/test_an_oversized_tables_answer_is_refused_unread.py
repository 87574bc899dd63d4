"""`join HOST:PORT` (and the lobby's probes, through the same `fetch_listing`) reads at most
LISTING_BYTES of a `GET /tables` answer: a stranger's 64 MiB answer, streamed or announced
by its length, is refused after a few hundred kilobytes, not read into memory."""

from __future__ import annotations

import asyncio
import secrets
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from p2pdice.core.signing import SigningKey
from p2pdice.net.resolve import LISTING_BYTES, ResolveError, resolve
from p2pdice.net.tls import server_context

pytestmark = pytest.mark.usefixtures("private_network")

ROW = b'{"id": "' + b"ab" * 32 + b'", "name": "Kitchen"},'
ANSWER = 64 << 20


class Oversized:
    def __init__(self) -> None:
        self.sent: list[int] = []

    async def streamed(self, request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/json"})
        await resp.prepare(request)
        sent, chunk = 0, ROW * 1000
        try:
            await resp.write(b"[")
            while sent < ANSWER:
                # Over TLS, asyncio drops writes to a connection its peer reset, without an
                # error and without waiting: the handler lets the loop tell it of the reset.
                await asyncio.sleep(0)
                if request.transport is None:
                    break
                await resp.write(chunk)
                sent += len(chunk)
        except (ConnectionError, RuntimeError):  # the reader hung up
            pass
        finally:  # also when aiohttp cancels the handler of a closed connection
            self.sent.append(sent)
        return resp

    async def declared(self, request: web.Request) -> web.StreamResponse:
        headers = {"Content-Length": str(ANSWER), "Content-Type": "application/json"}
        resp = web.StreamResponse(headers=headers)
        await resp.prepare(request)
        self.sent.append(0)
        return resp


@pytest.fixture
async def oversized() -> AsyncIterator[tuple[Oversized, int, int]]:
    server = Oversized()
    ports = []
    runners = []
    for handler in (server.streamed, server.declared):
        app = web.Application()
        app.router.add_get("/tables", handler)
        runner = web.AppRunner(app)
        await runner.setup()
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        # Over TLS, as a host serves its listing (a listing is not pinned: any key).
        tls = server_context(SigningKey(secrets.token_bytes(32)))
        site = web.SockSite(runner, sock, ssl_context=tls)
        await site.start()
        ports.append(sock.getsockname()[1])
        runners.append(runner)
    try:
        yield server, ports[0], ports[1]
    finally:
        for runner in runners:
            await runner.cleanup()


async def test_a_streamed_answer_past_the_limit_is_refused_after_reading_the_limit(
    oversized: tuple[Oversized, int, int],
) -> None:
    server, streamed, _ = oversized
    with pytest.raises(ResolveError) as refused:
        await resolve(f"127.0.0.1:{streamed}", timeout=20)
    for _ in range(100):  # the handler notices the closed connection soon after
        if server.sent:
            break
        await asyncio.sleep(0.05)
    # What the sockets' buffers took before the reader hung up: far from the 64 MiB.
    assert server.sent and server.sent[0] < 64 * LISTING_BYTES, server.sent
    assert "not like a p2pdice host" in str(refused.value)


async def test_an_answer_announcing_a_length_past_the_limit_is_not_read(
    oversized: tuple[Oversized, int, int],
) -> None:
    _, _, declared = oversized
    with pytest.raises(ResolveError, match=f"{ANSWER}-byte listing"):
        await resolve(f"127.0.0.1:{declared}", timeout=5)
