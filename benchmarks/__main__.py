"""`python -m benchmarks`: every benchmark, a table of figures, and a JSON file of them.

    python -m benchmarks [--quick] [--out FILE] [--only NAME,...] [--profile DIR]

Each figure is a median and a p99 with a baseline measured in the same run; targets are
marked met or missed. `--quick` is a short run (about two minutes), the default a full one
(about ten). Every benchmark that opens a socket runs inside a private network namespace
that this command creates first (root is needed; without it, only the benchmarks that open
no socket can run: --only verify,startup,stats). Each benchmark also runs alone:
`python -m benchmarks.<module> [--quick] [--json]`. See docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import common

#: name -> (module, opens sockets)
BENCHMARKS: dict[str, tuple[str, bool]] = {
    "verify": ("benchmarks.verify_throughput", False),
    "startup": ("benchmarks.startup", False),
    "stats": ("benchmarks.stats_cache", False),
    "bid_latency": ("benchmarks.bid_latency", True),
    "spectators": ("benchmarks.spectators", True),
    "host_scale": ("benchmarks.host_scale", True),
    "discovery": ("benchmarks.discovery", True),
    "attacks": ("benchmarks.attacks", True),
    "ui_snapshots": ("benchmarks.ui_snapshots", True),
}


def socketless() -> list[str]:
    """The benchmarks that run without root, since they open no socket."""
    return [name for name, (_, opens_sockets) in BENCHMARKS.items() if not opens_sockets]


class LoadSampler(threading.Thread):
    """The load average every few seconds while the benchmarks run (the machine is shared)."""

    def __init__(self, every: float = 5.0) -> None:
        super().__init__(daemon=True)
        self.every = every
        self.samples: list[tuple[float, tuple[float, float, float]]] = []
        self.started_at = time.monotonic()
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            self.samples.append((round(time.monotonic() - self.started_at, 1), os.getloadavg()))
            self._done.wait(self.every)

    def stop(self) -> None:
        self._done.set()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="a short run (about two minutes)")
    parser.add_argument(
        "--out",
        default=str(Path(__file__).with_name("results.json")),
        help="JSON file to write (default: benchmarks/results.json)",
    )
    parser.add_argument(
        "--only", metavar="NAMES", help=f"comma-separated subset of: {', '.join(BENCHMARKS)}"
    )
    parser.add_argument(
        "--profile",
        metavar="DIR",
        help="bid_latency: cProfile the host and one player into DIR; host_scale: the host",
    )
    args = parser.parse_args(argv)
    names = list(BENCHMARKS) if not args.only else [n.strip() for n in args.only.split(",")]
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(unknown)}")
    if any(BENCHMARKS[n][1] for n in names):
        try:
            common.isolate()
        except common.NotIsolated as err:
            print(f"python -m benchmarks: {err}: --only {','.join(socketless())}", file=sys.stderr)
            return 2
    sampler = LoadSampler()
    sampler.start()
    started = time.monotonic()
    results: dict[str, Any] = {}
    figures: list[dict[str, Any]] = []
    for name in names:
        module = importlib.import_module(BENCHMARKS[name][0])
        kwargs: dict[str, Any] = {"quick": args.quick}
        if name in ("bid_latency", "host_scale") and args.profile:
            kwargs["profile"] = Path(args.profile)
        print(f"[{time.monotonic() - started:6.1f} s] {name} ...", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        try:
            result = module.run(**kwargs)
        except Exception as err:  # one broken benchmark must not lose the others' figures
            print(f"  {name} failed: {type(err).__name__}: {err}", file=sys.stderr)
            results[name] = {"error": f"{type(err).__name__}: {err}"}
            continue
        result["seconds"] = round(time.monotonic() - t0, 1)
        results[name] = result
        figures += result["figures"]
        for line in result.get("details", {}).get("text", []):
            print("  " + line, file=sys.stderr)
    sampler.stop()
    document = {
        "quick": args.quick,
        "machine": common.machine(),
        "seconds": round(time.monotonic() - started, 1),
        "load_samples": sampler.samples,
        "figures": figures,
        "benchmarks": results,
    }
    Path(args.out).write_text(json.dumps(document, indent=1, default=str) + "\n")
    print()
    m = document["machine"]
    print(
        f"{m['cpus']} CPUs ({m['cpu_model']}), Python {m['python']}; load average "
        f"{' '.join(f'{x:.2f}' for x in m['load_average'])}; {document['seconds']:.0f} s"
    )
    common.print_table(figures)
    print(f"\nwritten: {args.out}")
    return 1 if any("error" in r for r in results.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
