"""Spectators: 200 watchers of one table; time until the last of them has each bid.

A `benchmarks.hostproc` host (the product's HostService; its per-table connection cap,
64 by default, raised to 256 so that 200 spectators fit) runs one six-seat table played by
six paced `benchmarks.player` processes, as in bid_latency. Two `benchmarks.spectator`
processes hold 100 raw WebSocket spectators each and note the raw arrival of every entry
frame (nothing verified). For each bid: (last of the 200 to receive it) - (bidder's send),
and also - (host posted it).

Baseline, same run: the bare relay of bid_latency with the same six players and 2 x 100
listeners, the relay forwarding each message to all 205 other connections.

Target: p99 <= 20 ms.

    python -m benchmarks.spectators [--quick] [--json]
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import common
from .bid_latency import SEATS, WARMUP_BIDS, bids, load_players, start_players
from .common import figure, load_json, ms, python_module, spawn, stats

SPECTATORS = 200
PROCESSES = 2
GAP_MS = 20.0
TARGETS = [("p99 <= 20 ms", "p99", 20.0)]


def run_p2pdice(folder: Path, *, starting_dice: int, timeout: float) -> dict[str, Any]:
    with common.processes() as started:
        host = spawn(
            python_module(
                "benchmarks.hostproc", "--tables", "1", "--seats", str(SEATS),
                "--starting-dice", str(starting_dice), "--max-connections", "256",
                "--until-over", "--record", str(folder / "host.json"),
            ),
            stdout_pipe=True,
            log=folder / "host.err",
        )  # fmt: skip
        started.append(host)
        url = common.read_json_line(host)["urls"][0]
        watchers = []
        # "?spectate=1": a watcher asks for no seat (hosts that do not know it ignore it).
        watch_url = url + "?spectate=1"
        for i in range(PROCESSES):
            proc = spawn(
                python_module(
                    "benchmarks.spectator", "--url", watch_url,
                    "--connections", str(SPECTATORS // PROCESSES),
                    "--out", str(folder / f"spec{i}.json"),
                ),
                stdout_pipe=True,
            )  # fmt: skip
            started.append(proc)
            watchers.append(proc)
        for proc in watchers:
            common.wait_line(proc, "ready", 60)
        players = start_players(url, folder, started, gap_ms=GAP_MS)
        common.wait_all(players, timeout)
        common.wait_all([host, *watchers], 20)
    posted = {seq: t for _, seq, t in load_json(folder / "host.json")["posted"]}
    arrivals: dict[int, list[int]] = {}
    for i in range(PROCESSES):
        for seq, (first, last, count) in load_json(folder / f"spec{i}.json")["entries"].items():
            arrival = arrivals.setdefault(int(seq), [first, last, 0])
            arrival[0], arrival[1] = min(arrival[0], first), max(arrival[1], last)
            arrival[2] += count
    rows = bids(load_players(folder))[WARMUP_BIDS:]
    from_send, from_post, spread, incomplete = [], [], [], 0
    for row in rows:
        seen = arrivals.get(row["seq"])
        if seen is None or seen[2] < SPECTATORS:
            incomplete += 1
            continue
        from_send.append(seen[1] - row["sent"])
        from_post.append(seen[1] - posted[row["seq"]])
        spread.append(seen[1] - seen[0])
    return {"send": from_send, "post": from_post, "spread": spread, "incomplete": incomplete}


def run_relay(folder: Path, *, count: int, timeout: float) -> list[int]:
    with common.processes() as started:
        server = spawn(python_module("benchmarks.relay", "server"), stdout_pipe=True)
        started.append(server)
        url = common.read_json_line(server)["url"]
        clients = []
        for i in range(PROCESSES):
            proc = spawn(
                python_module(
                    "benchmarks.relay", "client", "--url", url,
                    "--listeners", f"g:{SPECTATORS // PROCESSES}", "--count", str(count),
                    "--out", str(folder / f"rlisten{i}.json"),
                ),
                stdout_pipe=True,
            )  # fmt: skip
            started.append(proc)
            clients.append(proc)
        players = []
        for i in range(SEATS):
            proc = spawn(
                python_module(
                    "benchmarks.relay", "client", "--url", url, "--player", f"g:{i}",
                    "--count", str(count), "--gap-ms", str(GAP_MS),
                    "--out", str(folder / f"rplay{i}.json"),
                ),
                stdout_pipe=True,
            )  # fmt: skip
            started.append(proc)
            players.append(proc)
        for proc in clients + players:
            common.wait_line(proc, "ready", 60)
        common.http(url + "/go", post=True)
        common.wait_all(players + clients, timeout)
    sent: dict[int, int] = {}
    for i in range(SEATS):
        for p in load_json(folder / f"rplay{i}.json")["players"]:
            sent.update({n: t for n, t in p["sent"]})
    last: dict[int, list[int]] = {}
    for i in range(PROCESSES):
        for n, (_, t, count) in load_json(folder / f"rlisten{i}.json")["listeners"].items():
            row = last.setdefault(int(n), [t, 0])
            row[0], row[1] = max(row[0], t), row[1] + count
    return [
        last[n][0] - sent[n]
        for n in sorted(sent)
        if n >= WARMUP_BIDS and n in last and last[n][1] == SPECTATORS
    ]


def run(*, quick: bool = False) -> dict[str, Any]:
    starting_dice = 2 if quick else 4
    timeout = 180.0 if quick else 400.0
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-spectators-") as tmp:
        folder = Path(tmp)
        got = run_p2pdice(folder, starting_dice=starting_dice, timeout=timeout)
        load = os.getloadavg()
        base = run_relay(folder, count=len(got["send"]) + WARMUP_BIDS, timeout=timeout)
    fig = figure(
        "spectators",
        f"{SPECTATORS} spectators: send -> last has the bid",
        "ms",
        stats(ms(got["send"])),
        stats(ms(base)),
        baseline_what=f"bare aiohttp relay to {SPECTATORS} listeners + 5 players",
        targets=TARGETS,
        notes=f"{len(got['send'])} bids, {GAP_MS:g} ms apart; {got['incomplete']} bids not seen by all",
    )
    fig["load_average_during"] = load
    post = stats(ms(got["post"]))
    spread = stats(ms(got["spread"]))
    fig2 = figure(
        "spectators",
        f"{SPECTATORS} spectators: host posted -> last has it",
        "ms",
        post,
        notes="fan-out alone (first to last spectator: "
        f"median {spread['median']:.2f} ms, p99 {spread['p99']:.2f} ms)",
    )
    text = [
        f"spectators: {len(got['send'])} bids watched by {SPECTATORS}; "
        f"first-to-last spread median {spread['median']:.2f} ms, p99 {spread['p99']:.2f} ms; "
        f"{got['incomplete']} bids not seen by every spectator"
    ]
    return {
        "figures": [fig, fig2],
        "details": {"spread_ms": spread, "incomplete": got["incomplete"], "text": text},
    }


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("spectators", run, argv, needs_network=True)


if __name__ == "__main__":
    sys.exit(main())
