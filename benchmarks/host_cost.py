"""What the host spends per entry, without sockets: a recorded game replayed into a host.

A six-seat game of `medium` bots is played once with `p2pdice.bots.protosim.LocalTable`,
recording every call its host received (challenges, handshake answers, player messages, clock
ticks). The recording is then replayed, in one process, into fresh hosts made from the same
key and nonce, which post exactly the same log (checked):

- `core`: into a `HostTable` alone (what `p2pdice/core` does: parse, check, sign, hash);
- `server`: into the product's `TableServer` as text frames, with its log written like a
  hosted table's (`HostLog`: append, an fsync at each round's end on its worker thread) and
  six connections whose writer tasks hand every frame to a function that drops it: the
  adapter's work (frame decoding, outputs, queues, writer tasks) without aiohttp, TLS or
  sockets, which `host_scale` measures with the rest.

Figures: entries per CPU-second of each (`time.process_time`, best of a few replays), and
`--profile DIR` writes a CPU-time cProfile of one server replay (DIR/host_cost.prof, for
`python -m benchmarks.profile_split`).

    python -m benchmarks.host_cost [--quick] [--json] [--profile DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import inspect
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pdice.bots import protosim
from p2pdice.bots.registry import load_bot
from p2pdice.core.client_intents import ends_a_round
from p2pdice.core.codec import encode
from p2pdice.core.host import HostTable, Output, Posted
from p2pdice.core.host_link import answer_challenge, challenge_frame
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import Entry
from p2pdice.net import server as server_module
from p2pdice.net.hostapp import HostLog
from p2pdice.net.server import Connection, Limits, TableServer
from p2pdice.store import AppendLog

from .common import figure

SEATS = 6
HOST_SECRET = bytes(range(32))
TABLE_NONCE = bytes(range(100, 116))
TABLE_NAME = "host cost"


@dataclass(slots=True)
class Recording:
    """A host's inputs in order, and the log it posted from them."""

    rules: Rules
    #: ("challenge", conn, nonce, reserve, other arguments) | ("answer", conn, frame, now, trusted)
    #: | ("receive", conn, message JSON, now) | ("tick", now)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    lines: list[bytes] = field(default_factory=list)

    def new_host(self) -> HostTable:
        return HostTable(
            key=SigningKey(HOST_SECRET),
            name=TABLE_NAME,
            rules=self.rules,
            nonce=TABLE_NONCE,
            now=0.0,
        )


def record(seed: int = 1, *, starting_dice: int = 5, bot: str = "medium") -> Recording:
    """Play one game and note every call its host received, outermost calls only."""
    rules = Rules(seats=SEATS, starting_dice=starting_dice)
    recording = Recording(rules)
    table = protosim.LocalTable(rules, [load_bot(bot)] * SEATS, rng=random.Random(seed))
    host = table.host = recording.new_host()
    calls = recording.calls
    depth = 0

    @contextlib.contextmanager
    def outer(call: tuple[Any, ...]) -> Iterator[None]:
        nonlocal depth
        if depth == 0:
            calls.append(call)
        depth += 1
        try:
            yield
        finally:
            depth -= 1

    def wrap(name: str, note: Callable[..., tuple[Any, ...]]) -> None:
        inner = getattr(host, name)

        def method(*args: Any, **kwargs: Any) -> Any:
            with outer(note(*args, **kwargs)):
                return inner(*args, **kwargs)

        setattr(host, name, method)

    wrap("receive", lambda conn, message, now: ("receive", conn, encode(message), now))
    wrap("tick", lambda now: ("tick", now))
    wrap("disconnected", lambda conn, now: ("disconnected", conn, now))

    def challenge(
        host_: HostTable, conn: int, nonce: bytes, *, reserve: bool = True, **kw: Any
    ) -> dict[str, Any]:
        # Whatever else the link passes (a password exchange's entropy, ...) goes on as it is.
        with outer(("challenge", conn, nonce, reserve, kw)):
            return challenge_frame(host_, conn, nonce, reserve=reserve, **kw)

    def answer(
        host_: HostTable, conn: int, frame: Any, now: float, *, trusted: bool = False, **kw: Any
    ) -> list[Output]:
        with outer(("answer", conn, encode(frame), now, trusted)):
            return answer_challenge(host_, conn, frame, now, trusted=trusted, **kw)

    saved = protosim.challenge_frame, protosim.answer_challenge
    protosim.challenge_frame, protosim.answer_challenge = challenge, answer  # type: ignore[assignment]
    try:
        table.seat_everyone()
        table.play()
    finally:
        protosim.challenge_frame, protosim.answer_challenge = saved
    if any(call[0] == "disconnected" for call in calls):
        raise RuntimeError("the recorded game had a disconnection: pick another seed")
    recording.lines = host.lines()
    return recording


