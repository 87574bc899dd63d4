"""Fault injection against real `p2pdice` processes: freeze, kill, cut the LAN, then read back.

`frozen(proc)` stops a process with SIGSTOP, so a SIGKILL can land at an exact point of the
protocol (what it had not processed when frozen it never will); `walk_to` lets a frozen
client make one move at a time until the table waits for it where a test wants it.
`set_port(prefix, n, up=False)` takes host `n` of a `netns.lan()` off the bridge (`up=True`
puts it back); `Sockets` records which TCP connections a namespace held, to tell a resumed
connection from a new one. The readers replay a host's log or a client's files into the
facts the tests assert on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from p2pdice.core.codec import decode
from p2pdice.core.fairness import derive_dice
from p2pdice.core.game import Action, Challenge, PlaceBid
from p2pdice.core.messages import parse_message
from p2pdice.core.table import Replayer, TablePhase, TableState
from p2pdice.core.transcript import messages_in, parse_entry
from p2pdice.core.transitions import BUFFERED_MESSAGES, GOES_ON_WITHOUT, MESSAGE_PHASE
from p2pdice.core.view import SeatView
from p2pdice.store import AppendLog


def caller(view: SeatView, rng: random.Random) -> Action:
    """A bot that calls every bid it sees and otherwise opens as low as it may.

    It makes the table predictable: it calls in nearly every round, and it loses often (so it
    is often the seat that must start the next round).
    """
    assert view.seat is not None
    if view.can_challenge:
        return Challenge(view.seat)
    return PlaceBid(view.seat, view.legal_bids()[0])


# ---- reading back ------------------------------------------------------------------------


def log_entries(path: Path) -> list[dict[str, Any]]:
    return [decode(line) for line in AppendLog.read(path)]


def kind(entry: dict[str, Any]) -> str:
    return entry["event"]["type"] if "event" in entry else entry["msg"]["body"]["type"]


def body(entry: dict[str, Any]) -> dict[str, Any]:
    return entry["event"] if "event" in entry else entry["msg"]["body"]


def replay(path: Path) -> TableState:
    """The table as the entries of this log leave it."""
    return replay_lines(AppendLog.read(path))


def replay_lines(lines: list[bytes]) -> TableState:
    replayer = Replayer()
    for line in lines:
        replayer.feed(parse_entry(line))
    assert replayer.state is not None
    return replayer.state


def sent_records(folder: Path) -> list[dict[str, Any]]:
    """A client's sent.jsonl, as `verify_lines(mine=...)` takes it."""
    return [decode(line) for line in AppendLog.read(folder / "sent.jsonl")]


def sent_bodies(folder: Path) -> list[dict[str, Any]]:
    return [r["msg"]["body"] for r in sent_records(folder) if "msg" in r]


def unposted(folder: Path, lines: list[bytes]) -> list[dict[str, Any]]:
    """Messages a client recorded as sent that the log does not hold and the host never refused:
    what may still be on its way to the host."""
    posted = {m.digest() for line in lines for m in messages_in(parse_entry(line))}
    records = sent_records(folder)
    refused = {r["ref"] for r in records if "ref" in r}
    out = []
    for record in records:
        if "msg" in record:
            digest = parse_message(record["msg"]).digest()
            if digest not in posted and digest.hex() not in refused:
                out.append(record["msg"]["body"])
    return out


TIMEOUT_EVENTS = ("abort", "forced", "forfeit", "absent")


def may_still_be_posted(message: dict[str, Any], state: TableState) -> bool:
    """False for a message of an attempt or result the table has left: the host refuses or
    drops it (SPEC §8), so it can never add a line to the log."""
    if message["type"] in BUFFERED_MESSAGES:
        attempt = state.attempt
        return attempt is not None and (attempt.round, attempt.attempt) == (
            message["round"],
            message["attempt"],
        )
    if message["type"] in GOES_ON_WITHOUT:
        return (
            state.phase == MESSAGE_PHASE[message["type"]]
            and state.game is not None
            and (state.game.round == message["round"])
        )
    return True


def hand_bound(folder: Path, entries: list[dict[str, Any]], round_: int, seat: int) -> tuple:
    """The hand a seat's stored seed gives in a round's final attempt (SPEC §5.5).

    `folder` is the seat's table folder (its `secrets/`), `entries` a log holding the round's
    `round` and `beacon` events. What the seat opens must be this, or it cheated.
    """
    beacon = [body(e) for e in entries if kind(e) == "beacon" and body(e)["round"] == round_][-1]
    attempt = beacon["attempt"]
    opened = next(
        body(e)
        for e in entries
        if kind(e) == "round" and body(e)["round"] == round_ and body(e)["attempt"] == attempt
    )
    secrets = json.loads((folder / "secrets" / f"{round_}-{attempt}.json").read_text())
    return derive_dice(
        bytes.fromhex(secrets["seed"]),
        table_id=bytes.fromhex(folder.name),
        round_=round_,
        attempt=attempt,
        seat=seat,
        beacon_r=bytes.fromhex(beacon["beacon"]),
        count=opened["dice"][seat],
    )


