"""A password table against a LAN attacker who pays no scrypt (SPEC.md 3.4): garbage password
attempts from twelve addresses are refused unread and charged to their own addresses, so an
honest joiner with the right password is still tested at once and seated; and a joiner the
host tells to wait (its address is throttled) waits that long, says so, and gets in.

Real processes: `p2pdice host` in one namespace, the attacker (tests/support/
password_attacker.py) in another with twelve addresses, the honest `p2pdice join` in a third.
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

PASSWORD = "kitchen table 7"
ATTACKERS = [f"10.231.0.{100 + i}" for i in range(1, 13)]


def password_table(tmp_path: Path, ns: str) -> tuple[subprocess.Popen[str], str, str]:
    """A headless 3-seat table (one CPU) with a password, on the first namespace's address:
    the host, its address to join by and the table's WebSocket URL."""
    secret = tmp_path / "pw.txt"
    secret.write_text(PASSWORD + "\n")
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1", "--no-advertise", "--bind", "10.231.0.1",
        "--password-file", str(secret), "--home", str(tmp_path / "h"), netns=ns,
    )  # fmt: skip
    return host, f"10.231.0.1:{ready['port']}", f"wss://10.231.0.1:{ready['port']}{ready['path']}"


def attacker(url: str, sources: list[str], seconds: float, ns: str) -> subprocess.Popen[str]:
    """The attacker process, from `sources` (addresses of namespace `ns`) for `seconds`."""
    args = [a for s in sources for a in ("--source", s)]
    cmd = ["ip", "netns", "exec", ns, sys.executable, "-m", "tests.support.password_attacker"]
    return subprocess.Popen(
        [*cmd, url, *args, "--seconds", str(seconds)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def honest_join(address: str, tmp_path: Path, ns: str, who: str) -> subprocess.Popen[str]:
    secret = tmp_path / "joiner-pw.txt"
    secret.write_text(PASSWORD + "\n")
    return spawn(
        "join", address, "--bot", "medium", "--name", who, "--password-file", str(secret),
        "--home", str(tmp_path / who), "--give-up", "60", netns=ns, log=tmp_path / f"{who}.out",
    )  # fmt: skip


def seated(tmp_path: Path, who: str) -> bool:
    lines = host_log(tmp_path / "h").read_text().splitlines()
    return any(f'"name":"{who}"' in line for line in lines)


def wait_seated(tmp_path: Path, who: str, joiner: subprocess.Popen[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not seated(tmp_path, who):
        out = (tmp_path / f"{who}.out").read_text()
        assert joiner.poll() is None, f"the joiner exited {joiner.returncode}:\n{out}"
        assert time.monotonic() < deadline, f"not seated in {seconds} s:\n{out}"
        time.sleep(0.2)


def test_twelve_addresses_of_garbage_attempts_leave_the_honest_joiner_seated(
    tmp_path: Path,
) -> None:
    with netns.lan() as names:
        for source in ATTACKERS:
            subprocess.run(
                ["ip", "-n", names[1], "addr", "add", f"{source}/24", "dev", "eth0"], check=True
            )
        host, address, url = password_table(tmp_path, names[0])
        spam = joiner = None
        try:
            spam = attacker(url, ATTACKERS, 12.0, names[1])
            time.sleep(4.0)  # every address has failed more than its share by now
            joiner = honest_join(address, tmp_path, names[2], "Hana")
            began = time.monotonic()
            wait_seated(tmp_path, "Hana", joiner, 15.0)
            print(
                f"\nthe honest joiner was seated {time.monotonic() - began:.1f} s after it started"
            )
            out, _ = spam.communicate(timeout=30)
        finally:
            kill_all(spam, joiner)
            stop(host)
        refused = json.loads(out.strip().splitlines()[-1])
        print(f"\nthe attacker's refusals: {refused}")
        # The attack was real and fast: many attempts, each refused unread, none tested.
        assert sum(refused.values()) >= 50, refused
        assert "BAD_PASSWORD" not in refused, refused


def test_a_joiner_told_to_wait_waits_and_retries_until_seated(tmp_path: Path) -> None:
    """Garbage from the joiner's own address (a housemate's prank, or a shared NAT) has its
    address waiting: the honest joiner is told how long, says so, waits, and gets in."""
    with netns.lan() as names:
        host, address, url = password_table(tmp_path, names[0])
        spam = joiner = None
        try:
            # Six strikes for 10.231.0.3 (3 free, then after 1, 2 and 4 s): it waits 8 s more.
            spam = attacker(url, ["10.231.0.3"], 7.5, names[2])
            out, _ = spam.communicate(timeout=30)
            joiner = honest_join(address, tmp_path, names[2], "Hana")
            wait_seated(
                tmp_path, "Hana", joiner, 45.0
            )  # 8 s of throttle, then scrypt on a busy machine
        finally:
            kill_all(spam, joiner)
            stop(host)
        said = (tmp_path / "Hana.out").read_text()
        assert "the table is busy checking passwords from your address; retrying in" in said, said
        refused = json.loads(out.strip().splitlines()[-1])
        assert refused.get("PASSWORD_THROTTLED", 0) >= 1, refused
