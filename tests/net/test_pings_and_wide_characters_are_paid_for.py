"""Every frame a connection sends is paid for, and every deadline holds, whatever the frame
(SPEC.md 10.1): WebSocket pings and pongs cost their address like any frame and do not push
back a handshake's or a spectator's deadline; a text frame costs its bytes, not its
characters."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import aiohttp
import pytest

from p2pdice.net.server import Limits
from tests.support.wire import RawClient, hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")


@contextlib.asynccontextmanager
async def chattering(raw: RawClient, every: float = 0.1):  # type: ignore[no-untyped-def]
    """Send the host a pong and a ping every `every` seconds until the block ends."""

    async def chatter() -> None:
        while not raw.ws.closed:
            await raw.ws.pong(b"still here")
            await raw.ws.ping(b"still here")
            await asyncio.sleep(every)

    task = asyncio.create_task(chatter())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_pings_and_pongs_do_not_keep_an_unwelcomed_connection_open(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", limits=Limits(handshake_timeout=0.5)) as (service, table):
        url = url_of(service, table)
        loop = asyncio.get_running_loop()
        async with await RawClient.connect(url) as raw, chattering(raw):
            started = loop.time()
            frames = await raw.closed(timeout=4)
            took = loop.time() - started
        assert [f["reason"] for f in frames if f["type"] == "error"] == ["HANDSHAKE_TIMEOUT"]
        assert took < 2.5, took
        async with await RawClient.connect(url) as late:
            assert late.challenge is not None and late.challenge["seat"] == 0  # offered again


async def test_pings_and_pongs_do_not_keep_a_spectator_that_never_syncs(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", limits=Limits(spectator_idle=1.0)) as (service, table):
        raw = await RawClient.connect(url_of(service, table) + "?spectate=1")
        async with raw:
            await raw.send({"type": "spectate"})
            await raw.recv_type("welcome")
            async with chattering(raw):
                frames = await raw.closed(timeout=5)
        assert frames[-1]["type"] == "closing" and frames[-1]["reason"] == "idle", frames


async def test_a_ping_is_answered_and_a_flood_of_them_is_rate_limited(tmp_path: Path) -> None:
    limits = Limits(limit_loopback=True)  # loopback stands for another machine here
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table)
        async with await RawClient.connect(url, autoping=False) as raw:
            await raw.ws.ping(b"are you there")
            msg = await raw.ws.receive(timeout=5)
            assert (msg.type, msg.data) == (aiohttp.WSMsgType.PONG, b"are you there")
        async with await RawClient.connect(url, source="127.0.0.2", autoping=False) as flood:
            for _ in range(300):
                if flood.ws.closed:
                    break
                await flood.ws.ping(b"x" * 100)
            errors: list[str] = []
            pongs = 0
            while True:
                msg = await flood.ws.receive(timeout=5)
                if msg.type == aiohttp.WSMsgType.PONG:
                    pongs += 1
                elif msg.type == aiohttp.WSMsgType.TEXT:
                    frame = json.loads(msg.data)
                    if frame["type"] == "error":
                        errors.append(frame["reason"])
                else:
                    break  # closed
            assert errors == ["RATE_LIMITED"] * limits.strikes, errors
            assert pongs < 100, pongs  # only the pings it could pay for were answered


async def test_a_text_frame_costs_its_address_its_bytes_not_its_characters(tmp_path: Path) -> None:
    """Four frames of 16,000 characters each, from an address that may spend 50 units at
    once and paid 2 to connect: as ASCII they cost 4.9 units each and all are read; in
    four-byte characters 16.6 each, and the third and fourth are refused."""
    limits = Limits(limit_loopback=True)
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table)
        for source, char, refused in (("127.0.0.2", "a", []), ("127.0.0.3", "\U0001f3b2", [2, 3])):
            async with await RawClient.connect(url, source=source) as raw:
                frame = '{"type":"sync","pad":"' + char * 16_000 + '"}'
                assert len(frame.encode("utf-8")) < 64 * 1024
                reasons = []
                for _ in range(4):
                    await raw.send(frame)
                    reasons.append((await raw.error())["reason"])
                assert [i for i, r in enumerate(reasons) if r == "RATE_LIMITED"] == refused, (
                    char,
                    reasons,
                )
