"""Benchmark worker: real ClientSessions over WebSockets, timing what they send and apply.

Not a benchmark itself; the benchmarks start it in child processes (inside their private
network). Each session is the product's own `ClientSession` driven by
`p2pdice.net.client.run_websocket`, its moves made by the product's `BotDriver`. The clocks
sit in `TimedConnection`, the core `ClientConnection` with its public inputs timed (the
session pumps frames into it and carries out its intents exactly as it does for the product's
own connection):

- `sent`: for every message this seat sent, (counter, type, t) with t taken when the action
  was decided (before signing) or, for automatic messages (commit, open, ack...), when the
  core handed it to the session to send;
- `applied`: for every entry, (seq, t) with t taken once the entry has been verified and
  applied to the connection's state (before the session writes it to the transcript), plus
  what the entry is (seat, counter and type of the message it carries, or the event type);
- `echo`: for every message of ours that reached the log, (type, t sent, latency).

Times are `time.monotonic_ns()` (CLOCK_MONOTONIC), comparable between processes on one
machine. Two ways to play:

- `--paced GAP_MS`: a scripted bidder that waits GAP_MS after it is its turn (the driver's
  think time, without its jitter), then makes the smallest raise (never bidding ones) until
  no raise is left, then calls: long rounds, one bid in flight at a time, so latency is
  measured without queueing;
- `--bot LEVEL`: a registry bot playing as fast as it can (load tests).

With `--host-url` the worker asks a `benchmarks.hostproc` for new tables itself
(POST /bench/open) and keeps each group of six seats playing game after game until stopped.

    python -m benchmarks.player --url wss://127.0.0.1:PORT/t/ID --sessions 1 --paced 10 --out F
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
import random
import secrets
import signal
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import aiohttp

from p2pdice.bots.driver import BotDriver
from p2pdice.bots.registry import load_bot
from p2pdice.core.bids import Bid
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import AppendEntry, Intent, SendMessage, Timer
from p2pdice.core.game import Action, Challenge, PlaceBid
from p2pdice.core.peer import Secrets
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import Entry, parse_entry
from p2pdice.core.view import SeatView
from p2pdice.net.client import run_websocket
from p2pdice.net.session import ClientSession

from .common import require_isolation


def minimal_raise(view: SeatView, rng: random.Random) -> Action:
    """The smallest legal raise on a face other than one; a call when none is left."""
    seat = view.seat
    assert seat is not None
    lowest = [b for face, b in view.lowest_bids_per_face().items() if face != 1]
    lowest = [b for b in lowest if b.quantity <= view.dice_in_play]
    if not lowest:
        if view.standing_bid is None:
            return PlaceBid(seat, Bid(1, 2))
        return Challenge(seat)
    best = min(lowest, key=lambda b: (b.quantity, b.face))
    return PlaceBid(seat, best)


class TimedConnection(ClientConnection):
    """The core client connection, noting when it sends and when it has applied each entry.

    Only public inputs are overridden, and each returns exactly what the product's would:
    the clocks read the intents and the connection's public facts (`lines`, `peer.pending`).
    """

    def __init__(self, *, record_all: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.record_all = record_all
        self.sent: list[tuple[int, str, int]] = []  #: (counter, type, t_ns)
        self.applied: list[tuple[int, int]] = []  #: (seq, t_ns)
        #: seq -> seat, counter, type
        self.kinds: dict[int, tuple[int | None, int | None, str]] = {}
        self.echo: list[tuple[str, int, int]] = []  #: own messages: (type, t_sent, latency_ns)
        self.entries = 0
        self._own: dict[int, tuple[str, int]] = {}  #: counter -> (type, t_sent) awaiting echo
        self._noted: set[int] = set()  #: counters of every message noted in `sent`

    # ---- sends: every input that can make the core send one of our messages ------------------

    def act(self, action: Action, now: float) -> list[Intent]:
        decided = time.monotonic_ns()  # before signing
        return self._note_sends(super().act(action, now), decided)

    def receive_frame(self, frame: Mapping[str, Any], now: float) -> list[Intent]:
        return self._note_sends(super().receive_frame(frame, now))

    def provide_secrets(
        self, round_: int, attempt: int, secrets: Secrets, now: float
    ) -> list[Intent]:
        return self._note_sends(super().provide_secrets(round_, attempt, secrets, now))

    def timer_fired(self, timer: Timer) -> list[Intent]:
        return self._note_sends(super().timer_fired(timer))

    def _note_sends(self, intents: list[Intent], t: int | None = None) -> list[Intent]:
        for intent in intents:
            if not isinstance(intent, SendMessage):
                continue
            msg = intent.message
            if msg.counter in self._noted:
                continue  # a resend, or noted by a nested input (an entry inside a frame)
            self._noted.add(msg.counter)
            at = t if t is not None else time.monotonic_ns()
            self.sent.append((msg.counter, msg.type, at))
            self._own[msg.counter] = (msg.type, at)
        return intents

    # ---- entries -----------------------------------------------------------------------------

    def receive_entry_line(self, line: bytes, now: float) -> list[Intent]:
        peer = self.peer
        waiting = (
            {ref: p.message.counter for ref, p in peer.pending.items()}
            if peer is not None and peer.pending
            else {}
        )
        before = len(self.lines)
        intents = super().receive_entry_line(line, now)
        t = time.monotonic_ns()
        new = len(self.lines) - before
        if new:
            self.entries += new
            if waiting and peer is not None:
                # Ours left the pending set: the log holds them now. (The peer also drops
                # a message a later entry made moot; without a turn clock, as at these
                # tables, no entry but our own can do that to a move of ours.)
                for ref, counter in waiting.items():
                    if ref not in peer.pending:
                        own = self._own.pop(counter, None)
                        if own is not None:
                            self.echo.append((own[0], own[1], t - own[1]))
            if self.record_all:
                self._record(intents, self.lines[before:], t)
        return self._note_sends(intents, t)

    def _record(self, intents: Sequence[Intent], lines: Sequence[bytes], t: int) -> None:
        # A client that keeps records hands each applied entry over to be written; one that
        # keeps none has only its lines, parsed again here (after the clock was read).
        entries: list[Entry] = [i.entry for i in intents if isinstance(i, AppendEntry)]
        if len(entries) != len(lines):
            entries = [parse_entry(line) for line in lines]
        for entry in entries:
            self.applied.append((entry.seq, t))
            msg = entry.msg
            if msg is not None:
                self.kinds[entry.seq] = (msg.seat, msg.counter, msg.type)
            elif entry.event is not None:
                self.kinds[entry.seq] = (None, None, "event:" + entry.event["type"])


class _Exact(random.Random):
    """A think time without the driver's +-30% jitter: the paced bidder waits exactly GAP."""

    def uniform(self, a: float, b: float) -> float:
        return 1.0


