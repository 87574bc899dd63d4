"""Attacks from one machine on the LAN against a real `p2pdice host` (issue 13), measured.

    python -m benchmarks.attacks [--quick] [--json]

Each scenario starts `p2pdice host --headless` in a child process (inside the benchmark's
private network namespace, loopback only) and attacks it from this process over real sockets:

- sync: a two-seat game (one host-run CPU, one medium bot player here) played alone, then
  again while 60 spectators each send `{"from":0,"type":"sync"}` 18 times a second (under
  the frame rate limit). Figures: game time with and without the attack, bytes the host
  sent the attackers per byte they sent, the host's resident memory growth.
- lockout: a seated player whose connection drops while 64 spectators hold sockets open,
  then reconnects. Figure: seconds until it is back in its seat (not back within the bound:
  the bound is reported and a stand-in would take the seat).
- squat: six connections that never answer their challenge, reconnecting when closed, on a
  six-seat lobby. Figure: seconds until a player from another address is offered a seat.
- halfopen: 1,100 half-open HTTP requests against a host whose soft open-file limit is 1,024
  (a desktop's default). Figures: whether `GET /tables` and a WebSocket challenge still
  answer, and the bytes the host writes to its log meanwhile.

The same attacks, bounded to seconds, are the tests in tests/net/test_attacks.py. Run this
module against an older checkout to get the "before" figures (docs/reliability.md).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import aiohttp

from . import common

SYNC_ATTACKERS = 60
SYNC_RATE = 18.0  #: frames a second from each attacker: under the host's 20
SPECTATOR_FLOOD = 64
SQUATTERS = 6
HALF_OPEN = 1100
SOFT_FD_LIMIT = 1024


def _host(home: Path, *args: str, preexec: Any = None) -> tuple[subprocess.Popen[str], dict]:
    cmd = common.python_module(
        "p2pdice",
        "host",
        "--headless",
        "--json",
        "--no-advertise",
        "--bind",
        "127.0.0.1",
        "--home",
        str(home),
        *args,
    )
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(common.ROOT)}
    log = open(home.with_suffix(".log"), "w")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env=env,
        cwd=common.ROOT,
        preexec_fn=preexec,
    )
    return proc, common.read_json_line(proc)


def _raw_session(**kw: Any) -> aiohttp.ClientSession:
    """An attacker's HTTP client: TLS as the host speaks it, pinning nothing."""
    from p2pdice.net.tls import client_context

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=client_context()), **kw)


async def _play(url: str, home: Path, seed: int, limit: float) -> float | None:
    """Seconds a medium bot takes to play the game at `url` to its end (None: not within)."""
    from p2pdice.bots.registry import load_bot
    from p2pdice.core.signing import SigningKey
    from p2pdice.net.client import Outcome, run_websocket
    from p2pdice.net.session import ClientSession

    rng = random.Random(seed)
    session = ClientSession(
        key=SigningKey(rng.randbytes(32)),
        name="bench",
        home=home,
        bot=load_bot("medium"),
        rng=rng,
    )
    started = time.monotonic()
    try:
        outcome = await asyncio.wait_for(run_websocket(session, url, give_up_after=limit), limit)
    except TimeoutError:
        return None
    finally:
        session.close()
    return time.monotonic() - started if outcome == Outcome.OVER else None


