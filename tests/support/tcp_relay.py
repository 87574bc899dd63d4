"""A guest on the LAN that stands between players and the real host as a plain TCP relay.

Run as a real process (`python -m tests.support.tcp_relay --to HOST:PORT --host-log FILE
--out FILE`), in a namespace of its own. Players reach it as if it were the table (its
address in a copied advertisement, or given to `join`); it opens a TCP connection to the
real host for each and copies bytes both ways. It holds no key: the TLS handshake is the
real host's, so the client's pin passes and the relay can read and change nothing. What it
can do is cut or stall a connection at the worst moment, and this one does so whenever the
table waits for openings (from a call until the round's result or forfeit):

- `--mode cut`: the first byte a player sends then (its opening, or anything after) closes
  that connection at both ends; a connection opened meanwhile dies at its first byte too.
- `--mode stall`: what players send then is swallowed while the host's frames still reach
  them, so their connections look alive; when the window closes they are cut (the swallowed
  bytes can never be delivered: TLS would refuse what follows a gap).
- `--mode end`: no window; when the game ends, every connection is cut before the host's
  `game_over` reaches it, and for `--blackout` seconds after, a connection dies at its first
  byte (the players' laptops dropped as the game ended, and take a while to come back).

With `--advertise TABLE_ID` it also copies the table's advertisement (name, id, host-key
prefix) and announces it at its own address, as a guest on the LAN would to draw clients.

A real relay would guess the window from timing and sizes (the host's broadcast of the call,
then every client's automatic answer within milliseconds); this one reads the host's log
file instead, so the test does not depend on how good the guess is. Whatever it does is
written to `--out` as JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Player messages after which the table waits for openings (SPEC.md 7).
OPENS_AFTER = ("challenge", "exact")
#: Host events that end that wait.
CLOSES_AFTER = ("result", "forfeit", "game_over", "abort")


@dataclass(slots=True)
class _Pair:
    """One player's connection and the relay's connection to the host for it."""

    number: int
    player: asyncio.StreamWriter
    host: asyncio.StreamWriter
    stalled: int = 0  #: bytes swallowed while the window was open


@dataclass(slots=True)
class Relay:
    upstream: tuple[str, int]
    host_log: Path
    mode: str
    out: Path
    windows: int = 1_000_000  #: how many windows to act in (later ones pass everything)
    blackout: float = 0.0  #: `end` mode: seconds after the game's end that cut everything
    _dark_until: float | None = None  #: `end` mode: time.monotonic() the blackout ends
    armed: bool = False
    _offset: int = 0
    _release: bool = False
    _partial: bytes = b""
    _open: dict[int, _Pair] = field(default_factory=dict)
    seen: dict[str, Any] = field(
        default_factory=lambda: {
            "connections": 0,
            "windows": 0,  #: times the table waited for openings
            "cut": [],  #: (window, connection, when) of each connection the relay cut
            "stalled_bytes": 0,
            "bytes_up": 0,
            "bytes_down": 0,
        }
    )

    def save(self) -> None:
        tmp = self.out.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.seen))
        tmp.replace(self.out)

    # ---- the window ------------------------------------------------------------------------

    async def watch(self) -> None:
        """Follow the host's log: the window opens at a call, closes at the result."""
        while True:
            self.read_log()
            await asyncio.sleep(0.05)
            self.release()

    def read_log(self) -> None:
        """Whatever the host appended since the last look. Also called before each chunk
        from the host is passed on: the host writes an entry before it sends it, so the
        window is open before a player can have seen the call."""
        try:
            with self.host_log.open("rb") as log:
                log.seek(self._offset)
                chunk = log.read()
        except FileNotFoundError:
            return
        self._offset += len(chunk)
        *lines, self._partial = (self._partial + chunk).split(b"\n")
        for line in lines:
            self._entry(json.loads(line))

    def _entry(self, entry: dict[str, Any]) -> None:
        kind = (entry.get("msg") or {}).get("body", {}).get("type")
        event = (entry.get("event") or {}).get("type")
        if self.mode == "end":
            if event == "game_over" and self._dark_until is None:
                self._dark_until = time.monotonic() + self.blackout
                self.seen["windows"] += 1
                for pair in list(self._open.values()):
                    self._cut(pair)
            return
        if kind in OPENS_AFTER and not self.armed and self.seen["windows"] < self.windows:
            self.armed = True
            self.seen["windows"] += 1
            self.save()
        elif event in CLOSES_AFTER and self.armed:
            self.armed = False
            self._release = True
            self.save()

    def dark(self) -> bool:
        """`end` mode: within the blackout after the game's end."""
        return self._dark_until is not None and time.monotonic() < self._dark_until

    def release(self) -> None:
        """Once the window closed: cut what was stalled (what it swallowed can never be
        delivered), after the host's act in the players' place has reached them."""
        if self._release:
            self._release = False
            for pair in list(self._open.values()):
                if pair.stalled:
                    self._cut(pair)

    # ---- the connections -------------------------------------------------------------------

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.seen["connections"] += 1
        number = self.seen["connections"]
        self.save()
        try:
            up_reader, up_writer = await asyncio.open_connection(*self.upstream)
        except OSError:
            writer.transport.abort()
            return
        pair = _Pair(number, writer, up_writer)
        self._open[number] = pair
        try:
            await asyncio.gather(self._up(pair, reader), self._down(pair, up_reader))
        finally:
            self._open.pop(number, None)
            for side in (writer, up_writer):
                side.transport.abort()

    async def _up(self, pair: _Pair, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if self.dark() or (self.armed and self.mode == "cut"):
                    self._cut(pair)
                    return
                if self.armed or pair.stalled:
                    pair.stalled += len(data)
                    self.seen["stalled_bytes"] += len(data)
                    continue
                self.seen["bytes_up"] += len(data)
                pair.host.write(data)
                await pair.host.drain()
        pair.host.transport.abort()

    async def _down(self, pair: _Pair, reader: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                self.read_log()
                if pair.number not in self._open:
                    return  # read_log cut it: the game ended
                if self.dark():
                    self._cut(pair)
                    return
                self.seen["bytes_down"] += len(data)
                pair.player.write(data)
                await pair.player.drain()
                self.release()
        pair.player.transport.abort()

    def _cut(self, pair: _Pair) -> None:
        self._open.pop(pair.number, None)
        self.seen["cut"].append([self.seen["windows"], pair.number, round(time.time(), 3)])
        self.save()
        for side in (pair.player, pair.host):
            side.transport.abort()


def start(
    netns: str, upstream: str, port: int, host_log: Path, out: Path, *options: str
) -> subprocess.Popen[str]:
    """This relay as a process of its own in namespace `netns`, relaying `port` to
    `upstream` (HOST:PORT), returned once it listens; `options`: --mode, --blackout, ..."""
    proc = subprocess.Popen(
        ["ip", "netns", "exec", netns, sys.executable, "-m", "tests.support.tcp_relay",
         "--to", upstream, "--port", str(port), "--host-log", str(host_log), "--out", str(out),
         *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    assert proc.stdout is not None
    ready = json.loads(proc.stdout.readline() or "{}")
    if ready.get("port") != port:
        proc.kill()
        proc.wait()
        raise AssertionError(f"the relay did not start: {ready}")
    return proc


async def advertise(table_id: str, port: int) -> Any:
    """Copy the table's advertisement, with this relay's own address and port."""
    from p2pdice.net.discovery import Advertiser, find_table, lan_addresses, new_zeroconf

    for _ in range(20):
        ad = await find_table(table_id, host_prefix=None, timeout=2.0)
        if ad is not None:
            break
    else:
        raise SystemExit("the table is not advertised")
    azc = new_zeroconf()
    advertiser = Advertiser(
        azc, name=ad.name, port=port, addresses=lan_addresses(), txt=ad.advert.to_txt()
    )
    await advertiser.start()
    return azc, advertiser


async def main(args: argparse.Namespace) -> None:
    host, _, port = args.to.rpartition(":")
    relay = Relay(
        (host, int(port)), args.host_log, args.mode, args.out, args.windows, args.blackout
    )
    relay.save()
    server = await asyncio.start_server(relay.serve, args.bind, args.port)
    bound = server.sockets[0].getsockname()[1]
    advertised = await advertise(args.advertise, bound) if args.advertise else None
    print(json.dumps({"port": bound}), flush=True)
    try:
        async with server:
            await asyncio.gather(server.serve_forever(), relay.watch())
    finally:
        if advertised is not None:
            azc, advertiser = advertised
            await advertiser.stop()
            await azc.async_close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--to", required=True, help="the real host's HOST:PORT")
    parser.add_argument("--host-log", type=Path, required=True)
    parser.add_argument("--mode", choices=("cut", "stall", "end"), default="cut")
    parser.add_argument("--blackout", type=float, default=5.0, help="`end` mode: seconds")
    parser.add_argument("--windows", type=int, default=1, help="act in this many windows")
    parser.add_argument("--advertise", metavar="TABLE_ID", help="copy this table's advert")
    parser.add_argument("--bind", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True)
    asyncio.run(main(parser.parse_args()))
