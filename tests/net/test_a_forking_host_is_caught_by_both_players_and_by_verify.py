"""A host that shows two players two histories (SPEC.md 1.2.4): each player is shown the
other's next message, made on a history it was never shown, and raises FORK naming the
proof; `p2pdice verify A B` of their two transcripts prints the two host-signed entries of
one seq that prove it and exits with the fork status.

The host is the real `p2pdice host` process; the fork is what a relay holding its key shows
the players (tests/support/forking_host.py, an attacker process of its own); the players are
two real `p2pdice join --bot` processes. The alarms used to read UNKNOWN_HEAD with no proof, and `verify A B` compared nothing.

Two forks: `swap`, after which the game is the same in both histories (two openings in the
other order); and `turn`, after which it is another seat's turn in each, so the message
carried over is, at its receiver, also a move from a seat whose turn it is not. That one used
to read NOT_YOUR_TURN with no proof: the head is checked first (SPEC.md 7, "Order of
checks"), so it is FORK, and the player shown the other history meets the host's own entry
at a seq it holds (EQUIVOCATION, both entries host-signed).
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from p2pdice.cli.verify_exits import EXIT_FORK
from tests.support.procs import bot_join, kill_all, p2pdice, spawn, start_host, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("mode", ["swap", "turn"])
def test_both_players_of_a_forked_table_raise_fork_and_verify_prints_the_proof(
    tmp_path: Path, mode: str
) -> None:
    secret = bytes(range(32))
    home = tmp_path / "host"
    home.mkdir()
    (home / "identity.key").write_text(secret.hex() + "\n")
    host, ready = start_host(
        "--headless", "--seats", "2", "--no-advertise", "--bind", "127.0.0.1",
        "--home", str(home),
    )  # fmt: skip
    # The forking host: a process of its own holding the host's key, where players connect.
    port, did = free_port(), tmp_path / "relay.json"
    relay_proc = subprocess.Popen(
        [sys.executable, "-m", "tests.support.forking_host", f"127.0.0.1:{ready['port']}",
         str(home / "identity.key"), str(port), str(did), "--victim", "Bob", "--other",
         "Alice", "--mode", mode],
        stdout=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    assert relay_proc.stdout is not None and relay_proc.stdout.readline().startswith("{")
    homes = {name: tmp_path / name for name in ("Alice", "Bob")}
    logs = {name: tmp_path / f"{name}.out" for name in homes}
    bots = [
        spawn(*bot_join(f"127.0.0.1:{port}", name=name, seed=n, home=homes[name], give_up=20),
              log=logs[name])
        for n, name in enumerate(homes)
    ]  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(b.poll() is None for b in bots):
            time.sleep(0.1)
        running = [name for name, b in zip(homes, bots, strict=True) if b.poll() is None]
        assert not running, (running, {name: log.read_text() for name, log in logs.items()})
    finally:
        kill_all(*bots, host)
        relay_proc.terminate()
        relay_proc.wait(timeout=15)
    relay = SimpleNamespace(**json.loads(did.read_text()))
    relay.injected = [line.encode() for line in relay.injected]
    relay.refusals = [tuple(r) for r in relay.refusals]
    said = {name: log.read_text() for name, log in logs.items()}
    assert relay.forked_at is not None, said
    assert relay.injected, said
    alarms = {name: "ALARM: FORK" for name in said}
    if mode == "turn":
        assert relay.turn_roles is not None, said
        opener, other = relay.turn_roles
        alarms[other] = "ALARM: EQUIVOCATION"
        assert relay.injected[0].decode() in said[opener]  # the proof: the entry it was shown
        # The real host answers a move made on the other history for its head, first (the
        # other may raise its alarm before it moves: then it sends nothing to refuse).
        assert all(r == "UNKNOWN_HEAD" for n, r in relay.refusals if n == other), relay.refusals
    for name, out in said.items():
        assert alarms[name] in out, (name, out)
        assert "proof: {" in out, (name, out)  # the signed items, printed whole
        assert "NOT_YOUR_TURN" not in out and "WRONG_PHASE" not in out, (name, out)
    assert [b.returncode for b in bots] == [1, 1], said
    files = [transcript_files(homes[name])[0] for name in homes]
    done = subprocess.run(
        p2pdice("verify", *map(str, files)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == EXIT_FORK, done.stdout + done.stderr
    assert f"FORK at entry {relay.forked_at}" in done.stdout
    lines = [f.read_bytes().split(b"\n")[relay.forked_at].decode() for f in files]
    assert lines[0] != lines[1] and all(line in done.stdout for line in lines)
