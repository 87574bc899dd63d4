"""Shared by the benchmarks: statistics, figures, the private network, child processes, /proc.

Every benchmark that opens a socket runs inside a private network namespace (loopback only):
`isolate()` moves the (still single-threaded) process into a fresh one before anything
starts, exactly as tests/support/netns.py does for the test suite, and marks the environment
(P2PDICE_BENCH_NETNS=1) so that child processes know they are already inside it and a nested
`python -m benchmarks.<name>` does not isolate itself a second time.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from p2pdice.core.rules import Ones, Rules, preset

#: The ways ones are played that the bot benchmarks report on, one line each.
RULE_MODES: dict[str, Rules] = {
    "classic": preset("classic"),
    "perudo": preset("perudo"),
    "natural": preset("classic", ones=Ones.NATURAL),
}

NETNS_ENV = "P2PDICE_BENCH_NETNS"
CLONE_NEWNET = 0x40000000
ROOT = Path(__file__).resolve().parents[1]

# ---- statistics ------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1) of unsorted values."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), math.ceil(q * len(ordered) - 1e-9)))
    return ordered[rank - 1]


def stats(values: Sequence[float]) -> dict[str, float]:
    """Sample count, median and p99 (for latencies and times: the slow tail)."""
    return {
        "n": len(values),
        "median": percentile(values, 0.5),
        "p99": percentile(values, 0.99),
    }


def rate_stats(values: Sequence[float]) -> dict[str, float]:
    """Sample count, median and p99 of a rate: the p99 is the low tail (99% of the samples
    were at least this fast), which is the side that matters for a throughput."""
    return {
        "n": len(values),
        "median": percentile(values, 0.5),
        "p99": percentile(values, 0.01),
    }


def figure(
    benchmark: str,
    metric: str,
    unit: str,
    measured: dict[str, float],
    baseline: dict[str, float] | None = None,
    *,
    baseline_what: str = "",
    higher_is_better: bool = False,
    targets: Iterable[tuple[str, str, float]] = (),
    notes: str = "",
) -> dict[str, Any]:
    """One row of the results.

    `targets` holds (label, statistic, limit) with statistic one of "median", "p99" or
    "ratio" (median / baseline median); a target is met when the figure is at most the
    limit, or at least the limit for `higher_is_better` figures.
    """
    ratio = None
    if baseline and baseline.get("median"):
        ratio = measured["median"] / baseline["median"]
    rows = []
    for label, statistic, limit in targets:
        value = ratio if statistic == "ratio" else measured.get(statistic)
        if value is None or value != value:  # missing or NaN
            met = False
        else:
            met = value >= limit if higher_is_better else value <= limit
        rows.append(
            {"target": label, "statistic": statistic, "limit": limit, "value": value, "met": met}
        )
    return {
        "benchmark": benchmark,
        "metric": metric,
        "unit": unit,
        **{k: measured[k] for k in ("n", "median", "p99") if k in measured},
        "baseline": None if baseline is None else {"what": baseline_what, **baseline},
        "ratio": ratio,
        "higher_is_better": higher_is_better,
        "targets": rows,
        "notes": notes,
        "load_average": os.getloadavg(),
    }


def ms(ns_values: Iterable[int]) -> list[float]:
    return [v / 1e6 for v in ns_values]


def per_call_us(
    fn: Callable[[], object], *, runs: int, batch: int, warmup: int | None = None
) -> list[float]:
    """Microseconds per call of `fn`, one sample per batch of `batch` calls, `runs` samples
    (after `warmup` untimed calls, by default three batches): feed them to `stats()`."""
    for _ in range(batch * 3 if warmup is None else warmup):
        fn()
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        for _ in range(batch):
            fn()
        samples.append((time.perf_counter() - start) / batch * 1e6)
    return samples


# ---- the machine -------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "kernel": platform.release(),
        "load_average": os.getloadavg(),
    }


def clk_tck() -> int:
    return os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc/<pid>/stat."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / clk_tck()  # fields 14 and 15 of stat(5)


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


# ---- the private network -----------------------------------------------------------------------


class NotIsolated(SystemExit):
    pass


def interfaces() -> set[str]:
    """The network interfaces of this process's namespace (from /proc/self/net/dev)."""
    lines = Path("/proc/self/net/dev").read_text().splitlines()[2:]
    return {line.split(":", 1)[0].strip() for line in lines if ":" in line}


