"""Lobby churn from many addresses writes a fixed bound into the host's log (SPEC.md 3.2),
not one that grows with the attacker's addresses, and no phantom it seats starts the game: a
friend seated before keeps her seat, and newcomers after the table's budget is spent still
join and the game starts. Real processes: `p2pdice host` (five seats, one CPU) in one
namespace, the attacker (tests/support/churn_attacker.py) with twelve extra addresses in
another (one of them, from its own address), and three more from a third. (That 1,000 addresses write no more is
tests/core/test_lobby_churn_writes_a_fixed_bound_into_the_log.py.)
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pdice.core.lobby_churn import LOBBY_LEAVE_BUDGET, lobby_leave_cap
from tests.support import netns
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

SEATS = 5
ATTACKERS = [f"10.231.0.{100 + i}" for i in range(1, 13)]
SECONDS = 15.0
#: The longest join entry (24 four-byte characters of name) and a leave entry, in bytes with
#: the line feed; tests/core/test_lobby_churn_writes_a_fixed_bound_into_the_log.py measures
#: them.
JOIN_ENTRY, LEAVE_ENTRY, GENESIS_ENTRY = 884, 255, 700


def lobby_bound(seats: int) -> int:
    """The most bytes a lobby of `seats` seats can write, however it is churned (SPEC.md 3.2)."""
    joins = lobby_leave_cap(seats) + seats - 1  # admitted while leaves < cap and a seat is free
    return GENESIS_ENTRY + joins * (JOIN_ENTRY + LEAVE_ENTRY)


def joined(home: Path, name: str) -> bool:
    return f'"name":"{name}"'.encode() in host_log(home).read_bytes()


def test_twelve_addresses_churning_a_lobby_stay_under_its_bound_and_friends_still_play(
    tmp_path: Path,
) -> None:
    home = tmp_path / "h"
    with netns.lan() as names:
        batch = "".join(f"addr add {a}/24 dev eth0\n" for a in ATTACKERS)
        subprocess.run(["ip", "-n", names[1], "-batch", "-"], input=batch, text=True, check=True)
        host, ready = start_host(
            "--headless", "--seats", str(SEATS), "--cpu", "1", "--no-advertise",
            "--bind", "10.231.0.1", "--home", str(home), netns=names[0],
        )  # fmt: skip
        address = f"10.231.0.1:{ready['port']}"
        url = f"wss://{address}{ready['path']}"
        # Ann from the attacker's machine's own address (the attacker churns from its others),
        # so the three late friends have their address's three lobby seats (SPEC.md 10.1).
        ann = spawn(*bot_join(address, name="Ann", seed=1, home=tmp_path / "ann"), netns=names[1])
        attacker = None
        late: list[subprocess.Popen[str]] = []
        try:
            deadline = time.monotonic() + 20
            while not joined(home, "Ann") and time.monotonic() < deadline:
                time.sleep(0.1)
            assert joined(home, "Ann")
            sources = [a for s in ATTACKERS for a in ("--source", s)]
            attacker = subprocess.Popen(
                ["ip", "netns", "exec", names[1], sys.executable, "-m",
                 "tests.support.churn_attacker", url, *sources, "--seconds", str(SECONDS)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            out, _ = attacker.communicate(timeout=SECONDS + 30)
            churned = host_log(home).read_bytes()
            # A newcomer after the budget and the newcomers' seats are spent is told why.
            # A newcomer (new key, new address) still joins once the budget is spent, and the
            # game starts with the two friends.
            late = [
                spawn(
                    *bot_join(address, name=name, seed=n, home=tmp_path / name),
                    netns=names[2],
                    log=tmp_path / f"{name}.txt",
                )
                for n, name in enumerate(("Bob", "Cid", "Dee"), 2)
            ]
            deadline = time.monotonic() + 30
            while b'"type":"start"' not in host_log(home).read_bytes():
                said = [(tmp_path / f"{n}.txt").read_text()[-300:] for n in ("Bob", "Cid", "Dee")]
                assert time.monotonic() < deadline, said
                time.sleep(0.2)
            started = host_log(home).read_bytes()
            ann_still_running = ann.poll() is None
        finally:
            kill_all(attacker, ann, *late)
            stop(host)
    assert out.strip().startswith("{"), out[-2000:]
    seen = json.loads(out.strip().splitlines()[-1])
    entries = [json.loads(line) for line in churned.splitlines()]
    kinds = [e.get("event", {}).get("type") for e in entries]
    leaves = kinds.count("leave")
    bound = lobby_bound(SEATS)
    print(f"\nchurn: {seen}; {leaves} leaves, log {len(churned)} bytes (bound {bound})")
    assert sum(seen.values()) >= 100, seen  # the attacker really churned, fast
    assert leaves >= LOBBY_LEAVE_BUDGET, seen  # it spent the table's budget
    assert seen.get("LOBBY_CHURN", 0) > 0, seen  # and its addresses were then told why
    assert leaves <= lobby_leave_cap(SEATS) + SEATS - 1, seen
    assert len(churned) <= bound, len(churned)
    # No phantom filled the table: the lobby stayed open, Ann kept her seat, and the game
    # started with the two friends and the CPU.
    assert "start" not in kinds, seen
    assert ann_still_running
    start = next(json.loads(line) for line in started.splitlines() if b'"type":"start"' in line)
    roster = {seat["name"] for seat in start["event"]["roster"]}
    assert {"Ann", "Bob", "Cid", "Dee"} <= roster, roster
