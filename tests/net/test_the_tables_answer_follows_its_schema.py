"""A host's `GET /tables` answer follows protocol/schemas/v1/tables.schema.json (SPEC.md 10.1):
a JSON array of rows holding the discovery record's keys as strings, `url_path` and
`players`. Checked against what a real host on loopback answers (no mDNS) for a lobby with
a password and CPU fill, a game being played and a finished game; and the rows' keys are
the advertisement's, the one writer of them (core/advert.py)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiohttp

from p2pdice.core.advert import Advert, listing_url
from p2pdice.core.rules import Rules
from p2pdice.net.hostapp import HostService, TableConfig
from p2pdice.net.tls import client_context
from tests.support.wire import hosted
from tests.test_schemas import assert_valid, schema_docs

SCHEMA = "tables.schema.json"


async def listing(service: HostService) -> list[dict[str, Any]]:
    connector = aiohttp.TCPConnector(ssl=client_context())
    url = listing_url("127.0.0.1", service.port)
    async with aiohttp.ClientSession(connector=connector) as http, http.get(url) as resp:
        assert resp.status == 200 and resp.content_type == "application/json"
        return json.loads(await resp.read())


async def test_the_tables_answer_follows_its_schema(tmp_path: Path) -> None:
    quick = Rules(seats=2, starting_dice=1)
    async with hosted(tmp_path, rules=quick, cpu=["easy", "easy"], name="quick") as (service, t):
        await asyncio.wait_for(t.server.over.wait(), 30)  # two CPUs play a one-die game
        lobby = await service.open_table(
            TableConfig(name="kitchen", rules=Rules(seats=4), password="pw", fill_levels=["easy"])
        )
        slow = await service.open_table(
            TableConfig(name="slow", rules=Rules(seats=2), cpu=["easy", "easy"], cpu_think=5.0)
        )
        for _ in range(500):
            if slow.host.state.game is not None:
                break
            await asyncio.sleep(0.01)
        rows = await listing(service)
    assert_valid(SCHEMA, rows)
    assert [r["id"] for r in rows] == [t.id, lobby.id, slow.id]
    finished, waiting, playing = rows
    assert [r["phase"] for r in rows] == ["finished", "lobby", "playing"]
    assert waiting["pw"] == "1" and waiting["fill"] == "1" and waiting["seats"] == "0/4"
    assert waiting["players"] == [] and waiting["name"] == "kitchen"
    assert finished["seats"] == "2/2" and "round" not in finished and "fill" not in finished
    assert [p.get("cpu") for p in finished["players"]] == [True, True]
    assert playing["round"] == "1" and playing["name"] == "slow" and playing["cpu"] == "2"
    assert all(r["url_path"] == r["path"] == f"/t/{r['id']}" for r in rows)


def test_the_schema_has_exactly_the_advertisements_keys() -> None:
    row = schema_docs()[SCHEMA]["$defs"]["row"]
    always = Advert(
        table_id="0" * 64,
        name="t",
        path="/t/" + "0" * 64,
        rules="aces ones",
        rules_hash="0" * 16,
        seats=(1, 2),
        phase="lobby",
        host_key_prefix="0" * 16,
    )
    optional = {"round": 1, "fill": True, "host_name": "Ann"}
    every = Advert(**{**{f: getattr(always, f) for f in always.__slots__}, **optional})
    assert set(row["properties"]) == {*every.to_txt(), "url_path", "players"}
    assert set(row["required"]) == {*always.to_txt(), "url_path"}