def isolated() -> bool:
    """Marked as inside the benchmark's namespace, and only loopback is in sight."""
    return os.environ.get(NETNS_ENV) == "1" and interfaces() <= {"lo"}


def isolate() -> None:
    """Move this process into a private network namespace with only loopback, or refuse.

    Call before any thread, socket or child process exists.
    """
    if isolated():
        return
    if os.environ.get(NETNS_ENV) == "1":
        raise NotIsolated(
            f"{NETNS_ENV}=1 is set but this network namespace has other interfaces than "
            f"loopback ({', '.join(sorted(interfaces()))}): refusing to open sockets here"
        )
    if os.geteuid() != 0:
        raise NotIsolated(
            "benchmarks that open sockets run only inside a private network namespace, which "
            "needs root (unshare(CLONE_NEWNET)). Run as root, or run only the benchmarks that "
            "open no socket"
        )
    if shutil.which("ip") is None:
        raise NotIsolated("the `ip` command (iproute2) is needed to bring up the private loopback")
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWNET) != 0:
        raise NotIsolated(f"unshare(CLONE_NEWNET) failed: errno {ctypes.get_errno()}")
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    # zeroconf's multicast needs a route on lo (the only interface here).
    subprocess.run(
        ["ip", "route", "add", "224.0.0.0/4", "dev", "lo"], check=False, capture_output=True
    )
    if interfaces() - {"lo"}:
        raise NotIsolated("the new network namespace has interfaces besides loopback")
    os.environ[NETNS_ENV] = "1"


def require_isolation() -> None:
    """For worker processes: never open a socket outside the benchmark's namespace."""
    if not isolated():
        raise NotIsolated(
            "this is a benchmark worker: start it through `python -m benchmarks` or "
            "`python -m benchmarks.<name>`, which isolate the network first"
        )


# ---- child processes ---------------------------------------------------------------------------


def python_module(module: str, *args: str) -> list[str]:
    return [sys.executable, "-m", module, *args]


def spawn(
    cmd: Sequence[str], *, log: Path | None = None, stdout_pipe: bool = False
) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(ROOT)}
    if stdout_pipe:
        out: Any = subprocess.PIPE
    elif log is not None:
        out = open(log, "w")  # noqa: SIM115 - closed with the process
    else:
        out = subprocess.DEVNULL
    err: Any = subprocess.STDOUT if log is not None or stdout_pipe else subprocess.DEVNULL
    if stdout_pipe and log is not None:
        err = open(log, "w")  # noqa: SIM115 - closed with the process
    return subprocess.Popen(list(cmd), stdout=out, stderr=err, text=True, env=env, cwd=ROOT)


def read_json_line(proc: subprocess.Popen[str], timeout: float = 20.0) -> dict[str, Any]:
    """The first line starting with `{` on the child's stdout (its ready line); the rest of
    its output is then read and dropped by a thread, so the child never blocks on a full pipe."""
    assert proc.stdout is not None
    found: dict[str, Any] = {}
    ready = threading.Event()

    def reader() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            if not ready.is_set() and line.startswith("{"):
                with contextlib.suppress(ValueError):
                    found.update(json.loads(line))
                    ready.set()

    threading.Thread(target=reader, daemon=True).start()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if ready.wait(0.01):
            return found
        if proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode} before it was ready")
    proc.kill()
    raise RuntimeError(f"{proc.args!r} was not ready within {timeout} s")


def wait_line(proc: subprocess.Popen[str], needle: str, timeout: float) -> None:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if needle in line:
            return
        if not line and proc.poll() is not None:
            raise RuntimeError(f"{proc.args!r} exited with {proc.returncode}")
    raise RuntimeError(f"{proc.args!r}: no {needle!r} within {timeout} s")


