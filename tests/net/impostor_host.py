"""A guest on the LAN that copies a table's advertisement and impersonates its host.

Run as a real process (`python -m tests.net.impostor_host --table ID --out FILE`) in its own
namespace: it finds the table over mDNS, reads the real host's challenge (public: anyone may
connect), then advertises the same TXT record (table id, host-key prefix, name) at its own
address (with `--listing HOST:PORT`, it copies a table that is not advertised from its host's
`/tables` row instead). What it does with a client that comes is its `--mode`:

- `bad-entry` (the default): a copy of that challenge, naming the real table id and host key,
  then a bad entry;
- `frame`: the copied challenge, then the first entries of another table its host signed
  with the same key (`--frame-with LOG`, that table's log, which anyone who watched it
  holds), which used to prove a false `EQUIVOCATION` against the honest host;
- `hold`: the TLS handshake, then nothing: it reads the client's upgrade request and never
  answers, holding the socket open;
- `hold-tcp`: the TCP connection, then nothing, not even its side of the TLS handshake.

It never welcomes anyone. It speaks the scheme the advertisement says (`Advert.url`), with a
certificate of its own key when that is TLS: it cannot hold the host's key. Everything it
sees is written to `--out` as JSON, with how long each connection stayed (`held`, seconds
from its opening to the client hanging up).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import time
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from p2pdice.core.advert import Advert, listing_url
from p2pdice.core.signing import SigningKey
from p2pdice.net.discovery import Advertiser, TableAd, find_table, lan_addresses, new_zeroconf


def _tls_server(key: SigningKey) -> Any:
    from p2pdice.net.tls import server_context

    return server_context(key)


MODES = ("bad-entry", "frame", "hold", "hold-tcp")


async def _listed(table_id: str, listing: str) -> TableAd:
    host, port = listing.rsplit(":", 1)
    async with (
        aiohttp.ClientSession() as http,
        http.get(listing_url(host, int(port)), ssl=False) as resp,
    ):
        rows = await resp.json()
    row = next(r for r in rows if r.get("id") == table_id)
    advert = Advert.from_txt(row)
    return TableAd(service="", name=advert.name, addresses=[host], port=int(port), advert=advert)


class Impostor:
    def __init__(self, out: Path, mode: str, frame_with: list[str]) -> None:
        self.out = out
        self.mode = mode
        self.frame_with = frame_with  #: another table's entries (JSON lines), for `frame`
        self.seen: dict[str, Any] = {
            "connections": 0,
            "frames": [],
            "copied": None,
            "held": [],
            "mode": mode,
        }

    def save(self) -> None:
        # Written whole and renamed into place: the test reads it while the impostor runs.
        part = self.out.with_suffix(".part")
        part.write_text(json.dumps(self.seen))
        part.replace(self.out)

    async def copy(self, table_id: str, listing: str | None) -> tuple[Any, dict[str, Any]]:
        """The real table's advertisement and its host's challenge. With `listing`
        (`HOST:PORT`), the advertisement is made from the host's `/tables` row, which has the
        same fields, for a table that is not advertised."""
        ad: TableAd | None = None
        if listing is not None:
            ad = await _listed(table_id, listing)
        else:
            for _ in range(20):
                ad = await find_table(table_id, host_prefix=None, timeout=2.0)
                if ad is not None and ad.url is not None:
                    break
            else:
                raise SystemExit("the table is not advertised")
        if ad is None or ad.url is None:
            raise SystemExit("the table's record names no address")
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(ad.url + "?spectate=1", ssl=False) as ws,
        ):
            challenge = json.loads((await ws.receive()).data)
        return ad, challenge

    async def serve(self, challenge: dict[str, Any], request: web.Request) -> web.StreamResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        self.seen["connections"] += 1
        self.save()
        copied = {**challenge, "nonce": secrets.token_hex(16)}
        await ws.send_str(json.dumps(copied, sort_keys=True, separators=(",", ":")))
        if self.mode == "frame":
            # Entries the host really signed, at another table: its genesis names the same
            # host key as the challenge, and its entry 0 differs from this table's.
            for line in self.frame_with:
                await ws.send_str('{"entry":' + line + ',"type":"entry"}')
        else:
            # A stranger's bad entry before any welcome: a genesis whose signature is nobody's.
            bad = {
                "event": {"type": "genesis"},
                "prev": "00" * 32,
                "seq": 0,
                "sig": "00" * 64,
            }
            await ws.send_str(json.dumps({"entry": bad, "type": "entry"}, separators=(",", ":")))
        async for msg in ws:  # held for ever: no welcome, no close
            self.seen["frames"].append(msg.data if isinstance(msg.data, str) else "?")
            self.save()
        return ws

    async def hold(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Say nothing, for as long as the client stays: what arrives is counted, not read."""
        began = time.monotonic()
        self.seen["connections"] += 1
        self.save()
        try:
            while await reader.read(4096):
                pass
        except (ConnectionError, OSError):
            pass
        finally:
            self.seen["held"].append(round(time.monotonic() - began, 2))
            self.save()
            writer.close()


async def main(
    table_id: str, out: Path, mode: str, frame_with: list[str], listing: str | None
) -> None:
    impostor = Impostor(out, mode, frame_with)
    ad, challenge = await impostor.copy(table_id, listing)
    impostor.seen["copied"] = {"url": ad.url, "host": challenge["host"], "txt": ad.advert.to_txt()}
    impostor.save()
    tls = _tls_server(SigningKey(secrets.token_bytes(32))) if ad.url.startswith("wss") else None
    runner: web.AppRunner | None = None
    server: asyncio.Server | None = None
    if mode in ("hold", "hold-tcp"):
        server = await asyncio.start_server(
            impostor.hold, "0.0.0.0", 0, ssl=tls if mode == "hold" else None
        )
        port = server.sockets[0].getsockname()[1]
    else:
        app = web.Application()
        app.router.add_get(ad.advert.path, lambda request: impostor.serve(challenge, request))
        runner = web.AppRunner(app, handle_signals=True)
        await runner.setup()
        site = web.TCPSite(runner, "0.0.0.0", 0, ssl_context=tls)
        await site.start()
        port = runner.addresses[0][1]
    azc = new_zeroconf()
    advertiser = Advertiser(
        azc, name=ad.name, port=port, addresses=lan_addresses(), txt=ad.advert.to_txt()
    )
    await advertiser.start()
    print(json.dumps({"port": port, "host": challenge["host"]}), flush=True)
    try:
        await asyncio.sleep(3600)
    finally:
        await advertiser.stop()
        await azc.async_close()
        if runner is not None:
            await runner.cleanup()
        if server is not None:
            server.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--mode", choices=MODES, default="bad-entry")
    parser.add_argument("--frame-with", type=Path, help="another table's log, for --mode frame")
    parser.add_argument("--listing", help="HOST:PORT: copy the table from its host's /tables")
    args = parser.parse_args()
    frame_with = args.frame_with.read_text().splitlines() if args.frame_with else []
    asyncio.run(main(args.table, args.out, args.mode, frame_with, args.listing))
