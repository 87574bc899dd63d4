"""Bid latency: from a player's send until every other seat has verified and applied the bid.

Six seats, each its own process (`benchmarks.player`, the product's ClientSession over a
WebSocket, storing its transcript in a home folder of its own like a real client), at a
table run by the real `p2pdice host --headless` command, all on the private loopback. Each
seat bids GAP ms after it sees that it is its turn (the smallest raise until none is left,
then a call), so one bid is in flight at a time: a latency, not a queue. The time of a bid is
max over the five other seats of (applied there) - (decided by the bidder, before signing).

Baseline, same run: six processes and a bare aiohttp relay passing ~200 bytes of unsigned
JSON round the same way, the relay forwarding each message to the five others.

Targets: median <= 1 ms, p99 <= 3 ms, median <= 4x the baseline's.

    python -m benchmarks.bid_latency [--quick] [--json] [--profile DIR]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import common
from .common import figure, load_json, ms, python_module, spawn, stats

SEATS = 6
GAP_MS = 10.0
WARMUP_BIDS = 10  #: the first bids of a run are left out (connections and caches warming up)
TARGETS = [
    ("median <= 1 ms", "median", 1.0),
    ("p99 <= 3 ms", "p99", 3.0),
    ("ratio <= 4x", "ratio", 4.0),
]


def host_command(home: Path, starting_dice: int, profile: Path | None = None) -> list[str]:
    args = [
        "host", "--headless", "--no-advertise", "--bind", "127.0.0.1", "--json",
        "--seats", str(SEATS), "--starting-dice", str(starting_dice),
        "--home", str(home), "--name", "bench",
    ]  # fmt: skip
    if profile is not None:
        return python_module("benchmarks.cpu_profile", str(profile), "p2pdice", *args)
    return python_module("p2pdice", *args)


def start_players(
    url: str, folder: Path, started: list, *, gap_ms: float, profile: Path | None = None
) -> list:
    procs = []
    for i in range(SEATS):
        cmd = python_module(
            "benchmarks.player", "--url", url, "--paced", str(gap_ms), "--seed", str(i),
            "--home", str(folder / f"home{i}"), "--out", str(folder / f"p{i}.json"),
        )  # fmt: skip
        if profile is not None and i == 0:
            cmd += ["--profile", str(profile / "player0.prof")]
        proc = spawn(cmd, log=folder / f"p{i}.log")
        started.append(proc)
        procs.append(proc)
    return procs


def load_players(folder: Path) -> list[dict[str, Any]]:
    sessions = []
    for i in range(SEATS):
        path = folder / f"p{i}.json"
        if path.exists():
            sessions += load_json(path)["sessions"]
    return sessions


def bids(sessions: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every bid with its send time and when each seat applied it."""
    sent = {}
    for s in sessions:
        for counter, kind, t in s["sent"]:
            if kind == "bid":
                sent[(s["seat"], counter)] = t
    kinds: dict[int, tuple[int, int, str]] = {}
    for s in sessions:
        for seq, info in s["kinds"].items():
            kinds[int(seq)] = tuple(info)  # type: ignore[assignment]
    applied = {s["seat"]: dict(s["applied"]) for s in sessions}
    out = []
    for seq in sorted(kinds):
        seat, counter, kind = kinds[seq]
        if kind != "bid" or (seat, counter) not in sent:
            continue
        at = {other: times[seq] for other, times in applied.items() if seq in times}
        out.append({"seq": seq, "seat": seat, "sent": sent[(seat, counter)], "applied": at})
    return out


def latencies_ns(rows: Sequence[dict[str, Any]], pick: Any = max) -> list[int]:
    """Send to the last (`pick=min`: the first) of the other seats applying it, for bids
    every other seat applied."""
    out = []
    for row in rows:
        others = [t for seat, t in row["applied"].items() if seat != row["seat"]]
        if len(others) == SEATS - 1:
            out.append(pick(others) - row["sent"])
    return out


def run_p2pdice(
    folder: Path, *, starting_dice: int, gap_ms: float, profile: Path | None, timeout: float
) -> list[dict[str, Any]]:
    with common.processes() as started:
        host = spawn(
            host_command(
                folder / "host", starting_dice, profile / "host.prof" if profile else None
            ),
            stdout_pipe=True,
            log=folder / "host.err",
        )
        started.append(host)
        ready = common.read_json_line(host)
        players = start_players(
            ready["url"].replace("0.0.0.0", "127.0.0.1"),
            folder,
            started,
            gap_ms=gap_ms,
            profile=profile,
        )
        if not common.wait_all(players, timeout):
            print(
                f"bid_latency: players still running after {timeout:.0f} s; stopping them",
                file=sys.stderr,
            )
        host_exited = common.wait_all([host], 15)
    if not host_exited:
        print("bid_latency: the host did not exit after its game ended", file=sys.stderr)
    return load_players(folder)