def stop(proc: subprocess.Popen[str], timeout: float = 10.0) -> int | None:
    """SIGTERM, then SIGKILL after `timeout` seconds; only this very process."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    return proc.returncode


def wait_all(procs: Sequence[subprocess.Popen[str]], timeout: float) -> bool:
    """Whether all exited within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    for proc in procs:
        left = deadline - time.monotonic()
        try:
            proc.wait(timeout=max(left, 0.01))
        except subprocess.TimeoutExpired:
            return False
    return True


@contextlib.contextmanager
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    """Children started inside the block are stopped (by their own pid) when it ends."""
    started: list[subprocess.Popen[str]] = []
    try:
        yield started
    finally:
        for proc in reversed(started):
            stop(proc, timeout=5.0)


def http(url: str, *, post: bool = False) -> Any:
    """A JSON answer from one of the benchmark's own servers on the private loopback."""
    import urllib.request

    from p2pdice.net.tls import client_context

    # A bench host answers over TLS as every host does (nothing pinned: our own server).
    request = urllib.request.Request(url, method="POST" if post else "GET")
    with urllib.request.urlopen(request, timeout=10, context=client_context()) as resp:
        return json.loads(resp.read())


def load_json(path: Path) -> Any:
    return json.loads(path.read_text())


# ---- printing --------------------------------------------------------------------------------


def fmt(value: float | None, unit: str = "") -> str:
    if value is None or value != value:
        return "-"
    if abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.0f}"
    elif abs(value) >= 10:
        text = f"{value:.1f}"
    else:
        text = f"{value:.2f}" if abs(value) >= 1 else f"{value:.3f}"
    return f"{text} {unit}".rstrip()


def target_text(row: dict[str, Any]) -> str:
    if not row["targets"]:
        return ""
    parts = []
    for t in row["targets"]:
        if t["met"]:
            parts.append(f"{t['target']}: met")
        else:
            value = t["value"]
            if value is None or value != value:
                parts.append(f"{t['target']}: MISSED (no value)")
            else:
                over = value / t["limit"] if t["limit"] else float("inf")
                if row["higher_is_better"]:
                    parts.append(f"{t['target']}: MISSED ({value:.3g}, {over:.2f}x of it)")
                else:
                    parts.append(f"{t['target']}: MISSED ({value:.3g}, {over:.2f}x)")
    return "; ".join(parts)


def print_table(rows: Sequence[dict[str, Any]], out: Any = sys.stdout) -> None:
    header = f"{'figure':<46} {'median':>11} {'p99':>11} {'base med':>11} {'base p99':>11} {'ratio':>6} {'load':>5}  targets"
    print(header, file=out)
    print("-" * len(header), file=out)
    for row in rows:
        base = row.get("baseline") or {}
        ratio = row.get("ratio")
        print(
            f"{row['metric'][:46]:<46} {fmt(row.get('median'), row['unit']):>11} "
            f"{fmt(row.get('p99'), row['unit']):>11} {fmt(base.get('median'), row['unit']):>11} "
            f"{fmt(base.get('p99'), row['unit']):>11} {fmt(ratio):>6} "
            f"{row['load_average'][0]:>5.2f}  {target_text(row)}",
            file=out,
        )


def standalone(name: str, run: Any, argv: Sequence[str] | None, *, needs_network: bool) -> int:
    """`python -m benchmarks.<name> [--quick] [--json]`: one benchmark on its own."""
    import argparse

    parser = argparse.ArgumentParser(prog=f"python -m benchmarks.{name}")
    parser.add_argument("--quick", action="store_true", help="a short run")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--profile", metavar="DIR", help="also profile (where supported)")
    args = parser.parse_args(argv)
    if needs_network:
        isolate()
    kwargs: dict[str, Any] = {"quick": args.quick}
    if args.profile:
        kwargs["profile"] = Path(args.profile)
    result = run(**kwargs)
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        print_table(result["figures"])
        for line in result.get("details", {}).get("text", []):
            print(line)
    return 0
