"""A host playing at its own table (the terminal client, not --headless) sees on the game-over
screen who does not have the end yet, and `q` asks before it closes the table on them.

Three namespaces on one bridge: the host in a real terminal (tmux, 80x24), a plain TCP relay
(tests/support/tcp_relay.py, `--mode end`) and a bot player joined through the relay. When
the host writes `game_over` the relay cuts the player before that entry reaches it and refuses
it for a few seconds, as a laptop that lost the Wi-Fi at the last bid. Before this, `q` on the
game-over screen closed the table at once and the player kept a log that stops short of the
result (SPEC.md 10.3, after `game_over`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from p2pdice.net.server import AWAY_AFTER
from tests.support import netns, tcp_relay, tmux
from tests.support.procs import bot_join, host_log, kill_all, p2pdice, spawn, transcript_files

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]

PORT = 47336
BLACKOUT = 8.0


def test_the_host_names_who_lacks_the_end_and_asks_before_leaving_them_without_it(
    tmp_path: Path,
) -> None:
    with netns.lan() as names:
        host = tmux.Tmux(netns=names[0])
        relay = player = None
        try:
            host.start(
                p2pdice("host", "--seats", "2", "--start-when", "2", "--player", "Ann",
                        "--starting-dice", "1", "--grace-period", "60", "--bind", "10.231.0.1",
                        "--port", str(PORT), "--no-advertise", "--home", str(tmp_path / "h")),
                stderr=tmp_path / "host.err",
            )  # fmt: skip
            host.wait_for(lambda s: "Waiting for players" in s or "press s" in s, 20, "the table")
            log = host_log(tmp_path / "h")
            relay = tcp_relay.start(
                names[1], f"10.231.0.1:{PORT}", PORT, log, tmp_path / "relay.json",
                "--mode", "end", "--blackout", str(BLACKOUT),
            )  # fmt: skip
            player = spawn(
                *bot_join(f"10.231.0.2:{PORT}", name="Bob", seed=5, home=tmp_path / "Bob",
                          give_up=90),
                netns=names[2], log=tmp_path / "Bob.out",
            )  # fmt: skip
            for _ in range(600):  # Ann plays her turns until the game-over screen
                if "Game over" in tmux.play_step(host):
                    break
                assert player.poll() is None, (tmp_path / "Bob.out").read_text()
                subprocess.run(["sleep", "0.2"], check=True)
            # Ann left the reveal for the final ranking; Bob is still cut off by the relay,
            # and named once a connected client would have closed (AWAY_AFTER).
            host.wait_for(
                lambda s: "Game over" in s and "Waiting for Bob to come back for the end" in s,
                AWAY_AFTER + 3, "Bob named on the game-over screen",
            )  # fmt: skip
            host.keys("q")
            asked = host.wait_for(lambda s: "Leave your table?" in s, 10, "the question")
            assert "Bob does not have the end of the game yet" in asked, asked
            assert "y leave the table" in asked and "n stay" in asked, asked
            for key in ("p", "e"):  # nothing to pause or end once it is over: it stays
                host.keys(key)
                host.wait_for(
                    lambda s: "the game is over: y leaves, n stays" in s
                    and "Leave your table?" in s, 10, f"the question still there after {key}",
                )  # fmt: skip
            host.keys("n")
            host.wait_for(lambda s: "Final ranking" in s, 10, "the game-over screen again")
            code = player.wait(timeout=60)  # Bob comes back through the relay and gets the end
            host.wait_for(
                lambda s: "Final ranking" in s and "Waiting for Bob" not in s, 10,
                "the line about Bob gone",
            )  # fmt: skip
            host.keys("q")  # nobody is left behind: q leaves without a question
            host.wait_for(lambda s: "Final ranking" not in s, 10, "the host gone")
        finally:
            kill_all(player, relay)
            host.kill()
        told = (tmp_path / "Bob.out").read_text()
        seen = json.loads((tmp_path / "relay.json").read_text())
        assert seen["windows"] == 1 and seen["cut"], seen
        assert code == 0, told
        (copy,) = transcript_files(tmp_path / "Bob")
        assert copy.read_bytes() == log.read_bytes()
        done = subprocess.run(
            [sys.executable, "-m", "p2pdice", "verify", str(copy)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
