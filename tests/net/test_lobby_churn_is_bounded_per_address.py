"""Joining and leaving a lobby over and over (leaving is disconnecting) from eight addresses:
each address takes at most a few seats a minute, however often it reconnects, so the churn
writes little into the permanent log and cannot keep seats filled with phantoms (SPEC.md
10.1). Real processes: `p2pdice host` (a six-seat lobby, one CPU) in one namespace, the
attacker (tests/support/churn_attacker.py) in another with eight addresses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import host_log, kill_all, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

ATTACKERS = [f"10.231.0.{100 + i}" for i in range(1, 9)]
SECONDS = 6.0


def test_eight_addresses_churning_the_lobby_take_a_few_seats_each(tmp_path: Path) -> None:
    with netns.lan() as names:
        for source in ATTACKERS:
            subprocess.run(
                ["ip", "-n", names[1], "addr", "add", f"{source}/24", "dev", "eth0"], check=True
            )
        host, ready = start_host(
            "--headless", "--seats", "6", "--cpu", "1", "--no-advertise", "--bind", "10.231.0.1",
            "--home", str(tmp_path / "h"), netns=names[0],
        )  # fmt: skip
        url = f"wss://10.231.0.1:{ready['port']}{ready['path']}"
        sources = [a for s in ATTACKERS for a in ("--source", s)]
        cmd = [
            "ip",
            "netns",
            "exec",
            names[1],
            sys.executable,
            "-m",
            "tests.support.churn_attacker",
        ]
        attacker = subprocess.Popen(
            [*cmd, url, *sources, "--seconds", str(SECONDS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            out, _ = attacker.communicate(timeout=SECONDS + 30)
        finally:
            kill_all(attacker)
            stop(host)
        log = host_log(tmp_path / "h").read_bytes()
    seen = json.loads(out.strip().splitlines()[-1])
    ghosts = log.count(b'"name":"ghost ')
    print(f"\nchurn: {seen}; {ghosts} phantom joins, log {len(log)} bytes")
    assert sum(seen.values()) >= 100, seen  # the attacker really churned, fast
    # Three seats at once an address, then one every 20 s (before: hundreds of joins).
    assert ghosts <= len(ATTACKERS) * (3 + SECONDS / 20) + 1, seen
    assert len(log) < 64 * 1024, len(log)
