"""A flood of fake tables from a fourth machine: hundreds of advertisements (most called like
the real table), an answer to `GET /tables` of 32 MiB, and copies naming another machine's
address. An open lobby stays bounded in memory and work, lists the flood as one row for its
sender, finds the real table by search, and sends nothing to an address whose machine did not
announce it (docs/reliability.md, "Lobby floods")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

HOST, FLOODER = "10.231.0.1", "10.231.0.2"
BIG = "10.231.0.12"  #: the flooder's second address, whose `/tables` answer is 32 MiB
TRAP_PORT = 9999  #: where the flooder's copies point, on the real host's machine
OWN_FAKES, COPIES = 250, 50

#: Counts connections to TRAP_PORT into a file: any is a request the lobby should not send.
TRAP = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(64)
n = 0
while True:
    conn, _ = s.accept(); conn.close(); n += 1
    open(sys.argv[3], "w").write(str(n))
"""


def in_ns(ns: str, *cmd: str) -> list[str]:
    return ["ip", "netns", "exec", ns, sys.executable, *cmd]


def wait_for_file(path: Path, proc: subprocess.Popen[bytes], timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text():
            return path.read_text()
        assert proc.poll() is None, f"exited with {proc.returncode}"
        time.sleep(0.1)
    raise AssertionError(f"{path.name} not written in {timeout} s")


def test_a_flooded_lobby_stays_bounded_finds_the_real_table_and_contacts_no_bystander(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    count, ports = tmp_path / "trap.count", tmp_path / "flood.port"
    with netns.lan() as (host_ns, flood_ns, lobby_ns):
        procs: list[subprocess.Popen] = []
        try:
            procs.append(
                subprocess.Popen(in_ns(host_ns, "-c", TRAP, HOST, str(TRAP_PORT), str(count)))
            )
            host, ready = start_host(
                "--headless", "--seats", "2", "--name", "Kitchen", "--home", str(tmp_path / "h"),
                netns=host_ns,
            )  # fmt: skip
            procs.append(host)
            subprocess.run(["ip", "-n", flood_ns, "addr", "add", f"{BIG}/24", "dev", "eth0"])
            flood = [BIG, HOST, str(TRAP_PORT), str(OWN_FAKES), str(COPIES), str(ports)]
            flooder = subprocess.Popen(
                in_ns(flood_ns, "-m", "tests.net.lobby_flooder", FLOODER, *flood), env=env
            )
            procs.append(flooder)
            wait_for_file(ports, flooder, timeout=30)
            watched = subprocess.run(
                in_ns(lobby_ns, "-m", "tests.net.lobby_watcher", "12", "Kitchen"),
                capture_output=True, text=True, timeout=120, env=env,
            )  # fmt: skip
            assert watched.returncode == 0, watched.stderr
            seen = json.loads(watched.stdout.splitlines()[-1])
        finally:
            for proc in procs:
                stop(proc)
    real = f"{HOST}:{ready['port']}"
    # The real table is found by name and told apart by its short id.
    assert [r["short_id"] for r in seen["found"] if r["where"] == real] == [
        ready["table_id"][:8]
    ], seen["found"]
    # The flood is one row that says how many tables its sender announced.
    from_flooder = [r for r in seen["rows"] if (r["where"] or "").startswith(FLOODER)]
    assert len(from_flooder) == 1 and from_flooder[0]["group"] == FLOODER, from_flooder
    assert from_flooder[0]["count"] >= 32
    assert seen["entries"] <= 200
    # The oversized answers were asked for (their fakes were probed) and abandoned early.
    answers = ports.with_suffix(".sent")
    sent = [int(n) for n in answers.read_text().split()] if answers.exists() else []
    # Asked, and hung up long before 32 MiB (what was sent filled the sockets' buffers).
    assert sent and max(sent) < 16 << 20, (sent, seen["heard"])
    # The copies naming the host's machine never made the lobby knock there.
    assert not count.exists(), f"{count.read_text()} connections to {HOST}:{TRAP_PORT}"
    # The 32 MiB answers were refused unread, and the flood cost little.
    assert seen["max_rss_mib"] < 120, seen["max_rss_mib"]
    assert seen["cpu_share"] < 0.5, seen["cpu_share"]
    figures = {k: seen[k] for k in ("entries", "cpu_share", "max_rss_mib", "drawn")}
    print(json.dumps({**figures, "answer_bytes_read": sent}))