class SyncFlood:
    """Spectators asking for the whole log over and over; counts bytes both ways."""

    def __init__(self, url: str, count: int) -> None:
        self.url, self.count = url, count
        self.sent = self.received = 0
        self.refused = 0
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, http: aiohttp.ClientSession) -> None:
        for _ in range(self.count):
            ws = await http.ws_connect(self.url + "?spectate=1", max_msg_size=0, heartbeat=None)
            await ws.receive(timeout=10)  # the challenge
            await ws.send_str('{"type":"spectate"}')
            self._tasks.append(asyncio.create_task(self._attack(ws)))

    async def _attack(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        reader = asyncio.create_task(self._read(ws))
        frame = '{"from":0,"type":"sync"}'
        try:
            while not self._stop.is_set() and not ws.closed:
                await ws.send_str(frame)
                self.sent += len(frame)
                await asyncio.sleep(1 / SYNC_RATE)
        except (ConnectionError, RuntimeError):
            pass
        finally:
            reader.cancel()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(ws.close(), 1)

    async def _read(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                return
            self.received += len(msg.data)
            if '"RATE_LIMITED"' in msg.data:
                self.refused += 1

    async def stop(self) -> None:
        self._stop.set()
        await asyncio.gather(*self._tasks, return_exceptions=True)


async def _sync_scenario(tmp: Path, games: int) -> dict[str, Any]:
    plain: list[float] = []
    attacked: list[float] = []
    ratios: list[float] = []
    growth: list[float] = []
    copies: list[float] = []
    for game in range(games * 2):
        under_attack = game % 2 == 1
        home = tmp / f"sync-{game}"
        proc, ready = _host(home, "--seats", "2", "--cpu", "1:medium")
        try:
            rss_before = common.rss_kib(proc.pid)
            async with _raw_session() as http:
                flood = SyncFlood(ready["url"], SYNC_ATTACKERS) if under_attack else None
                if flood is not None:
                    await flood.start(http)
                took = await _play(ready["url"], tmp / f"player-{game}", game, 240.0)
                rss_after = common.rss_kib(proc.pid)
                if flood is not None:
                    await flood.stop()
                    ratios.append(flood.received / max(1, flood.sent))
                    growth.append((rss_after - rss_before) / 1024)
                    log_bytes = sum(p.stat().st_size for p in home.glob("hosted/*/log.jsonl"))
                    copies.append(flood.received / SYNC_ATTACKERS / max(1, log_bytes))
            (attacked if under_attack else plain).append(took if took is not None else 240.0)
        finally:
            common.stop(proc)
    return {
        "plain": plain,
        "attacked": attacked,
        "ratios": ratios,
        "rss_growth_mib": growth,
        "log_copies": copies,
    }


async def _spectators(url: str, count: int) -> list[Any]:
    """Up to `count` spectator sockets, as many as the host takes; then the HTTP session."""
    held: list[Any] = []
    http = _raw_session()
    for _ in range(count):
        try:
            ws = await http.ws_connect(url + "?spectate=1", heartbeat=None)
            held.append(ws)
            if (await ws.receive_json(timeout=5))["type"] != "challenge":
                break  # refused: the table is full
            await ws.send_str('{"type":"spectate"}')
            if (await ws.receive_json(timeout=5))["type"] != "welcome":
                break
        except (aiohttp.ClientError, TimeoutError, OSError, TypeError, ValueError):
            break
    held.append(http)  # closed with the sockets
    return held


async def _close(held: Sequence[Any]) -> None:
    for item in held:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(item.close(), 1)


async def _lockout_scenario(tmp: Path, bound: float) -> float | None:
    """Seconds until a dropped seated player is back, with the table full of spectators."""
    from p2pdice.core.signing import SigningKey
    from p2pdice.net.client import run_websocket
    from p2pdice.net.session import ClientSession

    proc, ready = _host(tmp / "lockout", "--seats", "2", "--cpu", "1:easy")
    url, key = ready["url"], SigningKey(bytes([5]) * 32)

    def player() -> ClientSession:
        # No bot and no turn timer: the game waits at this player's turn, so it is still on
        # when the player comes back.
        return ClientSession(key=key, name="back", home=tmp / "lockout-player")

    try:
        first = player()
        task = asyncio.create_task(run_websocket(first, url, give_up_after=bound))
        for _ in range(200):
            if first.connected:
                break
            await asyncio.sleep(0.05)
        held = await _spectators(url, SPECTATOR_FLOOD)
        task.cancel()  # the player's Wi-Fi drops
        await asyncio.gather(task, return_exceptions=True)
        first.close()
        await asyncio.sleep(0.3)
        held += await _spectators(url, SPECTATOR_FLOOD)  # and the attacker takes its place
        again = player()
        started = time.monotonic()
        task = asyncio.create_task(run_websocket(again, url, give_up_after=bound))
        back = None
        while time.monotonic() - started < bound:
            if again.connected:
                back = time.monotonic() - started
                break
            await asyncio.sleep(0.05)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        again.close()
        await _close(held)
        return back
    finally:
        common.stop(proc)


async def _squat_scenario(tmp: Path, bound: float) -> float | None:
    """Seconds until a newcomer from another address is offered a seat that six silent,
    reconnecting connections keep reserving."""
    from p2pdice.net.tls import client_context

    proc, ready = _host(tmp / "squat", "--seats", "6")
    url = ready["url"]
    stop = asyncio.Event()

    async def squat(http: aiohttp.ClientSession) -> None:
        while not stop.is_set():
            with contextlib.suppress(aiohttp.ClientError, OSError, TimeoutError):
                async with http.ws_connect(url, heartbeat=None) as ws:
                    async for _ in ws:  # never answer; read until the host closes
                        if stop.is_set():
                            break

    try:
        async with _raw_session() as http:
            squatters = [asyncio.create_task(squat(http)) for _ in range(SQUATTERS)]
            await asyncio.sleep(0.5)
            connector = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0), ssl=client_context())
            started, offered = time.monotonic(), None
            async with aiohttp.ClientSession(connector=connector) as other:
                while time.monotonic() - started < bound and offered is None:
                    async with other.ws_connect(url, heartbeat=None) as ws:
                        challenge = await ws.receive_json(timeout=5)
                    if challenge.get("seat") is not None:
                        offered = time.monotonic() - started
                    else:
                        await asyncio.sleep(0.2)  # an honest client asks again shortly
            stop.set()
            for task in squatters:
                task.cancel()
            await asyncio.gather(*squatters, return_exceptions=True)
        return offered
    finally:
        common.stop(proc)


def _soft_limit() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    resource.setrlimit(resource.RLIMIT_NOFILE, (SOFT_FD_LIMIT, hard))


