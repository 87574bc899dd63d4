"""A forking host: the real host process, seen by one player through a relay that holds the
host's key and shows that player a second history.

The relay stands where the host's address is and passes every frame through, except that
the second player (`victim`) is shown, at the first showdown where it is a valid swap, the
two openings in the other order, each entry after them signed again on top of that order:
a history of its own from that entry on, every entry host-signed. From then on the relay
posts what the victim sends into the first player's log as well (signed by the host key),
as a host that tells both players "everyone is here" would have to. Nothing the players
run is changed: what they are shown is exactly what a host with two logs would sign.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from p2pdice.core.codec import encode
from p2pdice.core.messages import Message, parse_message
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import Entry, build_entry, parse_entry
from p2pdice.net.tls import client_context, server_context


def _entry_frame(line: bytes) -> str:
    return '{"entry":' + line.decode() + ',"type":"entry"}'


@dataclass(slots=True)
class _Stream:
    """What one player's connection has been shown, in seq order."""

    ws: web.WebSocketResponse
    name: str | None = None
    next_seq: int = 0
    prev: bytes = b"\0" * 32
    early: dict[int, Entry] = field(default_factory=dict)
    held: Entry | None = None
    started: bool = False  #: the player's first sync on this connection was seen


class ForkingHost:
    """Listen on `port` and relay to the real host at `upstream` (host:port); show `victim`
    (a player's name) a forked history signed with `key`, the host's identity key."""

    def __init__(self, upstream: str, key: SigningKey, *, victim: str, other: str) -> None:
        self.upstream = upstream
        self.key = key
        self.victim, self.other = victim, other
        self.real: list[bytes] = []  #: the host's own chain (entry hashes), as it arrives
        self.forked_at: int | None = None  #: the first seq the victim was shown differently
        self.injected: list[bytes] = []  #: entries signed into the other player's log
        self._streams: dict[str, _Stream] = {}
        self.frames: list[tuple[str | None, str]] = []  #: (player, frame type) as relayed
        #: Set once the victim sent a message made on its own history: its alarm at the
        #: other player's next message would otherwise race with that message's sending.
        self._victim_spoke = asyncio.Event()
        self._other_spoke = asyncio.Event()  #: the same for the other player (its own history)
        self._runner: web.AppRunner | None = None
        self.table = b""  #: the table id its entries are signed for (SPEC 2.5)
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, port: int) -> None:
        app = web.Application()
        app.router.add_get("/tables", self._tables)
        app.router.add_get("/t/{table}", self._relay)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        # It holds the host key, so it serves the host's own certificate: the pin passes.
        tls = server_context(self.key)
        await web.TCPSite(self._runner, "127.0.0.1", port, ssl_context=tls).start()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _tables(self, request: web.Request) -> web.Response:
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"https://{self.upstream}/tables", ssl=client_context()) as resp,
        ):
            return web.json_response(await resp.json())

    async def _relay(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        stream = _Stream(ws)
        self.table = bytes.fromhex(request.match_info["table"])
        url = f"wss://{self.upstream}{request.path_qs}"
        async with (
            aiohttp.ClientSession() as http,
            http.ws_connect(url, max_msg_size=0, ssl=client_context()) as up,
        ):
            down = asyncio.create_task(self._down(up, stream))
            try:
                async for msg in ws:
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        break
                    self._from_player(stream, json.loads(msg.data))
                    await up.send_str(msg.data)
            finally:
                down.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await down
        return ws

    def _from_player(self, stream: _Stream, frame: dict[str, Any]) -> None:
        self.frames.append((stream.name, str(frame.get("type"))))
        if frame.get("type") == "sync" and not stream.started:
            # A connection's first sync says how much of the log the player holds already
            # (it read the start on an earlier connection): what this one shows follows it.
            stream.started = True
            start = min(frame["from"], len(self.real))
            stream.next_seq = start
            stream.prev = self.real[start - 1] if start else b"\0" * 32
        if frame.get("type") == "join":
            stream.name = frame["msg"]["body"]["name"]
            self._streams[stream.name] = stream
        elif frame.get("type") == "send" and self.forked_at is not None:
            if stream.name == self.other:
                self._other_spoke.set()
            elif stream.name == self.victim:
                self._victim_spoke.set()
                task = self._inject(parse_message(frame["msg"]))
                self._tasks.add(asyncio.get_running_loop().create_task(task))

    async def _inject(self, msg: Message) -> None:
        """Made on the victim's history: signed into the other player's log too, once the
        other has sent a message of its own since the fork (its alarm then cannot stop that
        message from reaching the host, and the victim from being shown it)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._other_spoke.wait(), 5.0)
        other = self._streams.get(self.other)
        if other is None or other.ws.closed:
            return
        entry = build_entry(self.key, other.next_seq, other.prev, msg=msg, table=self.table)
        self.injected.append(entry.line)
        await other.ws.send_str(_entry_frame(entry.line))

    async def _down(self, up: aiohttp.ClientWebSocketResponse, stream: _Stream) -> None:
        async for msg in up:
            if msg.type != aiohttp.WSMsgType.TEXT:
                break
            frame = json.loads(msg.data)
            if frame.get("type") != "entry":
                await stream.ws.send_str(msg.data)
                continue
            entry = parse_entry(encode(frame["entry"]))
            if entry.seq < stream.next_seq:
                continue  # already shown (a sync answer overlapping a broadcast)
            stream.early[entry.seq] = entry
            while stream.next_seq in stream.early:
                await self._show(stream, stream.early.pop(stream.next_seq))

    async def _show(self, stream: _Stream, entry: Entry) -> None:
        if entry.seq == len(self.real):
            self.real.append(entry.hash)
        if stream.name != self.victim:
            await self._send(stream, entry.line, entry.hash)
            return
        kind = entry.kind
        if self.forked_at is None and stream.held is None and kind == "msg:open":
            stream.held = entry  # the first opening: shown after the second, if that is valid
            stream.next_seq += 1
            return
        if stream.held is not None:
            first, stream.held = stream.held, None
            known = set(self.real[: first.seq])
            if (
                kind == "msg:open"
                and first.msg is not None
                and entry.msg is not None
                and {first.msg.head, entry.msg.head} <= known
            ):
                self.forked_at = first.seq
                a = build_entry(self.key, first.seq, stream.prev, msg=entry.msg, table=self.table)
                b = build_entry(self.key, entry.seq, a.hash, msg=first.msg, table=self.table)
                stream.next_seq -= 1
                await self._send(stream, a.line, a.hash)
                await self._send(stream, b.line, b.hash)
                return
            stream.next_seq -= 1
            await self._send(stream, first.line, first.hash)
        if self.forked_at is None:
            await self._send(stream, entry.line, entry.hash)
            return
        if entry.msg is not None and not self._victim_spoke.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._victim_spoke.wait(), 5.0)
        again = (
            build_entry(self.key, entry.seq, stream.prev, msg=entry.msg, table=self.table)
            if entry.msg is not None
            else build_entry(self.key, entry.seq, stream.prev, event=entry.event, table=self.table)
        )
        await self._send(stream, again.line, again.hash)

    async def _send(self, stream: _Stream, line: bytes, digest: bytes) -> None:
        stream.prev = digest
        stream.next_seq += 1
        if not stream.ws.closed:
            await stream.ws.send_str(_entry_frame(line))
