"""What `join --bot` prints (issue 13 items 5 and 6): never a hostile host's escape sequences,
and every alarm, with a non-zero exit."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import secrets
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web

from p2pdice.cli.join import _join
from p2pdice.core.codec import encode
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.version import PROTOCOL_VERSION
from p2pdice.net.tls import server_context

#: A clipboard write (OSC 52), a screen clear, a title change and a bell, as a host could send.
HOSTILE = "\x1b]52;c;cm0gLXJmIH4K\x07\x1b[2J\x1b]0;pwned\x07\x07evil\x9b31m"


def _frame(**fields: object) -> str:
    return encode(fields).decode("utf-8")


@contextlib.asynccontextmanager
async def hostile_host(
    name: str = "hostile" + HOSTILE, detail: str = "go away " + HOSTILE
) -> AsyncIterator[str]:
    """A fake host on loopback: lists one table, challenges, then refuses with `detail`."""
    key = SigningKey(secrets.token_bytes(32))  # the fake host proves it holds its key (TLS)
    table_id, host_key = secrets.token_hex(32), key.public.hex()

    async def tables(request: web.Request) -> web.Response:
        return web.json_response([{"id": table_id, "name": name, "path": f"/t/{table_id}"}])

    async def socket(request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        await ws.send_str(
            _frame(
                type="challenge",
                protocol=PROTOCOL_VERSION,
                entries=1,
                host=host_key,
                nonce=secrets.token_hex(16),
                password=False,
                pake=None,
                seat=0,
                table=table_id,
            )
        )
        await ws.send_str(_frame(type="error", reason="TABLE_FULL", detail=detail, ref=None))
        with contextlib.suppress(Exception):
            await asyncio.wait_for(ws.receive(), 2.0)
        await ws.close()
        return ws

    app = web.Application()
    app.router.add_get("/tables", tables)
    app.router.add_get(f"/t/{table_id}", socket)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_context(key))
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"127.0.0.1:{port}/{table_id}"
    finally:
        await runner.cleanup()


def join_args(address: str, home: Path) -> argparse.Namespace:
    return argparse.Namespace(
        table=address,
        timeout=5.0,
        give_up=5.0,
        spectate=False,
        seed=1,
        home=str(home),
        password_file=None,
        name=None,
        bot="easy",
    )


async def test_a_hostile_hosts_escapes_never_reach_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from p2pdice.bots import load_bot

    async with hostile_host() as address:
        code = await asyncio.wait_for(
            _join(join_args(address, tmp_path / "j"), "bot", load_bot("easy")), 20
        )
    out = capsys.readouterr().out
    assert code == 2
    assert "the host refused us: TABLE_FULL: go away" in out and "evil" in out
    assert "hostile" in out
    for bad in ("\x1b", "\x07", "\x9b", "52;c;"):
        assert bad not in out, out


async def test_join_bot_prints_every_alarm_and_fails_when_the_host_drops_its_contribution(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cheating host "loses" the bot's first contribution, waits out the grace period and
    forfeits the bot's seat. The log verifies, but the bot's own checks must be printed and the
    exit status non-zero; before, it printed "verified transcript" and exited 0. When the host
    acts, it has shown nothing of having read the contribution (the bot is told it did not
    reach the table); its answer to the bot's next message on the same connection shows it
    had (MESSAGE_DROPPED then, and `verify --mine` on the bot's saved files)."""
    from p2pdice.bots import load_bot
    from tests.support.wire import hosted

    rules = Rules(seats=2, starting_dice=1, grace_period=5)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy"]) as (service, table):
        host = table.server.host
        honest = host.receive
        dropped: list[str] = []

        def cheat(conn, message, now, **kw):
            body = message.get("body", {}) if isinstance(message, dict) else {}
            seat = table.server.connections.get(conn)
            remote = seat is not None and not seat.local
            if remote and body.get("type") == "contribute" and not dropped:
                dropped.append(body["type"])
                return []  # received, never posted, never refused
            return honest(conn, message, now, **kw)

        host.receive = cheat
        address = f"127.0.0.1:{service.port}/{table.id}"
        code = await asyncio.wait_for(
            _join(join_args(address, tmp_path / "j"), "victim", load_bot("easy")), 120
        )
    out = capsys.readouterr().out
    assert dropped, out
    assert code == 1, out
    assert "ALARM: MESSAGE_DROPPED" in out
    assert "ALARM: verify --mine:" in out and "never appears in the log" in out
    assert "note: your contribute" in out and "did not reach the table" in out
    assert "was forfeited (no_contribution)" in out
    assert "verified transcript:" not in out


async def test_a_host_that_withholds_its_own_cpus_contribution_cannot_deal_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The host "loses" its own CPU seat's contribution, as a host would to re-deal hands it
    has seen: a void may not name a host-run seat (SPEC 7), so the host can only end the
    game, and the player is told it was abandoned, with no second deal in its log."""
    from p2pdice.bots import load_bot
    from tests.support.wire import hosted

    rules = Rules(seats=2, starting_dice=1, grace_period=5)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy"]) as (service, table):
        host = table.server.host
        honest = host.receive
        dropped: list[int] = []

        def cheat(conn, message, now, **kw):
            body = message.get("body", {}) if isinstance(message, dict) else {}
            seat = table.server.connections.get(conn)
            local = seat is not None and seat.local
            if local and body.get("type") == "contribute" and not dropped:
                dropped.append(body["seat"])
                return []  # its own CPU's, received and never posted
            return honest(conn, message, now, **kw)

        host.receive = cheat
        address = f"127.0.0.1:{service.port}/{table.id}"
        code = await asyncio.wait_for(
            _join(join_args(address, tmp_path / "j"), "victim", load_bot("easy")), 120
        )
    out = capsys.readouterr().out
    assert dropped, out
    assert code == 0, out
    assert "the host ended the game early (abandoned)" in out
    assert "MESSAGE_DROPPED" not in out  # the bot lost nothing of its own
    transcript = next((tmp_path / "j").rglob("transcript.jsonl"))
    events = [json.loads(line).get("event") or {} for line in transcript.read_text().splitlines()]
    assert not [e for e in events if e.get("type") == "forfeit"], events  # no void
    assert [e.get("attempt") for e in events if e.get("type") == "round"] == [1], events
    assert events[-1] == {**events[-1], "type": "game_over", "reason": "abandoned"}
