"""Whole games between real processes: one private loopback, and a three-host namespace LAN."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import split_lines, verify_lines
from tests.support import netns, tmux
from tests.support.procs import (
    host_log,
    p2pdice,
    spawn,
    start_headless_host,
    start_host,
    stop,
    transcript_files,
)

pytestmark = pytest.mark.usefixtures("private_network")
needs_tmux = pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")


def verified(path: Path) -> None:
    lines, problem = split_lines(path.read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok, report.failure and report.failure.describe()


def test_host_browse_join_on_one_loopback(tmp_path: Path) -> None:
    """The issue's 'done when': host headless, browse lists it, join --bot plays to the end."""
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "2", "--name", "demo", "--home", str(tmp_path / "h")
    )
    try:
        time.sleep(1.5)  # mDNS probing and announcement
        listed = subprocess.run(
            p2pdice("browse", "--json", "--timeout", "3"),
            capture_output=True,
            text=True,
            timeout=20,
        )
        tables = json.loads(listed.stdout)
        assert [t["name"] for t in tables] == ["demo"]
        assert tables[0]["id"] == ready["table_id"] and tables[0]["cpu"] == "2"
        joined = subprocess.run(
            p2pdice(
                "join", "demo", "--bot", "medium", "--home", str(tmp_path / "a"), "--seed", "1"
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert "ranking: 1." in joined.stdout and "verified transcript:" in joined.stdout
    finally:
        stop(host)
    mine = transcript_files(tmp_path / "a")
    assert len(mine) == 1
    assert mine[0].read_bytes() == host_log(tmp_path / "h").read_bytes()
    verified(mine[0])


def test_three_hosts_on_a_namespace_lan_play_a_whole_game(tmp_path: Path) -> None:
    with netns.lan() as names:
        host, _ = start_host(
            "--headless",
            "--seats",
            "3",
            "--cpu",
            "1:hard",
            "--name",
            "lan party",
            "--bind",
            "10.231.0.1",
            "--home",
            str(tmp_path / "h"),
            netns=names[0],
        )
        try:
            time.sleep(1.5)
            joiners = [
                spawn(
                    "join",
                    "lan party",
                    "--bot",
                    "medium",
                    "--home",
                    str(tmp_path / who),
                    "--seed",
                    str(i),
                    "--timeout",
                    "8",
                    netns=ns,
                    log=tmp_path / f"{who}.out",
                )
                for i, (who, ns) in enumerate([("b", names[1]), ("c", names[2])])
            ]
            for proc, who in zip(joiners, "bc", strict=True):
                proc.wait(timeout=180)
                assert proc.returncode == 0, (tmp_path / f"{who}.out").read_text()
        finally:
            stop(host)
        logs = [
            host_log(tmp_path / "h"),
            *transcript_files(tmp_path / "b"),
            *transcript_files(tmp_path / "c"),
        ]
        assert len(logs) == 3
        assert logs[0].read_bytes() == logs[1].read_bytes() == logs[2].read_bytes()
        for path in logs:
            verified(path)
        # The joiners found the table through mDNS across the bridge and saw the host's address.
        assert "10.231.0.1" in (tmp_path / "b.out").read_text()


def test_join_by_address_when_multicast_is_blocked(tmp_path: Path) -> None:
    host, ready = start_headless_host(tmp_path / "h", seats=2)
    try:
        joined = subprocess.run(
            p2pdice(
                "join", f"127.0.0.1:{ready['port']}", "--bot", "easy", "--home", str(tmp_path / "a")
            ),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
    finally:
        stop(host)
    verified(transcript_files(tmp_path / "a")[0])


def test_an_unadvertised_host_shows_each_lan_address_to_join_by(tmp_path: Path) -> None:
    """Without mDNS the host prints `join HOST:PORT` for its LAN address (not a join by name
    that cannot work), in text and in --json, and a player on another machine joins by it."""
    with netns.lan() as names:
        common = ("--headless", "--seats", "2", "--cpu", "1", "--name", "quiet", "--no-advertise")
        text_host = spawn(
            "host", *common, "--home", str(tmp_path / "t"), netns=names[0], log=tmp_path / "t.out"
        )
        host, ready = start_host(*common, "--home", str(tmp_path / "h"), netns=names[0])
        try:
            assert ready["join"] == [f"10.231.0.1:{ready['port']}"] and not ready["advertised"]
            player = spawn(
                "join", ready["join"][0], "--bot", "easy", "--home", str(tmp_path / "a"),
                netns=names[1], log=tmp_path / "a.out",
            )  # fmt: skip
            assert player.wait(timeout=60) == 0, (tmp_path / "a.out").read_text()
            deadline = time.monotonic() + 10
            while "seats:" not in (tmp_path / "t.out").read_text():
                assert time.monotonic() < deadline, (tmp_path / "t.out").read_text()
                time.sleep(0.1)
        finally:
            stop(host)
            stop(text_host)
        printed = (tmp_path / "t.out").read_text()
        assert "join with: p2pdice join 10.231.0.1:" in printed, printed
        assert "'quiet'" not in printed.split("\n", 1)[1] and "HOST:" not in printed, printed
        verified(transcript_files(tmp_path / "a")[0])


@needs_tmux
def test_the_host_screen_shows_join_by_address_for_each_lan_address(tmp_path: Path) -> None:
    with netns.lan() as names:
        t = tmux.Tmux(netns=names[0])
        command = [*p2pdice("host", "--name", "Kitchen", "--seats", "2", "--no-advertise")]
        t.start([*command, "--home", str(tmp_path / "h")], stderr=tmp_path / "stderr.txt")
        try:
            screen = t.wait_for(lambda s: "join 10.231.0.1:" in s, 20, "address on screen")
        finally:
            t.kill()
        assert "'Kitchen'" not in screen and "HOST:" not in screen, screen
