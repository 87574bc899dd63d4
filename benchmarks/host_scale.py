"""Host scale: one host process running 20 six-seat tables at once, played flat out.

A `benchmarks.hostproc` (the product's HostService, headless, no CPU seats) serves the
tables; four `benchmarks.player` processes hold 30 ClientSessions each (five tables of six),
every seat played by the `medium` bot over a WebSocket through
`p2pdice.net.client.run_websocket`, with no thinking time. When a table's game ends its six
players ask the host for a new table, so 20 games are always in progress. After a warm-up,
for a fixed window, the orchestrator samples once a second: entries posted (all tables),
the host's CPU time (utime + stime from /proc/<pid>/stat) and its RSS (/proc/<pid>/status).

Figures: entries posted per second (per-second samples; the p99 is the slow tail), the
latency of a player action (bid, call, exact call: decided -> the player has verified it
in the log, from the echo of its own entry), host CPU and RSS.

Baseline, same run: the bare relay with the same shape (20 groups of six in four processes,
each group passing a message round as fast as it can): messages relayed per second and the
latency from a send to its arrival at the next player.

    python -m benchmarks.host_scale [--quick] [--json]
"""

from __future__ import annotations

import itertools
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import common
from .common import (
    cpu_seconds,
    figure,
    load_json,
    ms,
    python_module,
    rate_stats,
    rss_kib,
    spawn,
    stats,
)

TABLES = 20
PROCESSES = 4
ACTIONS = ("bid", "challenge", "exact")


def sample(window: float, pid: int, counter: Any) -> list[tuple[float, float, int, int]]:
    """(time, cpu seconds, count, rss KiB) once a second for `window` seconds."""
    rows = []
    end = time.monotonic() + window
    while True:
        now = time.monotonic()
        rows.append((now, cpu_seconds(pid), counter(), rss_kib(pid)))
        if now >= end:
            return rows
        time.sleep(min(1.0, end - now))


def per_second(rows: Sequence[tuple[float, float, int, int]]) -> list[float]:
    return [(b[2] - a[2]) / (b[0] - a[0]) for a, b in itertools.pairwise(rows) if b[0] > a[0]]


def summarize_host(rows: Sequence[tuple[float, float, int, int]]) -> dict[str, float]:
    span = rows[-1][0] - rows[0][0]
    return {
        "seconds": span,
        "count": rows[-1][2] - rows[0][2],
        "cpu_percent": 100 * (rows[-1][1] - rows[0][1]) / span,
        "rss_mib_max": max(r[3] for r in rows) / 1024,
        "rss_mib_end": rows[-1][3] / 1024,
    }


