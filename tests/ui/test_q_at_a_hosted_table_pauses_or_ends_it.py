"""`q` at a table we host asks what we mean. Pause: every player is told at once that the
host paused the table and it can be resumed, and their client waits quietly (no
"reconnecting" for minutes) until the table is resumed. End: every player is told at once,
the log ends with a signed game_over (abandoned), and nothing is left to resume.

A real host and a real player, each in its own terminal (tmux, 80x24), on loopback."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import verify_lines
from p2pdice.store import AppendLog, unfinished_hosted_tables
from tests.support import tmux
from tests.support.procs import host_log, p2pdice

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _host(home: Path, port: int, *more: str) -> list[str]:
    return [
        "env", f"P2PDICE_HOME={home}",
        *p2pdice("host", "--seats", "3", "--cpu", "1", "--cpu-think", "0", "--player", "Ann",
                 "--bind", "127.0.0.1", "--no-advertise", "--port", str(port), *more),
    ]  # fmt: skip


def _player(home: Path, port: int) -> list[str]:
    return p2pdice("join", f"127.0.0.1:{port}", "--name", "Bob", "--home", str(home))


def _open(host: tmux.Tmux, player: tmux.Tmux, tmp_path: Path, port: int) -> None:
    host.start(_host(tmp_path / "h", port), stderr=tmp_path / "host.err")
    host.wait_for(lambda s: "press s to start" in s, 20, "the table open")
    player.start(_player(tmp_path / "p", port), stderr=tmp_path / "player.err")


def _started(t: tmux.Tmux) -> str:
    return t.wait_for(lambda s: "Your dice (" in s, 30, "the game under way")


def _ask_to_leave(host: tmux.Tmux) -> None:
    host.keys("q")
    screen = host.wait_for(lambda s: "Leave your table?" in s, 10, "the host's question")
    assert "p pause the table" in screen and "e end the game" in screen


def test_pausing_tells_the_players_at_once_and_they_wait_for_the_resume(tmp_path: Path) -> None:
    port = _free_port()
    host, player = tmux.Tmux(), tmux.Tmux()
    try:
        _open(host, player, tmp_path, port)
        _started(host), _started(player)
        _ask_to_leave(host)
        host.keys("p")
        paused = time.monotonic()
        screen = player.wait_for(
            lambda s: "The host paused the table; it can be resumed" in s, 5, "the pause notice"
        )
        assert time.monotonic() - paused < 5
        assert "reconnecting" not in screen
        for _ in range(6):  # it keeps waiting quietly, not counting down to giving up
            time.sleep(0.5)
            assert "The host paused the table" in player.screen()
        log = host_log(tmp_path / "h")
        assert not any(b'"game_over"' in line for line in AppendLog.read(log))
        [saved] = unfinished_hosted_tables(tmp_path / "h")
        # The host's own terminal keeps how to resume it once the full screen has closed.
        said = host.wait_for(lambda s: "table paused" in s, 10, "the host's farewell")
        assert (
            f"table paused: to resume it, open p2pdice and press r (or p2pdice host --resume "
            f"{saved.table_id})" in said.replace("\n", "")
        ), said
        host.respawn(
            _host(tmp_path / "h", port, "--resume", saved.table_id), stderr=tmp_path / "h2"
        )
        player.wait_for(
            lambda s: "Your dice (" in s and "paused" not in s, 40, "the player back at the table"
        )
    finally:
        host.kill()
        player.kill()


def test_ending_tells_the_players_and_records_the_end(tmp_path: Path) -> None:
    port = _free_port()
    host, player = tmux.Tmux(), tmux.Tmux()
    try:
        _open(host, player, tmp_path, port)
        _started(host), _started(player)
        _ask_to_leave(host)
        host.keys("e")
        screen = player.wait_for(
            lambda s: "the host ended the game: it cannot be resumed" in s, 5, "the end notice"
        )
        assert "reconnecting" not in screen.lower()
        # The host's own terminal says what it did once the full screen has closed.
        host.wait_for(
            lambda s: "you ended the game: your table is closed" in s, 10, "the host's farewell"
        )
    finally:
        host.kill()
        player.kill()
    lines = AppendLog.read(host_log(tmp_path / "h"))
    last = json.loads(lines[-1])
    assert last["event"]["type"] == "game_over" and last["event"]["reason"] == "abandoned", last
    assert verify_lines(lines).ok
    assert unfinished_hosted_tables(tmp_path / "h") == []
