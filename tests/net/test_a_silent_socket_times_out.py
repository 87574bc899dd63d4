"""A peer that accepts the connection and then says nothing cannot hold a client: every state
of the connection has a bounded wait (SPEC.md 10.1), after which the client drops it and
tries again, and gives up once the table has been silent for longer than it waits. The waits
are the core's constants, shortened here so the test takes seconds."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import AsyncIterator

import pytest
from aiohttp import web

from p2pdice.core import client as client_core
from p2pdice.core.errors import Reason
from p2pdice.core.signing import SigningKey
from p2pdice.net import client as net_client
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.session import ClientSession
from p2pdice.net.tls import server_context

pytestmark = pytest.mark.usefixtures("private_network")

TABLE = "ab" * 32


@contextlib.asynccontextmanager
async def silent_after_upgrade(*, tls: bool) -> AsyncIterator[int]:
    """A server that accepts the WebSocket and never sends a challenge (it answers pings:
    aiohttp does, so the heartbeat alone never notices)."""

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        async for _ in ws:
            pass
        return ws

    app = web.Application()
    app.router.add_get(f"/t/{TABLE}", socket)
    runner = web.AppRunner(app)
    await runner.setup()
    context = server_context(SigningKey(secrets.token_bytes(32))) if tls else None
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=context)
    await site.start()
    try:
        yield runner.addresses[0][1]
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
async def silent_after_tls() -> AsyncIterator[int]:
    """A server that completes the TLS handshake and then never answers the HTTP request."""
    held: list[asyncio.StreamWriter] = []

    async def hold(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        held.append(writer)

    server = await asyncio.start_server(
        hold, "127.0.0.1", 0, ssl=server_context(SigningKey(secrets.token_bytes(32)))
    )
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        for writer in held:
            writer.close()
        server.close()


@pytest.fixture
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_core, "CHALLENGE_WAIT", 0.5)
    monkeypatch.setattr(net_client, "CONNECT_WAIT", 0.5)


async def _outcome(url: str) -> tuple[str, ClientSession]:
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
    outcome = await asyncio.wait_for(
        run_websocket(session, url, give_up_after=2.0, find_again=False), 15
    )
    return outcome, session


@pytest.mark.parametrize("tls", [False, True])
@pytest.mark.usefixtures("short_waits")
async def test_a_peer_that_never_sends_a_challenge_is_dropped_and_given_up_on(tls: bool) -> None:
    async with silent_after_upgrade(tls=tls) as port:
        scheme = "wss" if tls else "ws"
        outcome, session = await _outcome(f"{scheme}://127.0.0.1:{port}/t/{TABLE}")
    assert outcome == Outcome.GAVE_UP
    assert session.fatal is None
    assert any(reason == Reason.HANDSHAKE_TIMEOUT for reason, _ in session.errors)


@pytest.mark.usefixtures("short_waits")
async def test_a_peer_that_completes_tls_and_never_answers_the_upgrade_is_given_up_on() -> None:
    async with silent_after_tls() as port:
        outcome, session = await _outcome(f"wss://127.0.0.1:{port}/t/{TABLE}")
    assert outcome == Outcome.GAVE_UP and session.fatal is None