def run_p2pdice(
    folder: Path, *, warmup: float, window: float, profile: Path | None = None
) -> dict[str, Any]:
    with common.processes() as started:
        extra = ["--profile", str(profile / "host.prof")] if profile is not None else []
        host = spawn(
            python_module(
                "benchmarks.hostproc", "--tables", "0", "--home", str(folder / "host"), *extra
            ),
            stdout_pipe=True,
            log=folder / "host.err",
        )
        started.append(host)
        host_url = common.read_json_line(host)["host_url"]
        clients = []
        for i in range(PROCESSES):
            proc = spawn(
                python_module(
                    "benchmarks.player", "--host-url", host_url,
                    "--sessions", str(6 * TABLES // PROCESSES), "--bot", "medium",
                    "--own-only", "--seed", str(i), "--out", str(folder / f"scale{i}.json"),
                ),
                log=folder / f"scale{i}.log",
            )  # fmt: skip
            started.append(proc)
            clients.append(proc)
        deadline = time.monotonic() + 60
        while common.http(host_url + "/bench/stats")["tables"] < TABLES:
            if time.monotonic() > deadline:
                raise RuntimeError("the load generators did not open their tables")
            time.sleep(0.2)
        time.sleep(warmup)
        rows = sample(window, host.pid, lambda: common.http(host_url + "/bench/stats")["entries"])
        t0, t1 = _ns(rows[0][0]), _ns(rows[-1][0])
        load = os.getloadavg()
        stats_end = common.http(host_url + "/bench/stats")
        for proc in clients:
            common.stop(proc, timeout=20)
    latencies: list[int] = []
    actions = 0
    for i in range(PROCESSES):
        path = folder / f"scale{i}.json"
        if not path.exists():
            continue
        for session in load_json(path)["sessions"]:
            for kind, t_sent, latency in session["echo"]:
                if kind in ACTIONS and t0 <= t_sent <= t1:
                    latencies.append(latency)
                    actions += 1
    return {
        "rows": rows,
        "host": summarize_host(rows),
        "latencies": latencies,
        "actions_per_s": actions / (rows[-1][0] - rows[0][0]),
        "tables_opened": stats_end["tables"],
        "games_finished": stats_end["over"],
        "load": load,
    }


def _ns(monotonic_seconds: float) -> int:
    return int(monotonic_seconds * 1e9)


def run_relay(folder: Path, *, warmup: float, window: float) -> dict[str, Any]:
    with common.processes() as started:
        server = spawn(python_module("benchmarks.relay", "server"), stdout_pipe=True)
        started.append(server)
        url = common.read_json_line(server)["url"]
        clients = []
        per = TABLES // PROCESSES
        for i in range(PROCESSES):
            groups = [f"--player=t{i * per + g}:0-5" for g in range(per)]
            proc = spawn(
                python_module(
                    "benchmarks.relay", "client", "--url", url, *groups,
                    "--count", str(10**9), "--gap-ms", "0", "--successor-only",
                    "--out", str(folder / f"rscale{i}.json"),
                ),
                stdout_pipe=True,
            )  # fmt: skip
            started.append(proc)
            clients.append(proc)
        for proc in clients:
            common.wait_line(proc, "ready", 30)
        common.http(url + "/go", post=True)
        time.sleep(warmup)
        rows = sample(window, server.pid, lambda: common.http(url + "/stats")["relayed"])
        t0, t1 = _ns(rows[0][0]), _ns(rows[-1][0])
        for proc in clients:
            common.stop(proc, timeout=20)
    sent: dict[tuple[str, int], int] = {}
    recv: dict[tuple[str, int], int] = {}
    for i in range(PROCESSES):
        path = folder / f"rscale{i}.json"
        if not path.exists():
            continue
        for p in load_json(path)["players"]:
            sent.update({(p["group"], n): t for n, t in p["sent"]})
            recv.update({(p["group"], n): t for n, t in p["recv"]})
    latencies = [recv[k] - t for k, t in sent.items() if k in recv and t0 <= t <= t1]
    return {"rows": rows, "host": summarize_host(rows), "latencies": latencies}


def run(*, quick: bool = False, profile: Path | None = None) -> dict[str, Any]:
    """`profile`: also write a CPU-time cProfile of the host process to DIR/host.prof."""
    warmup, window = (3.0, 10.0) if quick else (10.0, 60.0)
    if profile is not None:
        profile.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-scale-") as tmp:
        folder = Path(tmp)
        got = run_p2pdice(folder, warmup=warmup, window=window, profile=profile)
        base = run_relay(folder, warmup=3.0, window=min(window, 15.0))
    host, bhost = got["host"], base["host"]
    shape = (
        f"{TABLES} tables x 6 seats, bot medium, {PROCESSES} client processes, {window:g} s window"
    )
    figures = [
        figure(
            "host_scale",
            f"entries posted per second ({TABLES} tables)",
            "/s",
            rate_stats(per_second(got["rows"])),
            rate_stats(per_second(base["rows"])),
            baseline_what="bare relay, messages relayed per second, same shape",
            higher_is_better=True,
            notes=f"{shape}; player actions (bid/call) {got['actions_per_s']:.0f}/s; "
            f"{got['games_finished']} games finished",
        ),
        figure(
            "host_scale",
            "action latency under load: decided -> in own log",
            "ms",
            stats(ms(got["latencies"])),
            stats(ms(base["latencies"])),
            baseline_what="bare relay: send -> next player has it, same shape",
            notes=shape,
        ),
        figure(
            "host_scale",
            "host CPU while serving 20 tables",
            "%",
            {"n": 1, "median": host["cpu_percent"], "p99": host["cpu_percent"]},
            {"n": 1, "median": bhost["cpu_percent"], "p99": bhost["cpu_percent"]},
            baseline_what="relay process CPU",
            notes="utime+stime over the window / wall time (100% = one core)",
        ),
        figure(
            "host_scale",
            "host RSS while serving 20 tables",
            "MiB",
            {"n": 1, "median": host["rss_mib_end"], "p99": host["rss_mib_max"]},
            {"n": 1, "median": bhost["rss_mib_end"], "p99": bhost["rss_mib_max"]},
            baseline_what="relay process RSS",
            notes="median column: at the end of the window; p99 column: the maximum sampled",
        ),
    ]
    entries_per_cpu_s = host["count"] / max(host["cpu_percent"] / 100 * host["seconds"], 1e-9)
    relayed_per_cpu_s = bhost["count"] / max(bhost["cpu_percent"] / 100 * bhost["seconds"], 1e-9)
    figures.append(
        figure(
            "host_scale",
            "host capacity: entries per host CPU-second",
            "/s",
            {"n": 1, "median": entries_per_cpu_s, "p99": entries_per_cpu_s},
            {"n": 1, "median": relayed_per_cpu_s, "p99": relayed_per_cpu_s},
            baseline_what="relay: messages relayed per relay CPU-second",
            higher_is_better=True,
            notes="entries posted / host CPU time over the window: what one core could post "
            "if the players kept up (each entry goes to 6 connections, each relayed message "
            "to 5)",
        )
    )
    for f in figures:
        f["load_average_during"] = got["load"]
    text = [
        f"host scale: {host['count']} entries in {host['seconds']:.0f} s "
        f"({host['count'] / host['seconds']:.0f}/s) at {host['cpu_percent']:.0f}% CPU "
        f"= {entries_per_cpu_s:.0f} entries per host CPU-second; {got['tables_opened']} tables "
        f"opened, {got['games_finished']} games finished",
        f"relay: {bhost['count']} messages in {bhost['seconds']:.0f} s at {bhost['cpu_percent']:.0f}% CPU",
    ]
    details = {
        "host": host,
        "relay": bhost,
        "entries_per_host_cpu_second": entries_per_cpu_s,
        "actions_per_s": got["actions_per_s"],
        "text": text,
    }
    return {"figures": figures, "details": details}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("host_scale", run, argv, needs_network=True)


if __name__ == "__main__":
    sys.exit(main())
