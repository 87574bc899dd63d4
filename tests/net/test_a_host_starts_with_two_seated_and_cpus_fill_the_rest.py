"""A real host opened for five seats starts once two players are seated (--start-when 2),
and fills the three empty seats with its own CPU players of the chosen level before the
start (--fill-cpu); the start entry names them, the game is played by all five, and the
transcript verifies. The same table without --fill-cpu starts with the two players only."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import verify_lines
from p2pdice.store import AppendLog
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_host

pytestmark = pytest.mark.usefixtures("private_network")


def _play(
    tmp_path: Path, *fill: str, table: tuple[str, ...] = ("--seats", "5", "--start-when", "2")
) -> list[dict]:
    """Host a table (5 seats starting at 2 unless `table` says otherwise), two bots join; the
    host log's entries once the game is over."""
    host, ready = start_host(
        "--headless", *table, *fill,
        "--starting-dice", "1", "--bind", "127.0.0.1", "--no-advertise",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    address = ready["join"][0]
    players = [
        spawn(*bot_join(address, name=name, seed=seed, home=tmp_path / name, give_up=30),
              log=tmp_path / f"{name}.out")
        for name, seed in (("Ann", 1), ("Bea", 2))
    ]  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = AppendLog.read(host_log(tmp_path / "h"))
            if lines and b'"game_over"' in lines[-1]:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the game did not finish")
        report = verify_lines(lines)
        assert report.ok, report
        return [json.loads(line) for line in lines]
    finally:
        kill_all(host, *players)


def test_the_host_starts_with_two_seated_and_its_cpus_fill_the_empty_seats(
    tmp_path: Path,
) -> None:
    entries = _play(tmp_path, "--fill-cpu", "easy")
    assert entries[0]["event"]["cpu_fill"] is True
    start = next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "start")
    roster = start["roster"]
    assert [s["seat"] for s in roster] == [0, 1, 2, 3, 4]
    # The players are bots too (`join --bot`: cpu, not host_run); the fill seats are host-run.
    players = [s["name"] for s in roster if not s["host_run"]]
    assert sorted(players) == ["Ann", "Bea"]
    fill = [s for s in roster if s["host_run"]]
    assert len(fill) == 3 and all(s["cpu"] and "easy" in s["name"] for s in fill)
    first_round = next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "round")
    assert first_round["seats"] == [0, 1, 2, 3, 4]


def test_without_fill_the_game_is_played_by_the_seats_taken(tmp_path: Path) -> None:
    entries = _play(tmp_path)
    assert "cpu_fill" not in entries[0]["event"]
    assert entries[0]["event"]["rules"]["seats"] == 5
    start = next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "start")
    assert sorted(s["name"] for s in start["roster"]) == ["Ann", "Bea"]
    first_round = next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "round")
    assert first_round["seats"] == [0, 1] and first_round["dice"] == [1, 1]


def test_each_host_cpu_plays_at_its_own_level(tmp_path: Path) -> None:
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1:easy,1:hard", "--starting-dice", "1",
        "--bind", "127.0.0.1", "--no-advertise", "--home", str(tmp_path / "h"),
    )  # fmt: skip
    player = spawn(
        *bot_join(ready["join"][0], name="Ann", seed=1, home=tmp_path / "ann", give_up=30),
        log=tmp_path / "ann.out",
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            lines = AppendLog.read(host_log(tmp_path / "h"))
            if any(b'"type":"start"' in line for line in lines):
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the table did not start")
        start = next(json.loads(x)["event"] for x in lines if b'"type":"start"' in x)
        assert [(s["name"], s["host_run"]) for s in start["roster"]] == [
            ("CPU easy 1", True), ("CPU hard 2", True), ("Ann", False),
        ]  # fmt: skip
    finally:
        kill_all(host, player)


def test_the_host_s_own_cpu_and_the_fill_cpus_share_the_empty_seats(tmp_path: Path) -> None:
    """The host's hard CPU (seated as the table opens) and two players make the 3 of
    --start-when: one easy CPU takes the one seat left empty."""
    entries = _play(
        tmp_path,
        "--fill-cpu",
        "easy",
        table=("--seats", "4", "--cpu", "1:hard", "--start-when", "3"),
    )
    start = next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "start")
    names = [s["name"] for s in start["roster"]]
    assert names[0] == "CPU hard 1" and sorted(names[1:3]) == ["Ann", "Bea"]
    assert names[3] == "CPU easy 2"


def test_a_resumed_host_runs_the_cpus_that_filled_empty_seats_again(tmp_path: Path) -> None:
    """Killed with SIGKILL mid-game and resumed from its log, the host finds the fill CPUs'
    keys and levels in its folder and runs them again: the game finishes and verifies."""
    common = (
        "--headless", "--seats", "4", "--start-when", "2", "--fill-cpu", "hard",
        "--starting-dice", "2", "--bind", "127.0.0.1", "--no-advertise",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    host, ready = start_host(*common)
    port = str(ready["port"])
    players = [
        spawn(*bot_join(f"127.0.0.1:{port}", name=name, seed=seed, home=tmp_path / name,
                        give_up=40), log=tmp_path / f"{name}.out")
        for name, seed in (("Ann", 1), ("Bea", 2))
    ]  # fmt: skip
    again = None
    try:
        log = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if (tmp_path / "h" / "hosted").exists():
                log = host_log(tmp_path / "h")
            if (
                log is not None and len(AppendLog.read(log)) >= 20
            ):  # past the start and into round 1
                break
            time.sleep(0.02)
        host.kill()
        host.wait(10)
        assert log is not None and b'"game_over"' not in AppendLog.read(log)[-1]
        again, _ = start_host("--resume", ready["table_id"], "--port", port, *common)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            lines = AppendLog.read(log)
            if b'"game_over"' in lines[-1]:
                break
            time.sleep(0.05)
        else:
            raise AssertionError("the resumed game did not finish")
        report = verify_lines(lines)
        assert report.ok and report.ended == "finished", report.failure
        start = next(json.loads(x)["event"] for x in lines if b'"type":"start"' in x)
        assert sum(1 for s in start["roster"] if s["host_run"]) == 2
        # The fill CPUs came back themselves: no seat was declared gone or stood in for.
        assert not any(b'"type":"stand_in"' in x or b'"type":"absent"' in x for x in lines)
    finally:
        kill_all(host, again, *players)
