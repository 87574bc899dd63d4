"""People sit first, the host's CPUs after them: the host's own player takes seat 0 before its
table can be reached or listed, a player who joins takes the next seat, and the host's CPUs sit
down at the start, in the order given; practice and pass-and-play tables seat their people
first too. With `first_starter` host, round 1 is opened from the host's own seat, which the
start entry names (`host_seat`), and the transcript verifies."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from p2pdice.cli.runtime import TableRuntime, start_hosting, start_pass_and_play, start_practice
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.verify import verify_lines
from p2pdice.net.hostapp import HostedTable
from tests.support.wire import RawClient, join_frame, url_of


def _table(runtime: TableRuntime) -> HostedTable:
    assert runtime.service is not None
    [table] = runtime.service.tables.values()
    return table


async def _until(check, seconds: float = 15.0) -> None:
    for _ in range(int(seconds * 20)):
        if check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


def _events(table: HostedTable, kind: str) -> list[dict]:
    return [e.event for e in table.host.entries if e.event is not None and e.event["type"] == kind]


async def test_the_host_sits_first_a_joiner_next_and_its_cpus_at_the_start_after_them(
    tmp_path: Path,
) -> None:
    rules = Rules(seats=4, starting_dice=1)
    runtime = await start_hosting(
        tmp_path / "h", name="Kitchen", player="Hana", rules=rules, cpu=["easy", "hard"],
        password=None, bind="127.0.0.1", advertise=False, cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(runtime)
        # Seated before the table could be reached: the first row of its listing.
        assert table.host.state.joins[0].name == "Hana"
        assert [p["name"] for p in table.summary()["players"]] == ["Hana"]
        assert runtime.service is not None
        async with await RawClient.connect(url_of(runtime.service, table)) as raw:
            assert raw.challenge is not None and raw.challenge["seat"] == 1
            await raw.send(
                join_frame(
                    SigningKey(b"\x05" * 32), raw.challenge, head=table.host.head, name="Bea"
                )
            )
            await raw.recv_type("welcome")
            await _until(lambda: bool(_events(table, "start")))
        [start] = _events(table, "start")
        assert [(s["name"], s["host_run"]) for s in start["roster"]] == [
            ("Hana", False), ("Bea", False), ("CPU easy 1", True), ("CPU hard 2", True),
        ]  # fmt: skip
        assert "host_seat" not in start  # first_starter random: the start names no seat
        assert verify_lines(table.host.lines(), partial=True).ok
    finally:
        await runtime.close()


async def test_a_joiner_is_never_offered_a_seat_kept_for_the_host_s_cpus(tmp_path: Path) -> None:
    """Three seats, two CPUs: the host holds the one seat left for a person, so a joiner is
    offered none (it may watch) until the start."""
    runtime = await start_hosting(
        tmp_path / "h", name="Kitchen", player="Hana", rules=Rules(seats=3),
        cpu=["easy", "hard"], password=None, bind="127.0.0.1", advertise=False, cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(runtime)
        await _until(lambda: bool(_events(table, "start")))
        [start] = _events(table, "start")
        assert [s["name"] for s in start["roster"]] == ["Hana", "CPU easy 1", "CPU hard 2"]
    finally:
        await runtime.close()
    host = await start_hosting(
        tmp_path / "h2", name="Kitchen", player="Hana", rules=Rules(seats=4),
        cpu=["easy", "hard"], password=None, bind="127.0.0.1", advertise=False, cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(host)
        assert host.service is not None
        url = url_of(host.service, table)
        async with await RawClient.connect(url) as first, await RawClient.connect(url) as second:
            assert first.challenge is not None and first.challenge["seat"] == 1
            assert second.challenge is not None and second.challenge["seat"] is None
        assert table.host.phase == "lobby" and len(table.host.state.joins) == 1
    finally:
        await host.close()


async def test_practice_and_pass_and_play_seat_their_people_before_the_cpus(
    tmp_path: Path,
) -> None:
    practice = await start_practice(
        tmp_path / "p", Rules(seats=4, kind="practice"), ["easy", "hard", "never-calls"],
        name="Pat", cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(practice)
        await _until(lambda: bool(_events(table, "start")))
        names = [s["name"] for s in _events(table, "start")[0]["roster"]]
        assert names == ["Pat", "CPU easy 1", "CPU hard 2", "CPU never-calls 3"]
    finally:
        await practice.close()
    pnp = await start_pass_and_play(
        tmp_path / "q", Rules(seats=3, kind="pass_and_play"), ["Ann", "Bob"], ["hard"],
        cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(pnp)
        await _until(lambda: bool(_events(table, "start")))
        names = [s["name"] for s in _events(table, "start")[0]["roster"]]
        assert names == ["Ann", "Bob", "CPU hard 1"]
    finally:
        await pnp.close()


async def test_first_starter_host_opens_round_1_from_the_host_s_own_seat(tmp_path: Path) -> None:
    """The start names the host's own seat (0; the CPU sits at 1) and round 1's event
    carries it as its starter, nothing drawn."""
    rules = Rules(seats=2, starting_dice=1, first_starter="host")
    runtime = await start_hosting(
        tmp_path / "h", name="Kitchen", player="Hana", rules=rules, cpu=["easy"],
        password=None, bind="127.0.0.1", advertise=False, cpu_think=0,
    )  # fmt: skip
    try:
        table = _table(runtime)
        await _until(lambda: bool(_events(table, "round")))
        [start] = _events(table, "start")
        assert start["roster"][start["host_seat"]]["name"] == "Hana"
        assert _events(table, "round")[0]["starter"] == start["host_seat"] == 0
        report = verify_lines(table.host.lines(), partial=True)
        assert report.ok, report.failure
        genesis = json.loads(table.host.lines()[0])["event"]
        assert genesis["rules"]["first_starter"] == "host"
    finally:
        await runtime.close()
