"""The lobby's probe (cli.lobby.CliLobby) on loopback, without mDNS: a real host's `GET
/tables` row names each seated player's key, the lobby row then shows the rating this device
holds of one, and a stranger's listing whose `players` field is malformed or oversized is
read as naming no one, the table still listed and alive."""

from __future__ import annotations

import asyncio
import json
import secrets
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from p2pdice.cli import lobby as cli_lobby
from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import Advert
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.net.resolve import LISTING_BYTES
from p2pdice.net.tls import server_context
from p2pdice.ui import lobbymodel
from p2pdice.ui.controller import Controller
from p2pdice.ui.lobby import LobbyActions
from p2pdice.ui.ratings import RatingBook, RatingFigure, short
from p2pdice.ui.state import UiState
from tests.support.wire import hosted

SERVICE = "kitchen._p2pdice._tcp.local."
TABLE_ID = "ab" * 32


async def wait_for(predicate, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.02)


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.1)
    monkeypatch.setattr(cli_lobby, "PROBE_TICK", 0.05)


def _lobby(home: Path) -> tuple[Controller, CliLobby]:
    c = Controller(UiState(screen="lobby", from_lobby=True))
    services = CliLobby(home)
    LobbyActions(c, services)
    return c, services


@pytest.mark.usefixtures("fast")
async def test_a_probe_reads_the_seated_players_keys_and_rates_the_known_one(
    tmp_path: Path,
) -> None:
    c, services = _lobby(tmp_path / "me")
    book = c.ui.book
    rules = Rules(seats=2)  # every seat the host's CPU: they sit down as it opens
    async with hosted(tmp_path / "host", rules=rules, cpu=["easy", "easy"], name="kitchen") as (
        service,
        t,
    ):
        state = t.host.state
        seated = {info.key.hex() for info in state.joins.values()}
        assert len(seated) == 2
        known = min(seated)
        figure = RatingFigure(17.5, provisional=True, games=3)
        book.ratings = RatingBook({known: figure})
        advert = Advert.from_txt(t.txt())
        book.announce(SERVICE, "kitchen", ["127.0.0.1"], service.port, advert, 0.0)
        services.start_probing(c)
        try:
            await wait_for(lambda: book.entries[SERVICE].players is not None)
            players = book.entries[SERVICE].players or ()
            assert {p.key for p in players} == seated and all(p.cpu for p in players)
            name = next(p.name for p in players if p.key == known)
            (row,) = book.rows()
            assert row.rating == f"seated: {name} {short(figure)}, +1 other"
        finally:
            await services.stop()


def _row(players: Any) -> dict[str, Any]:
    return {"id": TABLE_ID, "path": f"/t/{TABLE_ID}", "seats": "2/3", "phase": "lobby",
            "players": players}  # fmt: skip


GOOD = [{"name": "ana", "key": "a1" * 32}, {"name": "bo", "key": "b2" * 32, "cpu": True}]
LISTINGS = {
    "good": [_row(GOOD)],
    "not a list": [_row({"ana": "a1" * 32})],
    "too long": [_row([{"name": "x", "key": f"{n:04x}" * 16} for n in range(1000)])],
    "bad key hex": [_row([{"name": "ana", "key": "A1" * 32}])],
    "a huge name": [_row([{"name": "n" * 200_000, "key": "a1" * 32}])],
    "nested deep": [_row([[[[[[[[{"name": "ana"}]]]]]]]])],
}


@pytest.fixture
async def stranger(request: pytest.FixtureRequest) -> AsyncIterator[int]:
    """A TLS listing server answering every probe with the listing `request.param`; yields
    its port."""
    body = json.dumps(request.param)
    # Within what a lobby reads at all: the players field, not the size, is at fault.
    assert len(body) < LISTING_BYTES

    async def listing(_: web.Request) -> web.Response:
        return web.Response(text=body, content_type="application/json")

    app = web.Application()
    app.router.add_get("/tables", listing)
    runner = web.AppRunner(app)
    await runner.setup()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    tls = server_context(SigningKey(secrets.token_bytes(32)))  # a listing is not pinned
    await web.SockSite(runner, sock, ssl_context=tls).start()
    try:
        yield sock.getsockname()[1]
    finally:
        await runner.cleanup()


async def _probed(tmp_path: Path, port: int) -> tuple[Controller, CliLobby]:
    c, services = _lobby(tmp_path / "me")
    c.ui.book.ratings = RatingBook({"a1" * 32: RatingFigure(24.0, provisional=False, games=9)})
    advert = Advert.from_txt(_row(None))
    c.ui.book.announce(SERVICE, "kitchen", ["127.0.0.1"], port, advert, 0.0)
    services.start_probing(c)
    return c, services


@pytest.mark.usefixtures("fast")
@pytest.mark.parametrize("stranger", [LISTINGS["good"]], indirect=True, ids=["good"])
async def test_a_strangers_well_formed_players_field_is_shown(
    tmp_path: Path, stranger: int
) -> None:
    c, services = await _probed(tmp_path, stranger)
    book = c.ui.book
    try:
        await wait_for(lambda: book.entries[SERVICE].players is not None)
        assert book.rows()[0].rating == "seated: ana 24.0, +1 other"
    finally:
        await services.stop()


BAD = {name: value for name, value in LISTINGS.items() if name != "good"}


@pytest.mark.usefixtures("fast")
@pytest.mark.parametrize("stranger", BAD.values(), indirect=True, ids=BAD.keys())
async def test_a_malformed_players_field_is_ignored_and_the_table_stays_listed(
    tmp_path: Path, stranger: int
) -> None:
    c, services = await _probed(tmp_path, stranger)
    book = c.ui.book
    try:
        await wait_for(lambda: book.entries[SERVICE].alive is not None)
        entry = book.entries[SERVICE]
        assert (entry.alive, entry.stale, entry.players) == (True, False, None)
        assert book.rows()[0].rating == ""
    finally:
        await services.stop()
