"""What a source address may cost a table is its address's, not its connection's, and what
strangers (connections without a seat) cost it together is bounded (SPEC.md 10.3): a LAN
attacker that reconnects from twelve addresses gets neither a fresh copy of the log each time
nor a fresh frame budget, while two CPU seats play a game.

Real processes: `p2pdice host` (two host-run CPUs playing, a move every 0.3 s) in one
namespace, the attacker (tests/support/flood_attacker.py) in another with twelve addresses.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import host_log, kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

ATTACKERS = [f"10.231.0.{100 + i}" for i in range(1, 13)]
SECONDS = 6.0


def flood(tmp_path: Path, mode: str) -> tuple[dict, int, float]:
    """A game of two CPUs under `mode`'s flood, watched by an honest spectator from a third
    machine that comes 2 s into it: the attacker's tally, the log's size at the end of the
    flood, and the game's length (from the host's start to its exit). The spectator must
    follow the game to its end and verify it."""
    with netns.lan() as names:
        for source in ATTACKERS:
            subprocess.run(
                ["ip", "-n", names[1], "addr", "add", f"{source}/24", "dev", "eth0"], check=True
            )
        began = time.monotonic()
        host, ready = start_host(
            "--headless", "--seats", "2", "--cpu", "2", "--cpu-think", "0.3", "--no-advertise",
            "--bind", "10.231.0.1", "--home", str(tmp_path / "h"), netns=names[0],
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
            "tests.support.flood_attacker",
        ]
        attacker = subprocess.Popen(
            [*cmd, url, "--mode", mode, *sources, "--seconds", str(SECONDS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        watcher = None
        try:
            time.sleep(2.0)
            watcher = spawn(
                "join", f"10.231.0.1:{ready['port']}", "--spectate", "--home", str(tmp_path / "w"),
                netns=names[2], log=tmp_path / "w.out",
            )  # fmt: skip
            out, _ = attacker.communicate(timeout=SECONDS + 30)
            log_bytes = host_log(tmp_path / "h").stat().st_size
            host.wait(timeout=120)  # the game plays to its end, then the host exits
            game = time.monotonic() - began
            watched = watcher.wait(timeout=60)
        finally:
            kill_all(attacker, watcher)
            stop(host)
        said = (tmp_path / "w.out").read_text()
        assert watched == 0 and "verified transcript" in said, said
    tally = json.loads(out.strip().splitlines()[-1])
    print(f"\n{mode}: {tally}; log {log_bytes} bytes; game {game:.1f} s")
    return tally, log_bytes, game


def test_reconnecting_from_twelve_addresses_gets_no_fresh_copy_of_the_log(tmp_path: Path) -> None:
    tally, log_bytes, _ = flood(tmp_path, "catch-up")
    assert tally["connections"] >= 100, tally  # the attacker really reconnected, fast
    # Strangers together: eight copies of the log and 64 KiB at once (twice that, as a fresh
    # address may take it into debt), then 64 KiB a second (before: a whole copy for every
    # connection, hundreds of copies).
    bound = 2 * (8 * log_bytes + 64 * 1024) + 64 * 1024 * SECONDS
    assert tally["received"] <= bound + 64 * 1024, (tally["received"], bound)
    assert tally["reasons"].get("RATE_LIMITED", 0) > 0, tally


def test_a_deep_json_flood_from_twelve_addresses_is_read_a_bounded_number_of_times(
    tmp_path: Path,
) -> None:
    tally, _, _ = flood(tmp_path, "deep")
    parsed = tally["reasons"].get("JSON_TOO_DEEP", 0)
    # The attacker really tried, fast: hundreds of frames sent, or a thousand connections
    # refused at once because its addresses owe what they sent.
    assert tally["sent"] >= 300 * 64000 or tally["refused"] >= 1000, tally
    # Each address: 50 frame units at once, then 20 a second, a 64,000-byte frame costing 16.6;
    # strangers' large frames together: 1 MiB at once, then 256 KiB a second.
    per_address = (50 + 20 * SECONDS) / (1 + 64000 / 4096)
    shared = (1024 * 1024 + 256 * 1024 * SECONDS) / 64000
    assert parsed <= min(len(ATTACKERS) * per_address, shared) + 5, tally
