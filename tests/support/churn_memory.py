"""What lobby churn costs a real host in memory and log: a measurement, not a test.

A `p2pdice host` (a six-seat lobby, one CPU) in one namespace of a private LAN, and the churn
attacker (tests/support/churn_attacker.py) joining and leaving from ADDRESSES addresses of
another for SECONDS seconds. It prints one JSON line: the host's resident memory (VmRSS, MiB)
before, at its peak (sampled every 0.5 s) and 2 s after, the log's size, and what the
attacker got. Run as root from the repository root (it moves itself into a private network
namespace first, so nothing leaves the machine):

    python -m tests.support.churn_memory ADDRESSES SECONDS
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support import netns

SAMPLE = 0.5  #: seconds between two readings of the host's memory


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


def measure(addresses: int, seconds: float, home: Path) -> dict[str, object]:
    from tests.support.procs import host_log, start_host, stop

    attackers = [f"10.231.0.{100 + i}" for i in range(1, addresses + 1)]
    with netns.lan() as names:
        for source in attackers:
            subprocess.run(
                ["ip", "-n", names[1], "addr", "add", f"{source}/24", "dev", "eth0"], check=True
            )
        host, ready = start_host(
            "--headless", "--seats", "6", "--cpu", "1", "--no-advertise", "--bind", "10.231.0.1",
            "--home", str(home), netns=names[0],
        )  # fmt: skip
        try:
            time.sleep(2.0)  # the CPU seated, the host settled
            before = peak = rss_mib(host.pid)
            url = f"wss://10.231.0.1:{ready['port']}{ready['path']}"
            sources = [a for s in attackers for a in ("--source", s)]
            attacker = subprocess.Popen(
                ["ip", "netns", "exec", names[1], sys.executable, "-m",
                 "tests.support.churn_attacker", url, *sources, "--seconds", str(seconds)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            deadline = time.monotonic() + seconds + 60
            while attacker.poll() is None and time.monotonic() < deadline:
                peak = max(peak, rss_mib(host.pid))
                time.sleep(SAMPLE)
            out, _ = attacker.communicate(timeout=10)
            time.sleep(2.0)
            after = rss_mib(host.pid)
        finally:
            stop(host)
        log = host_log(home).read_bytes()
    return {
        "addresses": addresses,
        "seconds": seconds,
        "rss_before_mib": round(before, 1),
        "rss_peak_mib": round(peak, 1),
        "rss_after_mib": round(after, 1),
        "log_bytes": len(log),
        "phantom_joins": log.count(b'"name":"ghost '),
        "attacker": json.loads(out.strip().splitlines()[-1]),
    }


def main() -> None:
    netns.isolate()
    if not netns.isolated():
        raise SystemExit(f"needs a private network namespace: {netns.why_not()}")
    with tempfile.TemporaryDirectory() as home:
        print(json.dumps(measure(int(sys.argv[1]), float(sys.argv[2]), Path(home) / "h")))


if __name__ == "__main__":
    main()
