"""Benchmark worker: real ClientSessions over WebSockets, timing what they send and apply.

Not a benchmark itself; the benchmarks start it in child processes (inside their private
network). Each session is the product's own `ClientSession` driven by
`p2pdice.net.client.run_websocket`; a subclass only adds clocks:

- `sent`: for every message this seat sent, (counter, type, t) with t taken when the action
  was decided (before signing) or, for automatic messages (commit, open, ack...), when it was
  handed to the socket writer;
- `applied`: for every entry, (seq, t) with t taken once the entry has been verified and
  applied to the session's state, plus what the entry is (seat, counter and type of the
  message it carries, or the event type).

Times are `time.monotonic_ns()` (CLOCK_MONOTONIC), comparable between processes on one
machine. Two ways to play:

- `--paced GAP_MS`: a scripted bidder that waits GAP_MS after it is its turn, then makes the
  smallest raise (never bidding ones) until no raise is left, then calls: long rounds, one
  bid in flight at a time, so latency is measured without queueing;
- `--bot LEVEL`: a registry bot playing as fast as it can (load tests).

With `--host-url` the worker asks a `benchmarks.hostproc` for new tables itself
(POST /bench/open) and keeps each group of six seats playing game after game until stopped.

    python -m benchmarks.player --url ws://127.0.0.1:PORT/t/ID --sessions 1 --paced 10 --out F
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
from pathlib import Path
from typing import Any

import aiohttp

from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import decide_safely
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Challenge, Phase, PlaceBid, StartNextRound
from p2pdice.core.peer import Applied, PeerOutput, Send
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
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


class TimedSession(ClientSession):
    """A ClientSession that notes when it sends and when it has applied each entry."""

    def __init__(
        self, *args: Any, record_all: bool = True, paced: float | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.record_all = record_all
        self.paced = paced
        self.sent: list[tuple[int, str, int]] = []  #: (counter, type, t_ns)
        self.applied: list[tuple[int, int]] = []  #: (seq, t_ns)
        self.kinds: dict[
            int, tuple[int | None, int | None, str]
        ] = {}  #: seq -> seat, counter, type
        self.echo: list[tuple[str, int, int]] = []  #: own messages: (type, t_sent, latency_ns)
        self.entries = 0
        self._decided_at: int | None = None
        self._own: dict[int, tuple[str, int]] = {}  #: counter -> (type, t_sent) awaiting echo
        self._scheduled: asyncio.TimerHandle | None = None

    # ---- clocks ------------------------------------------------------------------------------

    def act(self, action: Action) -> None:
        self._decided_at = time.monotonic_ns()
        super().act(action)

    def _transmit(self, send: Send) -> None:
        t = self._decided_at if self._decided_at is not None else time.monotonic_ns()
        self._decided_at = None
        msg = send.message
        self.sent.append((msg.counter, msg.type, t))
        self._own[msg.counter] = (msg.type, t)
        super()._transmit(send)

    def _handle(self, outputs: list[PeerOutput]) -> None:
        t = time.monotonic_ns()
        seat = self.seat
        for out in outputs:
            if not isinstance(out, Applied):
                continue
            entry = out.entry
            self.entries += 1
            msg = entry.msg
            if msg is not None and msg.seat == seat:
                own = self._own.pop(msg.counter, None)
                if own is not None:
                    self.echo.append((own[0], own[1], t - own[1]))
            if self.record_all:
                self.applied.append((entry.seq, t))
                if msg is not None:
                    self.kinds[entry.seq] = (msg.seat, msg.counter, msg.type)
                elif entry.event is not None:
                    self.kinds[entry.seq] = (None, None, "event:" + entry.event["type"])
        super()._handle(outputs)

    # ---- pacing ------------------------------------------------------------------------------

    def _maybe_decide(self) -> None:
        if self.paced is None:
            super()._maybe_decide()
            return
        if self._due() is not None and self._scheduled is None:
            loop = asyncio.get_running_loop()
            self._scheduled = loop.call_later(self.paced, self._paced_act)

    def _due(self) -> str | None:
        """'bid' or 'next' when our seat owes a move now (same conditions as the product)."""
        peer = self.peer
        if self.bot is None or peer is None or not self.connected or not self._resumed:
            return None
        state = peer.state
        if state is None or state.game is None or not peer.holds_seat or peer.halted:
            return None
        if self.pending_kinds() - {"ack"}:
            return None
        game = state.game
        if state.phase == TablePhase.BIDDING and game.turn == peer.seat:
            return "bid"
        if (
            state.phase == TablePhase.RESULT
            and game.phase == Phase.ROUND_OVER
            and game.next_starter == peer.seat
        ):
            return "next"
        return None

    def _paced_act(self) -> None:
        self._scheduled = None
        due = self._due()
        peer = self.peer
        if due is None or peer is None or peer.state is None or peer.state.game is None:
            return
        if due == "bid":
            assert self.bot is not None and peer.seat is not None
            action, _ = decide_safely(self.bot, peer.state.game, peer.seat, peer.hand, self.rng)
        else:
            assert peer.seat is not None
            action = StartNextRound(peer.seat)
        self.act(action)

    def results(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "sent": self.sent,
            "applied": self.applied,
            "kinds": {str(k): v for k, v in self.kinds.items()},
            "echo": self.echo,
            "entries": self.entries,
            "errors": [[str(r), d] for r, d in self.errors[:20]],
            "finished": self.finished,
        }


def new_session(args: argparse.Namespace, index: int, home: Path | None) -> TimedSession:
    rng = random.Random(args.seed * 1000 + index)
    bot = minimal_raise if args.paced is not None else load_bot(args.bot)
    return TimedSession(
        key=SigningKey(secrets.token_bytes(32)),
        name=f"bench {index}",
        home=home,
        cpu=True,
        bot=bot,
        rng=rng,
        record_all=not args.own_only,
        paced=None if args.paced is None else args.paced / 1000,
    )


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
            out.append({"index": index, "url": url, **session.results()})

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

    async with aiohttp.ClientSession() as http:
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


def main(argv: list[str] | None = None) -> int:
    require_isolation()
    parser = argparse.ArgumentParser(prog="python -m benchmarks.player")
    parser.add_argument("--url", help="ws:// URL of the table")
    parser.add_argument("--host-url", help="http:// of a benchmarks.hostproc: open tables there")
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--paced", type=float, metavar="GAP_MS", help="scripted paced bidder")
    parser.add_argument("--bot", default="medium", help="registry bot when not --paced")
    parser.add_argument("--own-only", action="store_true", help="record only own echoes")
    parser.add_argument("--home", help="folder for the sessions' stores (default: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", help="write a cProfile of this process here")
    parser.add_argument("--out", required=True)
    args = parser.parse_args(argv)
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    try:
        results = asyncio.run(main_async(args))
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
    Path(args.out).write_text(json.dumps({"sessions": results}))
    return 0 if all(r.get("finished") or args.host_url for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
