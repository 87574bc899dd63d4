"""Fake tables whose `GET /tables` port accepts connections and never answers (tarpits) each
hold a probe for its whole timeout (1.5 s), and the lobby probed in batches, waiting for the
slowest of a batch: 64 tarpits stretched the two-second check of a real host to 12.5 s (about
38 s at the 200 tables a lobby lists), so its seats and phase lagged and a crashed host
greyed out late. Fakes that answer one probe and hang on the next did the same to a shared
pool of requests for hosts that answered last (the real host probed 3 times in 20 s). Each
host and port now has a request of its own, and no probe waits for another.

Loopback only (no mDNS): the lobby's probes (cli.lobby.CliLobby) of a book filled by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import secrets
import socket
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from p2pdice.cli.lobby import PROBE_TIMEOUT, CliLobby
from p2pdice.core.advert import Advert
from p2pdice.core.signing import SigningKey
from p2pdice.net.tls import server_context
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.lobbymodel import PROBE_EVERY, LobbyBook
from p2pdice.ui.state import UiState

pytestmark = pytest.mark.usefixtures("private_network")

TABLE_ID = "3f" * 32
TARPITS = 64
WATCH = 10.0


async def test_a_host_that_answers_is_probed_on_time_beside_64_tarpits() -> None:
    await probed_on_time_beside(tarpits)


async def test_a_host_that_answers_is_probed_on_time_beside_64_fakes_answering_every_other() -> (
    None
):
    await probed_on_time_beside(every_other)


@contextlib.asynccontextmanager
async def tarpits(book: LobbyBook, now: float) -> AsyncIterator[None]:
    """TARPITS ports that accept (the kernel's backlog) and never answer."""
    pits = []
    try:
        for i in range(TARPITS):
            pit = socket.socket()
            pit.bind((f"127.0.1.{i + 1}", 0))
            pit.listen(64)
            pits.append(pit)
            fake = Advert.from_txt({"id": secrets.token_hex(32), "name": "Pit"})
            book.announce(f"pit {i}", "Pit", [f"127.0.1.{i + 1}"], pit.getsockname()[1], fake, now)
        yield
    finally:
        for pit in pits:
            pit.close()


@contextlib.asynccontextmanager
async def every_other(book: LobbyBook, now: float) -> AsyncIterator[None]:
    """TARPITS hosts that list their table at one probe and hang at the next, in turn: each
    is alive again after every other probe."""
    release = asyncio.Event()
    runners = []
    try:
        for i in range(TARPITS):
            table_id, asked = secrets.token_hex(32), itertools.count()

            async def listing(
                request: web.Request, table_id: str = table_id, asked: Any = asked
            ) -> web.Response:
                if next(asked) % 2:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(release.wait(), WATCH * 2)
                return web.json_response([{"id": table_id, "name": "Fake", "phase": "lobby"}])

            runner, port = await serve(listing, f"127.0.1.{i + 1}")
            runners.append(runner)
            fake = Advert.from_txt({"id": table_id, "name": "Fake"})
            book.announce(f"fake {i}", "Fake", [f"127.0.1.{i + 1}"], port, fake, now)
        yield
    finally:
        release.set()
        for runner in runners:
            await runner.cleanup()


async def serve(handler: Any, address: str) -> tuple[web.AppRunner, int]:
    app = web.Application()
    app.router.add_get("/tables", handler)
    runner = web.AppRunner(app, shutdown_timeout=0.1)
    await runner.setup()
    sock = socket.socket()
    sock.bind((address, 0))
    tls = server_context(SigningKey(secrets.token_bytes(32)))
    await web.SockSite(runner, sock, ssl_context=tls).start()
    return runner, sock.getsockname()[1]


async def probed_on_time_beside(fakes: Any) -> None:
    probes: list[float] = []

    async def listing(request: web.Request) -> web.Response:
        probes.append(time.monotonic())
        return web.json_response([{"id": TABLE_ID, "name": "Kitchen", "phase": "lobby"}])

    runner, port = await serve(listing, "127.0.0.1")
    c = Controller(UiState(screen="lobby", from_lobby=True), invalidate=lambda: None)
    book = c.ui.book
    now = asyncio.get_running_loop().time()
    real = Advert.from_txt({"id": TABLE_ID, "name": "Kitchen", "phase": "lobby"})
    book.announce("real", "Kitchen", ["127.0.0.1"], port, real, now)
    try:
        async with fakes(book, now):
            with tempfile.TemporaryDirectory() as home:
                services = CliLobby(Path(home))
                LobbyActions(c, services)
                services.start_probing(c)
                try:
                    await asyncio.sleep(WATCH)
                finally:
                    await services.stop()
    finally:
        await runner.cleanup()
    gaps = [b - a for a, b in itertools.pairwise(probes)]
    assert len(probes) >= WATCH / (PROBE_EVERY + PROBE_TIMEOUT), f"probed {len(probes)} times"
    assert max(gaps) < PROBE_EVERY + PROBE_TIMEOUT + 1.0, f"gaps {gaps}"
    assert book.entries["real"].alive and not book.entries["real"].stale