def run_relay(
    folder: Path, *, count: int, gap_ms: float, timeout: float
) -> tuple[list[int], list[int]]:
    """Latencies to the last and to the first receiver."""
    with common.processes() as started:
        server = spawn(python_module("benchmarks.relay", "server"), stdout_pipe=True)
        started.append(server)
        url = common.read_json_line(server)["url"]
        clients = []
        for i in range(SEATS):
            proc = spawn(
                python_module(
                    "benchmarks.relay", "client", "--url", url, "--player", f"g:{i}",
                    "--count", str(count), "--gap-ms", str(gap_ms),
                    "--out", str(folder / f"relay{i}.json"),
                ),
                stdout_pipe=True,
            )  # fmt: skip
            started.append(proc)
            clients.append(proc)
        for proc in clients:
            common.wait_line(proc, "ready", 20)
        common.http(url + "/go", post=True)
        common.wait_all(clients, timeout)
    files = [f"relay{i}.json" for i in range(SEATS)]
    return relay_latencies(folder, files), relay_latencies(folder, files, pick=min)


def relay_latencies(
    folder: Path, files: Sequence[str], receivers: int = SEATS - 1, pick: Any = max
) -> list[int]:
    players = []
    for name in files:
        path = folder / name
        if path.exists():
            players += load_json(path)["players"]
    sent = {n: t for p in players for n, t in p["sent"]}
    arrived: dict[int, list[int]] = {}
    for p in players:
        for n, t in p["recv"]:
            arrived.setdefault(n, []).append(t)
    return [
        pick(arrived[n]) - sent[n]
        for n in sorted(sent)
        if n >= WARMUP_BIDS and len(arrived.get(n, ())) == receivers
    ]


def run(*, quick: bool = False, profile: Path | None = None) -> dict[str, Any]:
    starting_dice = 2 if quick else 5
    timeout = 120.0 if quick else 400.0
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-bids-") as tmp:
        folder = Path(tmp)
        if profile is not None:
            profile.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        sessions = run_p2pdice(
            folder, starting_dice=starting_dice, gap_ms=GAP_MS, profile=profile, timeout=timeout
        )
        rows = bids(sessions)[WARMUP_BIDS:]
        lat = latencies_ns(rows)
        first = latencies_ns(rows, pick=min)
        p2p_seconds = time.monotonic() - started
        load_p2p = os.getloadavg()
        base, base_first = run_relay(
            folder, count=len(rows) + WARMUP_BIDS, gap_ms=GAP_MS, timeout=timeout
        )
        errors = sorted({e[0] for s in sessions for e in s["errors"]})
    measured = stats(ms(lat))
    baseline = stats(ms(base))
    fig = figure(
        "bid_latency",
        "bid latency: send -> 5 other seats applied",
        "ms",
        measured,
        baseline,
        baseline_what="bare aiohttp relay, unsigned ~200-byte JSON, 6 processes",
        targets=TARGETS,
        notes=f"{SEATS} seats in separate processes, {GAP_MS:g} ms between bids, "
        f"{len(lat)} bids ({starting_dice} starting dice)",
    )
    fig["load_average_during"] = load_p2p
    fig_first = figure(
        "bid_latency",
        "bid latency: send -> first other seat applied",
        "ms",
        stats(ms(first)),
        stats(ms(base_first)),
        baseline_what="bare relay, first receiver",
        notes="the path one bid takes without waiting for the other clients' CPU: "
        "what a player sees when every seat is its own machine",
    )
    fig_first["load_average_during"] = load_p2p
    per_seat = _split(rows)
    text = [
        f"bid latency: {len(lat)} bids in {p2p_seconds:.0f} s; client errors: {errors or 'none'}",
        "  by receiving seat's distance from the bidder (median ms): "
        + ", ".join(f"+{k}: {v:.2f}" for k, v in per_seat.items()),
    ]
    return {
        "figures": [fig, fig_first],
        "details": {
            "bids": len(lat),
            "per_distance_median_ms": per_seat,
            "errors": errors,
            "text": text,
        },
    }


def _split(rows: Sequence[dict[str, Any]]) -> dict[int, float]:
    by: dict[int, list[float]] = {}
    for row in rows:
        for seat, t in row["applied"].items():
            if seat != row["seat"]:
                by.setdefault((seat - row["seat"]) % SEATS, []).append((t - row["sent"]) / 1e6)
    return {k: common.percentile(v, 0.5) for k, v in sorted(by.items())}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("bid_latency", run, argv, needs_network=True)


if __name__ == "__main__":
    sys.exit(main())