async def _half_open_scenario(tmp: Path, hold: float) -> dict[str, Any]:
    from p2pdice.core.advert import listing_url

    home = tmp / "halfopen"
    proc, ready = _host(home, "--seats", "2", "--cpu", "1:easy", preexec=_soft_limit)
    port, url = ready["port"], ready["url"]
    writers: list[asyncio.StreamWriter] = []
    try:
        failures = 0
        while len(writers) < HALF_OPEN and failures < 50:
            try:
                _, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 2)
            except (OSError, TimeoutError):
                failures += 1  # the host's backlog is full (it accepts no more): try again
                continue
            writer.write(b"GET /tables HTTP/1.1\r\nHost: attacker\r\n")
            writers.append(writer)
        await asyncio.sleep(1.0)
        fds = len(os.listdir(f"/proc/{proc.pid}/fd"))
        answers = {"tables": False, "challenge": False}
        timeout = aiohttp.ClientTimeout(total=5)
        async with _raw_session(timeout=timeout) as http:
            with contextlib.suppress(Exception):
                async with http.get(listing_url("127.0.0.1", port)) as answer:
                    answers["tables"] = answer.status == 200
            with contextlib.suppress(Exception):
                async with http.ws_connect(url, heartbeat=None) as ws:
                    answers["challenge"] = (await ws.receive_json(timeout=5))["type"] == "challenge"
        await asyncio.sleep(hold)
        fds_after = len(os.listdir(f"/proc/{proc.pid}/fd"))
        log_bytes = home.with_suffix(".log").stat().st_size
        return {
            **answers,
            "host_fds": fds,
            "host_fds_after": fds_after,
            "log_bytes": log_bytes,
            "half_open": len(writers),
        }
    finally:
        for writer in writers:
            writer.close()
        common.stop(proc)


def run(quick: bool = False) -> dict[str, Any]:
    common.require_isolation()
    games = 1 if quick else 3
    bound = 10.0 if quick else 20.0
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-attacks-") as name:
        tmp = Path(name)
        sync = asyncio.run(_sync_scenario(tmp, games))
        back = asyncio.run(_lockout_scenario(tmp, bound))
        offered = asyncio.run(_squat_scenario(tmp, bound))
        hold = 3.0 if quick else 12.0
        half = asyncio.run(_half_open_scenario(tmp, hold))
    plain, attacked = common.stats(sync["plain"]), common.stats(sync["attacked"])
    figures = [
        common.figure(
            "attacks",
            f"game time, {SYNC_ATTACKERS} spectators syncing from 0 at {SYNC_RATE:g}/s",
            "s",
            attacked,
            plain,
            baseline_what="the same game without the attack",
            targets=[("at most 1.5x the game alone", "ratio", 1.5)],
        ),
        common.figure(
            "attacks",
            "bytes the host sent the sync attackers per byte they sent",
            "x",
            common.stats(sync["ratios"]),
            notes="each attack frame is 24 bytes",
        ),
        common.figure(
            "attacks",
            "copies of the whole log each sync attacker received",
            "x",
            common.stats(sync["log_copies"]),
            notes="an honest spectator receives it once",
        ),
        common.figure(
            "attacks",
            "host resident memory growth during the sync attack",
            "MiB",
            common.stats(sync["rss_growth_mib"]),
        ),
        common.figure(
            "attacks",
            f"a dropped seated player back in, {SPECTATOR_FLOOD} spectators holding sockets",
            "s",
            common.stats([back if back is not None else bound]),
            targets=[(f"back within {bound:g} s", "median", bound - 0.01)],
            notes="not back" if back is None else "",
        ),
        common.figure(
            "attacks",
            f"a newcomer offered a seat, {SQUATTERS} silent reconnecting squatters",
            "s",
            common.stats([offered if offered is not None else bound]),
            targets=[(f"within {bound:g} s", "median", bound - 0.01)],
            notes="never offered" if offered is None else "",
        ),
        common.figure(
            "attacks",
            f"host log bytes with {half['half_open']} half-open requests (soft fd limit "
            f"{SOFT_FD_LIMIT})",
            "B",
            common.stats([half["log_bytes"]]),
            notes=f"GET /tables {'answered' if half['tables'] else 'FAILED'}, challenge "
            f"{'answered' if half['challenge'] else 'FAILED'}, host fds {half['host_fds']}, "
            f"{half['host_fds_after']} after {hold:g} s",
        ),
    ]
    text = [
        f"sync: game alone {sync['plain']}, under attack {sync['attacked']} s; "
        f"amplification {[round(r) for r in sync['ratios']]}x; "
        f"log copies per attacker {[round(c, 1) for c in sync['log_copies']]}; "
        f"RSS growth {[round(g, 1) for g in sync['rss_growth_mib']]} MiB",
        f"lockout: back in {back} s (bound {bound:g}); squat: seat offered after {offered} s",
        f"halfopen: {half}",
    ]
    return {"figures": figures, "details": {"text": text, "sync": sync, "halfopen": half}}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("attacks", run, argv, needs_network=True)


if __name__ == "__main__":
    sys.exit(main())
