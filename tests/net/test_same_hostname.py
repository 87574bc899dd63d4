"""Two machines with one host name (a default `raspberrypi`) on a namespace LAN: each table is
listed with its own host's address, and joining each reaches that host."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import host_log, p2pdice, stop, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

HOSTNAME = "raspberrypi"


def host_named(hostname: str, ns: str, log: Path, *args: str) -> subprocess.Popen[str]:
    """`p2pdice host --json ...` in namespace `ns`, in a private UTS namespace whose host name is
    `hostname` (the machine's own name is left alone); its output goes to `log`."""
    cmd = [
        "ip", "netns", "exec", ns, "unshare", "--uts", "sh", "-c", 'hostname "$0" && exec "$@"',
        hostname, sys.executable, "-m", "p2pdice", "host", "--json", "--cpu-think", "0", *args,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with open(log, "w") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True, env=env)


def ready_line(proc: subprocess.Popen[str], log: Path, timeout: float = 15.0) -> dict:
    """The host's JSON ready line, read from its log within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text().splitlines():
            if line.startswith("{"):
                return json.loads(line)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"the host did not report ready (exit {proc.poll()}): {log.read_text()}")


def browse(ns: str, want: int, timeout: float = 20.0) -> list[dict]:
    """`browse --json` in `ns`, repeated until it lists `want` tables (bounded by `timeout`)."""
    deadline = time.monotonic() + timeout
    tables: list[dict] = []
    while time.monotonic() < deadline:
        listed = subprocess.run(
            p2pdice("browse", "--json", "--timeout", "3", netns=ns),
            capture_output=True,
            text=True,
            timeout=30,
        )
        tables = json.loads(listed.stdout)
        if len(tables) >= want:
            break
    return tables


def bot_joins(table_id: str, home: Path, ns: str, seed: int) -> subprocess.Popen[str]:
    """`p2pdice join TABLE_ID` (found through mDNS) played by the easy bot, in `ns`."""
    args = ("join", table_id, "--bot", "easy", "--seed", str(seed), "--timeout", "8")
    return subprocess.Popen(
        p2pdice(*args, "--home", str(home), netns=ns),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


@pytest.mark.parametrize("table_names", [("Kitchen", "Garage"), ("Kitchen", "Kitchen")])
def test_two_hosts_of_one_hostname_are_both_listed_at_their_own_address(
    tmp_path: Path, table_names: tuple[str, str]
) -> None:
    table_args = ("--headless", "--seats", "2", "--cpu", "1")
    logs = [tmp_path / "h0.out", tmp_path / "h1.out"]
    homes = [tmp_path / "h0", tmp_path / "h1"]
    with netns.lan() as names:
        # Both start at once, as two Raspberry Pis switched on together would.
        hosts = [
            host_named(HOSTNAME, ns, log, *table_args, "--name", table, "--home", str(home))
            for ns, log, table, home in zip(names, logs, table_names, homes, strict=False)
        ]
        joins: list[subprocess.Popen[str]] = []
        try:
            ready = [ready_line(proc, log) for proc, log in zip(hosts, logs, strict=True)]
            assert [r["join"] for r in ready] == [
                [f"10.231.0.{i + 1}:{r['port']}"] for i, r in enumerate(ready)
            ]
            tables = browse(names[2], want=2)
            by_id = {t["id"]: t for t in tables}
            assert sorted(by_id) == sorted(r["table_id"] for r in ready), tables
            for i, r in enumerate(ready):
                listed = by_id[r["table_id"]]
                assert listed["name"] == table_names[i]
                assert listed["addresses"] == [f"10.231.0.{i + 1}"], tables
                assert listed["port"] == r["port"]
            # Joining each table by its id plays a whole game at that table's own host.
            joins = [
                bot_joins(r["table_id"], tmp_path / f"p{i}", names[2], seed=i)
                for i, r in enumerate(ready)
            ]
            for proc in joins:
                out, _ = proc.communicate(timeout=120)
                assert proc.returncode == 0, out
        finally:
            for proc in [*joins, *hosts]:
                stop(proc)
        for i in range(2):
            mine = transcript_files(tmp_path / f"p{i}")
            assert len(mine) == 1
            assert mine[0].read_bytes() == host_log(homes[i]).read_bytes()
