"""A real host process and a real player over TLS WebSockets, in a private namespace: the
player never moves, so the time bank runs out (`absent`, `stalled`) while its connection
stays open. When its player is back (`take_seat_back`, what a move key does at the table),
the client hangs up and authenticates afresh, and the host posts `return` for the seat:
the seat is the player's again from the next round, and the game verifies."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

import pytest

from p2pdice.core.codec import decode
from p2pdice.core.rules import TIME_BANK_FREE_PER_TURN
from p2pdice.core.verify import verify_lines
from p2pdice.net.client import run_websocket
from p2pdice.net.resolve import resolve
from p2pdice.store import AppendLog
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_host
from tests.support.stalling_player import stalling_session

pytestmark = pytest.mark.usefixtures("private_network")


def _events(home: Path, kind: str) -> list[dict]:
    logs = sorted(home.glob("hosted/*/log.jsonl"))
    if not logs:
        return []
    found = [decode(line).get("event") or {} for line in AppendLog.read(logs[0])]
    return [e for e in found if e.get("type") == kind]


async def _until(predicate, seconds: float) -> None:  # type: ignore[no-untyped-def]
    loop = asyncio.get_running_loop()
    end = loop.time() + seconds
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.1)


async def test_a_player_out_of_time_while_connected_gets_the_seat_back(tmp_path: Path) -> None:
    home = tmp_path / "h"
    host, ready = start_host(
        "--headless", "--seats", "2", "--first-starter", "seat0", "--time-bank", "1",
        "--cpu-think", "0.5",  # the stand-in's pace: the game outlasts the player's return
        "--bind", "127.0.0.1", "--no-advertise", "--home", str(home),
    )  # fmt: skip
    address = ready["join"][0]
    other = None
    try:
        target = await resolve(address, timeout=5.0)
        session = stalling_session(target, tmp_path / "me")  # never chooses a move
        stop = asyncio.Event()
        link = asyncio.create_task(run_websocket(session, target.url, give_up_after=60, stop=stop))
        await _until(lambda: session.seat == 0, 15)
        other = spawn(*bot_join(address, name="Hana", seed=2, home=tmp_path / "p"))
        await _until(lambda: _events(home, "absent"), TIME_BANK_FREE_PER_TURN + 20)
        assert [(e["seat"], e["reason"]) for e in _events(home, "absent")] == [(0, "stalled")]
        assert session.connected  # out of time, not gone
        session.take_seat_back()
        await _until(lambda: _events(home, "return"), 60)
        assert _events(home, "return")[0]["seat"] == 0
        assert not session.alarms and not session.errors
        link.cancel()  # enough: the seat is back
        with contextlib.suppress(asyncio.CancelledError):
            await link
        session.close()
    finally:
        kill_all(other, host)
    report = verify_lines(AppendLog.read(host_log(home)), partial=True)
    assert report.ok, report.failure
    assert "it came back in round" in report.stalls[0]
