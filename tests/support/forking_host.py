"""A forking host: the real host process, seen by its players through a relay that holds the
host's key and shows them two histories.

The relay stands where the host's address is and passes every frame through, except that it
forks the log in one of two ways (`mode`):

- `swap`: the second player (`victim`) is shown, at the first showdown where it is a valid
  swap, the two openings in the other order, each entry after them signed again on top of
  that order: a history of its own from that entry on, every entry host-signed, in which the
  game is exactly as in the other's. From then on the relay posts what the victim sends into
  the first player's log as well (signed by the host key), as a host that tells both players
  "everyone is here" would have to.
- `turn`: a fork after which it is another seat's turn in each history. At the first round
  a player opens with a bid (the *opener*), the other player is shown, instead of that bid,
  the opener declared absent and the host's blind opening bid in its place, so it is its own
  turn; the opener is shown, instead of its own bid, the other declared absent, so it is
  still the opener's turn. What the other then plays (made on its history) is posted into
  the opener's log, where it is a move from a seat whose turn it is not: FORK, not
  NOT_YOUR_TURN, at the opener; the other is then shown the host's real entry at the seq
  where its history departed (EQUIVOCATION, both entries host-signed).

Nothing the players run is changed: what they are shown is exactly what a host with two logs
would sign.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from aiohttp import web

from p2pdice.core.codec import encode
from p2pdice.core.game import blind_action
from p2pdice.core.messages import Message, parse_message
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import Replayer, action_json
from p2pdice.core.transcript import Entry, build_entry, parse_entry
from p2pdice.net.tls import client_context, server_context


def _entry_frame(line: bytes) -> str:
    return '{"entry":' + line.decode() + ',"type":"entry"}'


@dataclass(slots=True)
class _TurnFork:
    """The `turn` fork: the opener's bid at `seq` (the real entry, `withheld` from both)."""

    seq: int
    opener: int  #: the opener's seat
    withheld: Entry
    round: int
    #: the blind opening bid the other player is shown in the opener's place
    blind: dict[str, Any]
    opener_ready: asyncio.Event = field(default_factory=asyncio.Event)
    opener_stream: _Stream | None = None
    other_stream: _Stream | None = None
    crossed: bool = False


@dataclass(slots=True)
class _Stream:
    """What one player's connection has been shown, in seq order."""

    ws: web.WebSocketResponse
    name: str | None = None
    seat: int | None = None
    next_seq: int = 0
    prev: bytes = b"\0" * 32
    early: dict[int, Entry] = field(default_factory=dict)
    held: Entry | None = None
    started: bool = False  #: the player's first sync on this connection was seen


