"""A client facing a hostile or broken host stops cleanly: a bad tables listing, a challenge in
another protocol version or from another key than the advertised one, a host that drops every
connection; a challenge claiming an empty log makes it wait, not crash."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web

from p2pdice.core.errors import Reason
from p2pdice.core.signing import SigningKey
from p2pdice.core.version import PROTOCOL_VERSION
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.frames import encode_frame
from p2pdice.net.resolve import ResolveError, resolve
from p2pdice.net.session import ClientSession

pytestmark = pytest.mark.usefixtures("private_network")


async def serve(handler) -> tuple[web.AppRunner, int]:
    app = web.Application()
    app.router.add_get("/{tail:.*}", handler)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    return runner, site._server.sockets[0].getsockname()[1]


@pytest.mark.parametrize(
    "answer",
    [
        {"not": "a list"},
        [{"name": "x"}],
        [{"id": "zz", "path": "/t/zz", "name": "x"}],
        ["text"],
        [{"id": "00", "path": "http://evil"}],
    ],
)
async def test_a_hostile_tables_listing_gives_a_clean_error(answer) -> None:
    async def tables(request: web.Request) -> web.Response:
        return web.json_response(answer)

    runner, port = await serve(tables)
    try:
        with pytest.raises(ResolveError):
            await resolve(f"127.0.0.1:{port}", timeout=2)
    finally:
        await runner.cleanup()


def _challenge(**changes) -> str:
    fields = {
        "protocol": PROTOCOL_VERSION,
        "entries": 1,
        "host": "ab" * 32,
        "nonce": "cd" * 16,
        "password": False,
        "pake": None,
        "seat": 0,
        "table": "ef" * 32,
    }
    fields.update(changes)
    return encode_frame("challenge", **fields)


async def test_a_challenge_in_another_protocol_version_stops_the_client() -> None:
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
    session.on_frame(_challenge(protocol=2))
    assert session.fatal is not None and "protocol" in session.fatal[1]


async def test_a_host_key_other_than_the_advertised_one_stops_the_client() -> None:
    session = ClientSession(
        key=SigningKey(b"\x07" * 32), name="x", home=None, expect_host_prefix="00" * 8
    )
    session.on_frame(_challenge())
    assert session.fatal is not None and session.fatal[0] == Reason.BAD_CHALLENGE


async def test_a_challenge_claiming_an_empty_log_does_not_crash_the_client() -> None:
    session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
    session.on_frame(_challenge(entries=0))  # joining needs at least the genesis: it waits
    assert session.fatal is None and session.errors == []


async def test_a_host_that_accepts_and_drops_every_connection_is_given_up_on() -> None:
    async def drop(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.close()
        return ws

    runner, port = await serve(drop)
    try:
        session = ClientSession(key=SigningKey(b"\x07" * 32), name="x", home=None)
        outcome = await asyncio.wait_for(
            run_websocket(session, f"ws://127.0.0.1:{port}/t/x", give_up_after=1.5), 20
        )
        assert outcome == Outcome.GAVE_UP
    finally:
        await runner.cleanup()
