"""A real host opened for five seats starts once two players are seated (--start-when 2),
and fills the three empty seats with its own CPU players of the chosen levels before the
start (--fill-cpu, one level per empty seat in order); the start entry names them, the game
is played by all five, and the transcript verifies. The same table without --fill-cpu starts
with the two players only. The host's own --cpu CPUs sit down at the start too, after the
people who joined (their seats kept for them till then), each at its own level."""

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


def _start(entries: list[dict]) -> dict:
    return next(e["event"] for e in entries if (e.get("event") or {}).get("type") == "start")


def test_the_host_starts_with_two_seated_and_its_cpus_fill_the_empty_seats(
    tmp_path: Path,
) -> None:
    entries = _play(tmp_path, "--fill-cpu", "easy,hard")
    assert entries[0]["event"]["cpu_fill"] is True
    roster = _start(entries)["roster"]
    assert [s["seat"] for s in roster] == [0, 1, 2, 3, 4]
    # The players are bots too (`join --bot`: cpu, not host_run); the fill seats are host-run,
    # after the players, at the levels listed in seat order (the last one for the rest).
    assert sorted(s["name"] for s in roster[:2]) == ["Ann", "Bea"]
    assert not any(s["host_run"] for s in roster[:2])
    fill = roster[2:]
    assert all(s["cpu"] and s["host_run"] for s in fill)
    assert [s["name"].split()[1] for s in fill] == ["easy", "hard", "hard"]
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


def test_the_people_sit_first_and_each_host_cpu_after_them_at_its_own_level(
    tmp_path: Path,
) -> None:
    """--cpu 1:easy,1:hard on a table for four: Ann and Bea join (each offered the next seat
    in the order they come), and the two CPUs sit down at the start, after them, in the order
    given; nobody who joins is offered a seat kept for them."""
    entries = _play(tmp_path, table=("--seats", "4", "--cpu", "1:easy,1:hard", "--start-when", "4"))
    assert entries[0]["event"]["host_cpu"] == 2
    roster = _start(entries)["roster"]
    assert sorted(s["name"] for s in roster[:2]) == ["Ann", "Bea"]
    assert [(s["name"], s["host_run"]) for s in roster[2:]] == [
        ("CPU easy 1", True), ("CPU hard 2", True),
    ]  # fmt: skip
    joins = [e["msg"]["body"] for e in entries if (e.get("msg") or {}).get("body", {}).get(
        "type") == "join"]  # fmt: skip
    # The people joined first, at seats 0 and 1; the CPUs last, at the seats kept for them
    # (never offered away), each CPU's join posted whenever its own connection got there.
    # Two people joining at once are posted in the order their answers arrive, which need
    # not be the order their seats were offered in.
    assert sorted((j["seat"], j["host_run"]) for j in joins[:2]) == [(0, False), (1, False)]
    assert sorted((j["seat"], j["host_run"]) for j in joins[2:]) == [(2, True), (3, True)]


def test_the_host_s_own_cpu_and_the_fill_cpus_share_the_empty_seats(tmp_path: Path) -> None:
    """The host's hard CPU (its seat kept from the opening) and two players make the 3 of
    --start-when: the hard CPU sits down after the players, and one easy CPU takes the one
    seat left empty."""
    entries = _play(
        tmp_path,
        "--fill-cpu",
        "easy",
        table=("--seats", "4", "--cpu", "1:hard", "--start-when", "3"),
    )
    names = [s["name"] for s in _start(entries)["roster"]]
    assert sorted(names[:2]) == ["Ann", "Bea"]
    assert names[2:] == ["CPU hard 1", "CPU easy 2"]


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