class ForkingHost:
    """Listen on `port` and relay to the real host at `upstream` (host:port); show `victim`
    (a player's name) a forked history signed with `key`, the host's identity key."""

    def __init__(
        self, upstream: str, key: SigningKey, *, victim: str, other: str, mode: str = "swap"
    ) -> None:
        assert mode in ("swap", "turn")
        self.upstream = upstream
        self.key = key
        self.mode = mode
        self.victim, self.other = victim, other
        self.real: list[bytes] = []  #: the host's own chain (entry hashes), as it arrives
        self.real_lines: list[bytes] = []  #: and its lines
        self._turn: _TurnFork | None = None
        #: `turn`: (the opener's name, the other's name) once forked
        self.turn_roles: tuple[str | None, str | None] | None = None
        #: (player, reason) of every refusal the real host sent a player
        self.refusals: list[tuple[str | None, str]] = []
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
            stream.seat = frame["msg"]["body"]["seat"]
            self._streams[stream.name] = stream
        elif frame.get("type") == "send" and self.mode == "turn":
            fork = self._turn
            if fork is not None and stream is fork.other_stream and not fork.crossed:
                fork.crossed = True
                task = self._cross(fork, parse_message(frame["msg"]))
                self._tasks.add(asyncio.get_running_loop().create_task(task))
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
                if frame.get("type") == "error":
                    self.refusals.append((stream.name, str(frame.get("reason"))))
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
            self.real_lines.append(entry.line)
        if self.mode == "turn":
            await self._show_turn(stream, entry)
            return
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

    # ---- the `turn` fork ------------------------------------------------------------------

    def _opening_bid(self, entry: Entry) -> _TurnFork | None:
        """The fork at `entry` when it is a round's opening bid (the entry before it is the
        round's beacon); None otherwise."""
        if entry.kind != "msg:bid" or entry.msg is None or entry.seq < 1:
            return None
        if parse_entry(self.real_lines[entry.seq - 1]).kind != "event:beacon":
            return None
        replayer = Replayer()
        for line in self.real_lines[: entry.seq]:
            replayer.feed(parse_entry(line))
        state = replayer.state
        assert state is not None and state.game is not None
        opener = entry.msg.seat
        blind = action_json(blind_action(state.game, opener))
        return _TurnFork(entry.seq, opener, entry, state.game.round, blind)

    def _event(self, stream: _Stream, event: dict[str, Any]) -> Entry:
        return build_entry(self.key, stream.next_seq, stream.prev, event=event, table=self.table)

    async def _show_turn(self, stream: _Stream, entry: Entry) -> None:
        fork = self._turn
        if fork is None:
            fork = self._opening_bid(entry)
            if fork is None:
                await self._send(stream, entry.line, entry.hash)
                return
            self._turn, self.forked_at = fork, fork.seq
        if entry.seq < fork.seq:  # a stream behind the other one
            await self._send(stream, entry.line, entry.hash)
            return
        if entry.seq > fork.seq:
            return  # after the fork the real log is shown to nobody (it waits on a refused move)
        absent = {"type": "absent", "round": fork.round, "reason": "no_reply"}
        if stream.seat == fork.opener:
            # Its own bid withheld, the other declared absent: still the opener's turn.
            other = next(s for s in self._streams.values() if s is not stream)
            shown = self._event(stream, {**absent, "seat": other.seat})
            await self._send(stream, shown.line, shown.hash)
            fork.opener_stream = stream
            fork.opener_ready.set()
        else:
            # The opener absent, the host's blind opening bid in its place: this seat's turn.
            gone = self._event(stream, {**absent, "seat": fork.opener})
            await self._send(stream, gone.line, gone.hash)
            forced = self._event(
                stream,
                {
                    "type": "forced",
                    "round": fork.round,
                    "seat": fork.opener,
                    "reason": "absent",
                    "action": fork.blind,
                },
            )
            fork.other_stream = stream
            self.turn_roles = (
                next((s.name for s in self._streams.values() if s.seat == fork.opener), None),
                stream.name,
            )
            await self._send(stream, forced.line, forced.hash)

    async def _cross(self, fork: _TurnFork, move: Message) -> None:
        """The other player's move, made on its own history: posted into the opener's log,
        where it is not that seat's turn; then the other is shown the real entry it lacks."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(fork.opener_ready.wait(), 5.0)
        opener, other = fork.opener_stream, fork.other_stream
        if opener is not None and not opener.ws.closed:
            entry = build_entry(self.key, opener.next_seq, opener.prev, msg=move, table=self.table)
            self.injected.append(entry.line)
            await self._send(opener, entry.line, entry.hash)
        if other is not None and not other.ws.closed:
            # At a seq it holds already: a second host-signed entry of one seq.
            await other.ws.send_str(_entry_frame(fork.withheld.line))

    async def _send(self, stream: _Stream, line: bytes, digest: bytes) -> None:
        stream.prev = digest
        stream.next_seq += 1
        if not stream.ws.closed:
            await stream.ws.send_str(_entry_frame(line))


# ---- as a process of its own ----------------------------------------------------------------


def report(relay: ForkingHost) -> dict[str, Any]:
    """What the relay did, for the test that ran it as a process (JSON)."""
    return {
        "forked_at": relay.forked_at,
        "injected": [line.decode() for line in relay.injected],
        "refusals": [list(r) for r in relay.refusals],
        "turn_roles": list(relay.turn_roles) if relay.turn_roles is not None else None,
    }


async def _serve(args: Any) -> None:
    key = SigningKey(bytes.fromhex(args.key_file.read_text().strip()))
    relay = ForkingHost(args.upstream, key, victim=args.victim, other=args.other, mode=args.mode)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    await relay.start(args.port)
    print(json.dumps({"port": args.port}), flush=True)  # ready
    try:
        await asyncio.wait_for(stop.wait(), args.lifetime)  # bounded: it never outlives a test
    except TimeoutError:
        pass
    finally:
        await relay.close()
        args.out.write_text(json.dumps(report(relay)))


def main() -> None:
    """`python -m tests.support.forking_host UPSTREAM KEY_FILE PORT OUT --victim V --other O
    [--mode swap|turn]`: the relay as an attacker process of its own; on SIGTERM (or after
    `--lifetime` seconds) it writes what it did to OUT and exits."""
    parser = argparse.ArgumentParser(prog="forking_host")
    parser.add_argument("upstream", help="the real host, HOST:PORT")
    parser.add_argument("key_file", type=Path, help="the host's identity key (hex)")
    parser.add_argument("port", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--victim", required=True)
    parser.add_argument("--other", required=True)
    parser.add_argument("--mode", choices=("swap", "turn"), default="swap")
    parser.add_argument("--lifetime", type=float, default=120.0)
    asyncio.run(_serve(parser.parse_args()))


if __name__ == "__main__":
    main()