def replay_core(recording: Recording) -> tuple[float, list[bytes]]:
    """CPU seconds to replay the recording into a HostTable, and the log it posted."""
    host = recording.new_host()
    inputs = [_decoded(call) for call in recording.calls]
    posted: list[bytes] = []

    def take(outputs: list[Output]) -> None:
        posted.extend(out.entry.line for out in outputs if isinstance(out, Posted))

    # With the message's bytes, as the server cuts them from a frame (where the host takes
    # them: older code that does not is measured too, for before/after figures).
    raw = "raw" in inspect.signature(host.receive).parameters
    start = time.process_time()
    for call in inputs:
        kind = call[0]
        if kind == "receive":
            if raw:
                take(host.receive(call[1], call[2], call[3], raw=call[4]))
            else:
                take(host.receive(call[1], call[2], call[3]))
        elif kind == "tick":
            take(host.tick(call[1]))
        elif kind == "challenge":
            challenge_frame(host, call[1], call[2], reserve=call[3], **call[4])
        else:
            take(answer_challenge(host, call[1], call[2], call[3], trusted=call[4]))
    cpu = time.process_time() - start
    return cpu, [*host.lines()[:1], *posted]


def _decoded(call: tuple[Any, ...]) -> tuple[Any, ...]:
    """A call with fresh JSON values, as a host decodes them from a frame."""
    if call[0] == "receive":
        return (call[0], call[1], json.loads(call[2]), call[3], call[2])
    if call[0] == "answer":
        return (call[0], call[1], json.loads(call[2]), *call[3:])
    return call


class _ReplayServer(TableServer):
    """The product's TableServer on the recording's clock (its own timer task is not run:
    the recording's ticks stand for it)."""

    now = 0.0

    @property
    def loop_now(self) -> float:
        return self.now


class _Nonces:
    """Stands for `secrets` in net/server.py during a replay: the recorded challenges."""

    def __init__(self, nonces: list[bytes]) -> None:
        self._nonces = list(nonces)

    def token_bytes(self, n: int) -> bytes:
        return self._nonces.pop(0) if n == 16 else bytes(n)


@dataclass(slots=True)
class ServerReplay:
    cpu: float
    entries: int
    #: Every frame each connection was handed, by recorded connection number.
    frames: dict[int, list[str]]
    log: bytes


class _Taking:
    """A connection's `direct` writer that keeps what it is handed (a socket that is always
    ready)."""

    def __init__(self, into: list[str | bytes]) -> None:
        self.into = into

    def ready(self) -> bool:
        return True

    def write(self, data: bytes) -> None:
        self.into.append(data)


def _texts_of(frame: str | bytes) -> list[str]:
    """A frame as its text, or the texts of the WebSocket frames written together."""
    if isinstance(frame, str):
        return [frame]
    texts = []
    while frame:
        size, start = frame[1] & 0x7F, 2
        if size == 126:
            size, start = int.from_bytes(frame[2:4], "big"), 4
        elif size == 127:
            size, start = int.from_bytes(frame[2:10], "big"), 10
        texts.append(frame[start : start + size].decode("utf-8"))
        frame = frame[start + size :]
    return texts