async def settle(path: Path, quiet: float, timeout: float) -> int:
    """Wait until a log has not grown for `quiet` seconds; returns its line count."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    have, since = len(AppendLog.read(path)), loop.time()
    while loop.time() < deadline:
        await asyncio.sleep(0.02)
        now = len(AppendLog.read(path))
        if now != have:
            have, since = now, loop.time()
        elif loop.time() - since >= quiet:
            return have
    raise AssertionError(f"{path} kept growing for {timeout} s")


class Arrivals:
    """When each line of a log first appeared (loop time), polled every `every` seconds."""

    def __init__(self, path: Path, every: float = 0.005) -> None:
        self.path, self.every = path, every
        self.seen: list[float] = []
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        size = -1
        while True:
            now = self.path.stat().st_size if self.path.exists() else 0
            if now != size:
                size = now
                count = len(AppendLog.read(self.path))
                self.seen += [loop.time()] * (count - len(self.seen))
            await asyncio.sleep(self.every)

    async def __aenter__(self) -> Arrivals:
        self._task = asyncio.get_running_loop().create_task(self._run())
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


async def until(predicate: Callable[[], bool], timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(0.01)


# ---- processes ---------------------------------------------------------------------------


@contextlib.contextmanager
def frozen(*procs: subprocess.Popen[str]) -> Iterator[None]:
    """SIGSTOP for the block, in order; SIGCONT afterwards (in reverse) to those still alive."""
    for proc in procs:
        proc.send_signal(signal.SIGSTOP)
    try:
        yield
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGCONT)


async def one_move(proc: subprocess.Popen[str], sent: Path, timeout: float = 0.5) -> None:
    """Let a frozen client run until it has sent something more (or `timeout`), then freeze it."""
    loop = asyncio.get_running_loop()
    size = sent.stat().st_size if sent.exists() else 0
    deadline = loop.time() + timeout
    proc.send_signal(signal.SIGCONT)
    try:
        while loop.time() < deadline:
            if sent.exists() and sent.stat().st_size > size:
                return
            await asyncio.sleep(0.0005)
    finally:
        proc.send_signal(signal.SIGSTOP)


async def walk_to(
    proc: subprocess.Popen[str],
    log: Path,
    folder: Path,
    want: Callable[[TableState], bool],
    *,
    steps: int = 100,
) -> tuple[int, TableState]:
    """With the client `proc` frozen: let it make one move at a time until the table, at rest
    (waiting for it), is in a state `want` accepts and nothing it sent is still on its way.

    The host's `log` is the table; `folder` the client's table folder. Returns the log's
    length and the table's state at that point; the client is still frozen.
    """
    for _ in range(steps):
        await settle(log, 0.25, 10)
        lines = AppendLog.read(log)
        state = replay_lines(lines)
        in_flight = [m for m in unposted(folder, lines) if may_still_be_posted(m, state)]
        if state.phase == TablePhase.OVER:
            timeouts = [body(e) for e in map(decode, lines) if kind(e) in TIMEOUT_EVENTS]
            raise AssertionError(f"the game ended first; timeouts {timeouts}, unposted {in_flight}")
        if want(state) and not in_flight:
            return len(lines), state
        await one_move(proc, folder / "sent.jsonl")
    raise AssertionError(f"the table never came to rest where wanted in {steps} moves")


def kill9(proc: subprocess.Popen[str]) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(5)
    assert proc.returncode == -signal.SIGKILL


# ---- the LAN -----------------------------------------------------------------------------


def set_port(prefix: str, host: int, *, up: bool) -> None:
    """Bring host `host`'s port on the `netns.lan(prefix)` bridge up or down."""
    subprocess.run(
        ["ip", "-n", f"{prefix}br", "link", "set", f"p{host}", "up" if up else "down"],
        check=True,
        capture_output=True,
    )


def established(netns: str) -> list[tuple[str, str]]:
    """(local, peer) address:port of every established TCP connection in a namespace."""
    out = subprocess.run(
        ["ip", "netns", "exec", netns, "ss", "-Htn", "state", "established"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return [(c[2], c[3]) for c in (line.split() for line in out.splitlines()) if len(c) >= 4]


class Sockets:
    """Polls `ss` in a namespace: the local ports of its established connections to a peer."""

    def __init__(self, netns: str, peer: str, every: float = 0.2) -> None:
        self.netns, self.peer, self.every = netns, peer, every
        self.seen: list[str] = []  #: local address:port, in the order first seen
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            for local, peer in established(self.netns):
                if peer == self.peer and local not in self.seen:
                    self.seen.append(local)
            self._stop.wait(self.every)

    def __enter__(self) -> Sockets:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
