"""A host that shows two players two histories (SPEC.md 1.2.4): each player is shown the
other's next message, made on a history it was never shown, and raises FORK naming the
proof; `p2pdice verify A B` of their two transcripts prints the two host-signed entries of
one seq that prove it and exits with the fork status.

The host is the real `p2pdice host` process; the fork is what a relay holding its key shows
one player (tests/support/forking_host.py); the players are two real `p2pdice join --bot`
processes. The alarms used to read UNKNOWN_HEAD with no proof, and `verify A B` compared nothing.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.cli.verify_exits import EXIT_FORK
from p2pdice.core.signing import SigningKey
from tests.support.forking_host import ForkingHost
from tests.support.procs import bot_join, kill_all, p2pdice, spawn, start_host, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_both_players_of_a_forked_table_raise_fork_and_verify_prints_the_proof(
    tmp_path: Path,
) -> None:
    secret = bytes(range(32))
    key = SigningKey(secret)
    home = tmp_path / "host"
    home.mkdir()
    (home / "identity.key").write_text(secret.hex() + "\n")
    host, ready = start_host(
        "--headless", "--seats", "2", "--no-advertise", "--bind", "127.0.0.1",
        "--home", str(home),
    )  # fmt: skip
    relay = ForkingHost(f"127.0.0.1:{ready['port']}", key, victim="Bob", other="Alice")
    port = free_port()
    await relay.start(port)
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
            await asyncio.sleep(0.1)
        running = [name for name, b in zip(homes, bots, strict=True) if b.poll() is None]
        assert not running, (running, {name: log.read_text() for name, log in logs.items()})
    finally:
        kill_all(*bots, host)
        await relay.close()
    said = {name: log.read_text() for name, log in logs.items()}
    assert relay.forked_at is not None, said
    assert relay.injected, said
    for name, out in said.items():
        assert "ALARM: FORK" in out, (name, out)
        assert "proof: {" in out, (name, out)  # the signed items, printed whole
    assert [b.returncode for b in bots] == [1, 1], said
    files = [transcript_files(homes[name])[0] for name in homes]
    done = subprocess.run(
        p2pdice("verify", *map(str, files)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == EXIT_FORK, done.stdout + done.stderr
    assert f"FORK at entry {relay.forked_at}" in done.stdout
    lines = [f.read_bytes().split(b"\n")[relay.forked_at].decode() for f in files]
    assert lines[0] != lines[1] and all(line in done.stdout for line in lines)
