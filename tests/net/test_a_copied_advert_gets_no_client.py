"""A guest who copies a table's advertisement while its host is down gets no client.

Three namespaces on one bridge: the real host, an impostor (tests/net/impostor_host.py, a
real process) that copies the advertisement (table id, host-key prefix, name) and serves a
challenge naming the real table id and host key, and a bot player. The host is killed mid
game (or paused with Ctrl-C) and resumed from its log: the player looks the table up over mDNS, finds the
impostor, gets no further than the TLS key check (it sends the impostor nothing, and the
impostor's bad entry stops nothing), keeps looking, and rejoins the real host, whose game it
finishes in its own seat.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import (
    finished_copy_of_the_hosts_log,
    kill_all,
    log_lines,
    spawn,
    start_host,
    stop,
    wait_until,
)

pytestmark = pytest.mark.usefixtures("private_network")

PORT = 47321  #: the real host's port (each namespace has its own: nothing else holds it)


@pytest.mark.parametrize(
    "down",
    [
        pytest.param(signal.SIGKILL, id="killed and restarted"),
        pytest.param(signal.SIGINT, id="paused with ctrl-c and resumed"),
        # Frozen, the host holds its sockets open: the player notices only by its heartbeat
        # (about 22 s), so this one is slow.
        pytest.param(signal.SIGSTOP, id="frozen with sigstop", marks=pytest.mark.slow),
    ],
)
def test_a_copied_advert_gets_no_client_while_the_host_is_down(
    tmp_path: Path, down: signal.Signals
) -> None:
    with netns.lan() as names:
        common = ["--headless", "--seats", "2", "--bind", "10.231.0.1", "--port", str(PORT)]
        # CPU moves paced so the game is still on when the host goes down.
        pace = ["--cpu-think", "0.15"]
        host, ready = start_host(
            *common, "--cpu", "1", *pace, "--name", "night", "--home", str(tmp_path / "h"),
            netns=names[0],
        )  # fmt: skip
        log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
        seen = tmp_path / "impostor.json"
        impostor: subprocess.Popen[str] | None = None
        again: subprocess.Popen[str] | None = None
        player: subprocess.Popen[str] | None = None
        try:
            time.sleep(1.5)  # mDNS probing and announcement
            player = spawn(
                "join", "night", "--bot", "medium", "--seed", "4", "--give-up", "60",
                "--home", str(tmp_path / "p"), netns=names[2], log=tmp_path / "player.out",
            )  # fmt: skip
            impostor = subprocess.Popen(
                ["ip", "netns", "exec", names[1], sys.executable, "-m", "tests.net.impostor_host",
                 "--table", ready["table_id"], "--out", str(seen)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            assert impostor.stdout is not None
            copied = json.loads(impostor.stdout.readline() or "{}")
            assert copied.get("host"), "the impostor could not copy the table"
            wait_until(lambda: log_lines(log) >= 12, 60, "the game to be under way")
            assert player.poll() is None
            # A crash, or the routine pause (Ctrl-C): either way the table resumes from its log.
            host.send_signal(down)
            if down != signal.SIGSTOP:
                host.wait(timeout=15)
            # Down long enough for the player to give up on the address and look it up.
            wait_until(
                lambda: json.loads(seen.read_text())["connections"] >= 1,
                60,
                "the player to find the impostor's advertisement",
            )
            if down == signal.SIGSTOP:
                host.send_signal(signal.SIGCONT)  # the same process carries on
            else:
                again = spawn(
                    "host", "--resume", ready["table_id"], *common, *pace,
                    "--home", str(tmp_path / "h"), netns=names[0], log=tmp_path / "again.out",
                )  # fmt: skip
            assert player.wait(timeout=120) == 0, (tmp_path / "player.out").read_text()
        finally:
            for proc in (again, host):
                if proc is not None and proc.poll() is None:
                    stop(proc)
            kill_all(impostor, player)
        got = json.loads(seen.read_text())
        # The player reached the impostor and sent it nothing: no join, no auth, no sync.
        assert got["connections"] >= 1 and got["frames"] == [], got
        lines = finished_copy_of_the_hosts_log(tmp_path / "p", tmp_path / "h")
        # No seat lost: the player held its seat to the end, never marked absent.
        assert b'"absent"' not in b"".join(lines)
