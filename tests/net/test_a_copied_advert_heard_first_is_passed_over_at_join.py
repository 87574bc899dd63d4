"""`join NAME` hears a table's real advertisement and a stranger's copy of it (same table id,
same host-key prefix, another address), and the copy sorts first: the player connects there,
finds a certificate of another key, sends it nothing, passes the address over, looks the table
up by its id and plays the whole game at the real host (net/resolve.py, net/client.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support import netns
from tests.support.procs import finished_copy_of_the_hosts_log, kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


def test_a_copied_advert_heard_first_is_passed_over_and_the_real_table_is_played(
    tmp_path: Path,
) -> None:
    with netns.lan() as names:
        # The real host on the second address, so the stranger's copy (first address) is the
        # one `join` tries first.
        host, ready = start_host(
            "--headless", "--seats", "2", "--cpu", "1", "--starting-dice", "2", "--name", "night",
            "--bind", "10.231.0.2", "--home", str(tmp_path / "h"), netns=names[1],
        )  # fmt: skip
        seen = tmp_path / "impostor.json"
        impostor: subprocess.Popen[str] | None = None
        player: subprocess.Popen[str] | None = None
        try:
            time.sleep(1.5)  # mDNS probing and announcement
            impostor = subprocess.Popen(
                ["ip", "netns", "exec", names[0], sys.executable, "-m", "tests.net.impostor_host",
                 "--table", ready["table_id"], "--out", str(seen)],
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )  # fmt: skip
            assert impostor.stdout is not None
            copied = json.loads(impostor.stdout.readline() or "{}")
            assert copied.get("host"), "the impostor could not copy the table"
            time.sleep(1.5)  # the copy's announcement
            player = spawn(
                "join", "night", "--bot", "easy", "--seed", "3", "--give-up", "60",
                "--home", str(tmp_path / "p"), netns=names[2], log=tmp_path / "player.out",
            )  # fmt: skip
            assert player.wait(timeout=120) == 0, (tmp_path / "player.out").read_text()
        finally:
            stop(host)
            kill_all(impostor, player)
        said = (tmp_path / "player.out").read_text()
        assert "tables are called" not in said, said
        got = json.loads(seen.read_text())
        assert got["connections"] >= 1 and got["frames"] == [], got
        finished_copy_of_the_hosts_log(tmp_path / "p", tmp_path / "h")