def new_session(args: argparse.Namespace, index: int, home: Path | None) -> ClientSession:
    rng = random.Random(args.seed * 1000 + index)
    paced = None if args.paced is None else args.paced / 1000
    bot = minimal_raise if paced is not None else load_bot(args.bot)
    key = SigningKey(secrets.token_bytes(32))
    name = f"bench {index}"
    session = ClientSession(key=key, name=name, home=home, cpu=True, bot=bot, rng=rng)
    # The session built its connection from these same arguments and has not used it yet;
    # the timed one takes its place before the first frame. (ClientSession has no parameter
    # for a connection of the caller's; assigning `core` is the public way in meanwhile.)
    session.core = TimedConnection(key=key, name=name, cpu=True, record_all=not args.own_only)
    if paced is not None:
        session.driver = BotDriver(bot, rng, think=paced, jitter=_Exact())
    return session


def results(session: ClientSession) -> dict[str, Any]:
    core = session.core
    assert isinstance(core, TimedConnection)
    return {
        "seat": session.seat,
        "sent": core.sent,
        "applied": core.applied,
        "kinds": {str(k): v for k, v in core.kinds.items()},
        "echo": core.echo,
        "entries": core.entries,
        "errors": [[str(r), d] for r, d in session.errors[:20]],
        "internal_errors": session.internal_errors[:20],
        "finished": session.finished,
    }


async def play(args: argparse.Namespace, stop: asyncio.Event, out: list[dict[str, Any]]) -> None:
    base = Path(args.home) if args.home else None

    def home_for(index: int) -> Path | None:
        return None if base is None else base / f"s{index}"

    async def one(index: int, url: str) -> str:
        session = new_session(args, index, home_for(index))
        try:
            return await run_websocket(session, url, stop=stop, give_up_after=30.0, linger=0.2)
        finally:
            session.close()
            out.append({"index": index, "url": url, **results(session)})

    if args.host_url is None:
        await asyncio.gather(*(one(i, args.url) for i in range(args.sessions)))
        return

    async def group(number: int, http: aiohttp.ClientSession) -> None:
        game = 0
        while not stop.is_set():
            async with http.post(args.host_url + "/bench/open") as resp:
                url = (await resp.json())["url"]
            first = (number * 1000 + game) * 6
            await asyncio.gather(*(one(first + i, url) for i in range(6)))
            game += 1

    from p2pdice.net.tls import client_context

    # The bench host serves its control routes on the table's port: TLS, nothing pinned.
    connector = aiohttp.TCPConnector(ssl=client_context())
    async with aiohttp.ClientSession(connector=connector) as http:
        await asyncio.gather(*(group(n, http) for n in range(args.sessions // 6)))


async def main_async(args: argparse.Namespace) -> list[dict[str, Any]]:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    out: list[dict[str, Any]] = []
    task = asyncio.create_task(play(args, stop, out))
    stopping = asyncio.create_task(stop.wait())
    await asyncio.wait({task, stopping}, return_when=asyncio.FIRST_COMPLETED)
    if not task.done():
        # Sessions notice the stop on their next frame; do not wait for a quiet table.
        done, _ = await asyncio.wait({task}, timeout=2.0)
        if not done:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
    stopping.cancel()
    return out


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.player")
    parser.add_argument("--url", help="wss:// URL of the table")
    parser.add_argument("--host-url", help="https:// of a benchmarks.hostproc: open tables there")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--paced", type=float, metavar="GAP_MS", help="scripted paced bidder")
    parser.add_argument("--bot", default="medium", help="registry bot when not --paced")
    parser.add_argument("--own-only", action="store_true", help="record only own echoes")
    parser.add_argument("--home", help="folder for the sessions' stores (default: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of this process here")
    parser.add_argument("--out", required=True)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    require_isolation()
    args = parse_args(argv)
    profiler = cProfile.Profile(time.process_time) if args.profile else None  # CPU, not wall
    if profiler is not None:
        profiler.enable()
    try:
        sessions = asyncio.run(main_async(args))
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
    Path(args.out).write_text(json.dumps({"sessions": sessions}))
    return 0 if all(r.get("finished") or args.host_url for r in sessions) else 1


if __name__ == "__main__":
    sys.exit(main())
