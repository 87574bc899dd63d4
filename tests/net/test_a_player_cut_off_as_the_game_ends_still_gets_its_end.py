"""A player whose connection dies as the game ends still gets the end: the headless host
waits for it before it stops, and its copy verifies whole (SPEC.md 10.3, after `game_over`).

Three namespaces on one bridge: the real host (two CPU seats it runs), a plain TCP relay
(tests/support/tcp_relay.py, `--mode end`) and one bot player told to join the relay's
address. When the host writes `game_over` the relay cuts the player's connection before that
entry reaches it, and refuses it for a few seconds more, as a laptop that lost the Wi-Fi at
the last bid would. The host wrote the entry to its socket, which proves nothing; it waits
until the player comes back and asks for the end, then stops on its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns, tcp_relay
from tests.support.procs import bot_join, kill_all, spawn, start_host, stop, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

PORT = 47332
BLACKOUT = 4.0
GRACE = 20


def test_a_player_cut_off_as_the_game_ends_reconnects_and_verifies_the_whole_game(
    tmp_path: Path,
) -> None:
    with netns.lan() as names:
        host, ready = start_host(
            "--headless", "--seats", "3", "--cpu", "2", "--cpu-think", "0.2",
            "--starting-dice", "1", "--grace-period", str(GRACE), "--bind", "10.231.0.1",
            "--port", str(PORT), "--no-advertise", "--name", "cut at the end",
            "--home", str(tmp_path / "h"), netns=names[0],
        )  # fmt: skip
        log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
        relay = tcp_relay.start(
            names[1], f"10.231.0.1:{PORT}", PORT, log, tmp_path / "relay.json",
            "--mode", "end", "--blackout", str(BLACKOUT),
        )  # fmt: skip
        player = None
        try:
            player = spawn(
                *bot_join(f"10.231.0.2:{PORT}", name="Ana", seed=3, home=tmp_path / "Ana",
                          give_up=60),
                netns=names[2], log=tmp_path / "Ana.out",
            )  # fmt: skip
            code = player.wait(timeout=120)
            ended_at = time.monotonic()
            # The host stops by itself once the player has its end: no signal needed.
            host_code = host.wait(timeout=30)
            host_lingered = time.monotonic() - ended_at
        finally:
            kill_all(player, relay)
            host_out = stop(host)
        told = (tmp_path / "Ana.out").read_text()
        seen = json.loads((tmp_path / "relay.json").read_text())
        print(f"exit {code}, host exit {host_code} {host_lingered:.1f} s later, relay {seen}")
        print(told)
        print(host_out[-1500:])
        # The relay cut the player when the game ended, before the end reached it.
        assert seen["windows"] == 1 and seen["cut"], seen
        # The host waited for it, said so, and did not give up on it.
        assert "waiting up to" in host_out and "for Ana to come back" in host_out, host_out
        assert "did not come back" not in host_out, host_out
        assert host_code == 0, host_out
        # The player's copy is the host's log, byte for byte, and verifies as a whole game.
        assert code == 0, told
        assert "verified transcript:" in told, told
        (copy,) = transcript_files(tmp_path / "Ana")
        assert copy.read_bytes() == log.read_bytes()
        done = subprocess.run(
            [sys.executable, "-m", "p2pdice", "verify", str(copy)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
