"""Two tables called "Kitchen" on one namespace LAN, one playing and one waiting with CPUs to
fill its empty seats, and two paused "Kitchen" tables this device hosted: every place that
lists them tells them apart by host, seats, round and short id. `join Kitchen` lists both with
what to type; the real lobby in tmux shows each row's round or what becomes of its empty seats,
and its host key; the lobby's resume picker (`r`) shows each saved table's seats and round."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support import netns, tmux
from tests.support.procs import kill_all, p2pdice, start_host, stop

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def host_key_of(home: Path, table_id: str) -> str:
    """The short form of the host key, as its log's genesis names it."""
    genesis = (home / "hosted" / table_id / "log.jsonl").read_text().splitlines()[0]
    return json.loads(genesis)["event"]["host"][:8]


def paused_midgame(home: Path, ns: str) -> str:
    """Host a table of two CPUs on `home` (loopback, not advertised), kill it with -9 once its
    second round opened, and return its id: an unfinished table the lobby offers to resume."""
    proc, ready = start_host(
        "--headless", "--seats", "2", "--cpu", "2", "--cpu-think", "0.3", "--name", "Kitchen",
        "--no-advertise", "--bind", "127.0.0.1", "--home", str(home), netns=ns,
    )  # fmt: skip
    path = home / "hosted" / ready["table_id"] / "log.jsonl"
    deadline = time.monotonic() + 30
    try:
        while path.read_bytes().count(b'"type":"round"') < 2:
            assert time.monotonic() < deadline, "no second round"
            assert b'"type":"game_over"' not in path.read_bytes()
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    assert b'"type":"game_over"' not in path.read_bytes()
    return ready["table_id"]


def test_the_lobby_join_and_the_resume_picker_name_host_seats_round_and_short_id(
    tmp_path: Path,
) -> None:
    me = tmp_path / "me"
    with netns.lan() as (ns1, ns2, player):
        saved = [paused_midgame(me, player) for _ in range(2)]
        hosts = []
        t = tmux.Tmux(netns=player)
        try:
            # A table playing (CPUs that think a while, so it is still playing when looked
            # at) and a table waiting for players, whose empty seats CPUs will fill.
            playing_args = (
                "--headless", "--seats", "2", "--cpu", "2", "--cpu-think", "2",
                "--name", "Kitchen", "--home", str(tmp_path / "playing"),
            )  # fmt: skip
            waiting_args = (
                "--headless", "--seats", "4", "--cpu", "1", "--fill-cpu", "easy",
                "--name", "Kitchen", "--home", str(tmp_path / "waiting"),
            )  # fmt: skip
            hosts.append(start_host(*playing_args, netns=ns1))
            hosts.append(start_host(*waiting_args, netns=ns2))
            (_, playing), (_, waiting) = hosts
            ids = [playing["table_id"][:8], waiting["table_id"][:8]]
            keys = [
                host_key_of(tmp_path / "playing", playing["table_id"]),
                host_key_of(tmp_path / "waiting", waiting["table_id"]),
            ]

            listed = subprocess.run(
                p2pdice("join", "Kitchen", "--bot", "easy", "--timeout", "8", netns=player),
                capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            said = listed.stdout + listed.stderr
            assert listed.returncode != 0 and "none was joined" in said, said
            assert re.search(rf"join Kitchen#{ids[0]}\n.*2/2 seats, round \d+", said), said
            assert f"host key {keys[0]}" in said, said
            assert re.search(
                rf"join Kitchen#{ids[1]}\n.*1/4 seats, lobby, CPUs fill empty seats", said
            ), said
            assert f"host key {keys[1]}" in said, said

            t.start(["env", f"P2PDICE_HOME={me}", *p2pdice()], stderr=tmp_path / "stderr.txt")
            screen = t.wait_for(
                lambda s: f"#{ids[0]}" in s and f"#{ids[1]}" in s and "round" in s,
                30,
                "both tables in the lobby",
            )
            rows = " ".join(screen.split())
            assert re.search(rf"#{ids[0]} at [0-9.:]+, round \d+, host key {keys[0]}", rows), screen
            assert re.search(
                rf"#{ids[1]} at [0-9.:]+, host key {keys[1]}, CPUs fill empty seats", rows
            ), screen
            assert "Press r to resume one of the 2 tables you hosted" in rows, screen
            t.keys("r")
            screen = t.wait_for(lambda s: "Resume which table?" in s, 10, "the resume picker")
            question = " ".join(screen.split())
            for table_id in saved:
                assert re.search(rf"Kitchen#{table_id[:8]}, 2 seats, round [2-9]", question), screen
            t.keys("Escape")
            t.keys("q")
        finally:
            t.kill()
            kill_all(*(proc for proc, _ in hosts))
            for proc, _ in hosts:
                stop(proc)
