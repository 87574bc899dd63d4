"""The lobby on the test's private loopback: a table appears, is joined, and when its host
is killed (no mDNS goodbye) it is greyed out and then removed."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.ui import lobbymodel
from tests.support import tmux
from tests.support.procs import (
    bot_join,
    kill_all,
    p2pdice,
    spawn,
    start_host,
    stop,
    transcript_files,
)

from .headless import headless

pytestmark = pytest.mark.usefixtures("private_network")
needs_tmux = pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")


async def test_lobby_lists_joins_and_drops_a_crashed_host(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(lobbymodel, "PROBE_EVERY", 0.4)
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1", "--name", "kitchen",
        "--bind", "127.0.0.1", "--home", str(tmp_path / "host"),
    )  # fmt: skip

    def setup(c, lobby) -> None:
        c.ui.screen = "lobby"
        c.ui.from_lobby = True

    try:
        async with headless(tmp_path / "me", setup) as d:
            d.services.start_browsing(d.c)
            await d.until(lambda: "kitchen" in d.screen() and "lobby" in d.screen(), 15)
            screen = d.screen()
            assert "1/3" in screen or "2/3" in screen
            assert "1 host CPU" in screen and f"127.0.0.1:{ready['port']}" in screen
            await d.press("\r")
            await d.until(lambda: d.c.mode() == "prompt")
            assert "Your name at the table:" in d.screen()
            await d.press("\x7f" * 30 + "Zed\r")
            await d.until(lambda: "Waiting for the host to start: 2 seated;" in d.screen(), 10)
            assert "the host can start now" in d.screen() and "free: left out" in d.screen()
            assert "Zed" in d.screen() and "code: at the start" in d.screen()
            await d.press("q")
            await d.until(lambda: d.c.mode() == "quit")
            await d.press("y")
            await d.until(lambda: d.c.mode() == "lobby", 10)
            host.send_signal(signal.SIGKILL)  # a crash: no goodbye on the network
            await d.until(lambda: "not answering" in d.screen(), 10)
            await d.until(lambda: "kitchen" not in d.screen(), 10)
            await d.press("q")
            await asyncio.wait_for(d.task, 10)
    finally:
        stop(host)


def lobby_command(home: Path) -> list[str]:
    """`p2pdice` alone (the lobby), on the data home `home`."""
    return ["env", f"P2PDICE_HOME={home}", *p2pdice()]


def kill_pane_program(t: tmux.Tmux) -> None:
    """kill -9 the p2pdice process under the pane's shell (a crash: no goodbye)."""
    pid = tmux.child_pid(t.pane_pid())
    assert pid is not None, t.screen()
    os.kill(pid, signal.SIGKILL)


def play_until(t: tmux.Tmux, done, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, f"no {what} in {timeout} s; screen:\n{t.screen()}"
        tmux.play_step(t)
        time.sleep(0.3)


def verified_finished(path: Path) -> None:
    lines, problem = split_lines(path.read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok and report.ended == "finished", report.failure


@needs_tmux
@pytest.mark.parametrize("then", ["rejoin", "watch"])
def test_a_restarted_lobby_takes_its_seat_back_and_watching_holds_none(
    tmp_path: Path, then: str
) -> None:
    """A lobby player killed mid-game reopens `p2pdice`: Enter on the playing table puts them
    back in their seat with their hand. Watching instead holds no seat: the host's stand-in
    plays it after the grace period and the game ends (before: the watcher held the seat)."""
    host, ready = start_host(
        "--headless", "--seats", "3", "--cpu", "1", "--name", "kitchen", "--grace-period", "5",
        "--starting-dice", "2", "--home", str(tmp_path / "host"),
    )  # fmt: skip
    log = tmp_path / "host" / "hosted" / ready["table_id"] / "log.jsonl"
    bot = spawn(
        *bot_join(f"127.0.0.1:{ready['port']}", name="Bo", seed=3, home=tmp_path / "bo"),
        log=tmp_path / "bo.out",
    )
    t = tmux.Tmux()
    me = tmp_path / "me"
    try:
        t.start(lobby_command(me), stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "kitchen" in s, 15, "table in the lobby")
        t.keys("Enter")
        t.wait_for(lambda s: "Your name at the table:" in s, 10, "name prompt")
        t.keys("BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace", "BSpace")
        t.keys("Zed", "Enter")
        # A quick first round may show its reveal first: move on from it like a player.
        play_until(t, lambda: "Your dice (Zed" in t.screen(), 30, "my dice")
        kill_pane_program(t)
        t.respawn(lobby_command(me), stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "kitchen" in s and "playing (you)" in s, 15, "the playing table")
        if then == "rejoin":
            t.keys("Enter")
            play_until(t, lambda: "Your dice (Zed" in t.screen(), 30, "my seat and hand back")
            play_until(t, lambda: bot.poll() is not None, 60, "game over")
        else:
            t.keys("s")
            play_until(t, lambda: "You are watching" in t.screen(), 30, "watching")
            assert bot.wait(timeout=60) == 0, (tmp_path / "bo.out").read_text()
        assert bot.returncode == 0, (tmp_path / "bo.out").read_text()
    finally:
        t.kill()
        kill_all(bot)
        stop(host)
    mine = transcript_files(me)
    assert len(mine) == 1 and mine[0].read_bytes() == log.read_bytes()
    verified_finished(mine[0])
    if then == "watch":  # the host played the empty seat (a forced move, a stand-in)
        played_for = (b'"type":"forced"', b'"type":"absent"', b'"type":"stand_in"')
        assert any(kind in log.read_bytes() for kind in played_for)
