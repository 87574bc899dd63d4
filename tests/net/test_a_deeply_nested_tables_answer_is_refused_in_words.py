"""A `GET /tables` answer within the size limit that nests its lists a hundred thousand deep
(`[[[[...`, 200 KB): Python's JSON reader gives up with a RecursionError, which is not a
ValueError, so `join HOST:PORT` (and the lobby's `a`) stopped with a traceback instead of
saying the address did not answer like a p2pdice host."""

from __future__ import annotations

import secrets
import socket
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from p2pdice.core.signing import SigningKey
from p2pdice.net.resolve import LISTING_BYTES, ResolveError, resolve
from p2pdice.net.tls import server_context

pytestmark = pytest.mark.usefixtures("private_network")

DEPTH = 100_000
assert 2 * DEPTH < LISTING_BYTES


async def deep(request: web.Request) -> web.Response:
    return web.Response(body=b"[" * DEPTH + b"]" * DEPTH, content_type="application/json")


@pytest.fixture
async def port() -> AsyncIterator[int]:
    app = web.Application()
    app.router.add_get("/tables", deep)
    runner = web.AppRunner(app)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    tls = server_context(SigningKey(secrets.token_bytes(32)))
    await web.SockSite(runner, sock, ssl_context=tls).start()
    try:
        yield sock.getsockname()[1]
    finally:
        await runner.cleanup()


async def test_join_by_address_refuses_a_deeply_nested_listing_in_words(port: int) -> None:
    with pytest.raises(ResolveError, match="answered, but not like a p2pdice host"):
        await resolve(f"127.0.0.1:{port}", timeout=5.0)