async def _replay_server(
    recording: Recording,
    folder: Path,
    *,
    profile: cProfile.Profile | None = None,
    sockets: bool = True,
) -> ServerReplay:
    host = recording.new_host()
    log = HostLog(AppendLog(folder / "log.jsonl"))
    for line in host.lines():  # the genesis, as a new hosted table writes it
        log.append(line)

    def on_entry(entry: Entry) -> None:  # as HostedTable._on_entry
        log.append(entry.line)
        if ends_a_round(entry):
            log.sync_soon()

    limits = Limits(max_connections=256, rate=1e9, burst=1e9)  # the recording's clock stands still
    server = _ReplayServer(host, limits=limits, on_entry=on_entry)
    frames: dict[int, list[str | bytes]] = {}
    conns: dict[int, Connection] = {}
    texts = [_frame_text(call) for call in recording.calls]
    nonces = [call[2] for call in recording.calls if call[0] == "challenge"]
    saved = server_module.secrets
    server_module.secrets = _Nonces(nonces)  # type: ignore[assignment]
    try:
        start = time.process_time()
        if profile is not None:
            profile.enable()
        for call, text in zip(recording.calls, texts, strict=True):
            kind = call[0]
            if kind == "challenge":
                got: list[str | bytes] = frames.setdefault(call[1], [])
                conn = server.open(got.append, reserve=call[3])
                assert conn is not None
                if sockets:  # as a socket's connection: frames written at once when it can
                    conn.direct = _Taking(got)
                conns[call[1]] = conn
                continue
            server.now = call[-2] if kind == "answer" else call[-1]
            if kind == "tick":
                server.apply(host.tick(server.now))
            else:
                server.receive(conns[call[1]], text)
            for _ in range(100):  # let the writers hand on what was queued
                if all(c.outbox.empty() for c in conns.values()):
                    break
                await asyncio.sleep(0)
        if profile is not None:
            profile.disable()
        cpu = time.process_time() - start
    finally:
        server_module.secrets = saved
    entries = len(host.entries)
    await server.close()
    await log.close()
    texts_got = {conn: [t for f in got for t in _texts_of(f)] for conn, got in frames.items()}
    return ServerReplay(cpu, entries, texts_got, (folder / "log.jsonl").read_bytes())


def _frame_text(call: tuple[Any, ...]) -> str:
    if call[0] == "receive":
        return '{"msg":' + call[2].decode() + ',"type":"send"}'  # keys sort: canonical
    if call[0] == "answer":
        return call[2].decode()
    return ""


def replay_server(
    recording: Recording, *, profile: cProfile.Profile | None = None, sockets: bool = True
) -> ServerReplay:
    """`sockets`: the connections write frames at once as a socket's do (`Connection.direct`);
    otherwise every frame goes through the connection's queue and writer task."""
    with tempfile.TemporaryDirectory(prefix="p2pdice-host-cost-") as tmp:
        return asyncio.run(_replay_server(recording, Path(tmp), profile=profile, sockets=sockets))


def run(*, quick: bool = False, profile: Path | None = None) -> dict[str, Any]:
    recording = record()
    entries = len(recording.lines)
    repeats = 3 if quick else 7
    core = []
    for _ in range(repeats):
        cpu, lines = replay_core(recording)
        if lines != recording.lines:
            raise RuntimeError("the core replay posted another log than the recorded game")
        core.append(cpu)
    served = []
    for _ in range(repeats):
        replay = replay_server(recording)
        if replay.log.splitlines() != recording.lines:
            raise RuntimeError("the server replay wrote another log than the recorded game")
        served.append(replay.cpu)
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
        profiler = cProfile.Profile(time.process_time)
        replay_server(recording, profile=profiler)
        profiler.dump_stats(str(profile / "host_cost.prof"))
    core_rate, server_rate = entries / min(core), entries / min(served)
    shape = f"one six-seat game, {entries} entries, replayed {repeats} times (best)"
    figures = [
        figure(
            "host_cost",
            "host core: entries per CPU-second (no sockets)",
            "/s",
            {"n": repeats, "median": core_rate, "p99": entries / max(core)},
            None,
            higher_is_better=True,
            notes=shape,
        ),
        figure(
            "host_cost",
            "host core + TableServer: entries per CPU-second",
            "/s",
            {"n": repeats, "median": server_rate, "p99": entries / max(served)},
            None,
            higher_is_better=True,
            notes=shape + "; frames handed to six connections that drop them",
        ),
    ]
    text = [
        f"host cost: {entries} entries; core {1e6 / core_rate:.0f} us per entry "
        f"({core_rate:.0f}/CPU-s); with TableServer {1e6 / server_rate:.0f} us "
        f"({server_rate:.0f}/CPU-s); the adapter's share {1e6 / server_rate - 1e6 / core_rate:.0f} us"
    ]
    details = {"entries": entries, "core_cpu": core, "server_cpu": served, "text": text}
    return {"figures": figures, "details": details}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.host_cost")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--profile", metavar="DIR")
    args = parser.parse_args(argv)
    result = run(quick=args.quick, profile=Path(args.profile) if args.profile else None)
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        for line in result["details"]["text"]:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
