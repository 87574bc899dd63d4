"""A host that takes back entries (restarted on a log shorter than what it sent): the real
player process that saved the longer log raises ROLLBACK on reconnecting and stops, instead
of following the host onto a second history (SPEC.md 8). It used to reconnect silently."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from p2pdice.store import AppendLog
from tests.support.procs import spawn, start_host, stop, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def lines_of(path: Path) -> int:
    return len(AppendLog.read(path)) if path.exists() else 0


#: Messages only the seat whose turn it is can send: while one is awaited, nobody else moves.
TURN_MOVES = {"bid", "challenge", "exact"}


def bodies(lines: list[bytes]) -> list[dict[str, Any]]:
    return [json.loads(line).get("msg", {}).get("body", {}) for line in lines]


def players_seat(lines: list[bytes]) -> int | None:
    """The seat of the one player that joined from another process (not run by the host)."""
    seats = {b["seat"] for b in bodies(lines) if b.get("type") == "join" and not b.get("host_run")}
    return int(seats.pop()) if len(seats) == 1 else None


def last_turn_move(seat: int | None, lines: list[bytes]) -> int | None:
    """The seq of the last of `lines` that carries a move `seat` made on its turn."""
    moves = [
        number
        for number, body in enumerate(bodies(lines))
        if body.get("seat") == seat and body.get("type") in TURN_MOVES
    ]
    return moves[-1] if moves else None


def test_a_player_whose_saved_log_is_longer_than_the_hosts_raises_rollback(
    tmp_path: Path,
) -> None:
    port = free_port()
    common = ["--headless", "--seats", "3", "--bind", "127.0.0.1", "--port", str(port),
              "--no-advertise", "--home", str(tmp_path / "h")]  # fmt: skip
    host, ready = start_host(*common, "--cpu", "2")
    log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    out = tmp_path / "player.out"
    player = spawn(
        "join", f"127.0.0.1:{port}", "--bot", "medium", "--seed", "4", "--give-up", "30",
        "--home", str(tmp_path / "p"), log=out,
    )  # fmt: skip
    again = None
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            saved = AppendLog.read(log) if log.exists() else []
            if len(saved) >= 30 and last_turn_move(players_seat(saved), saved) is not None:
                break
            time.sleep(0.01)
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=10)
        (mine,) = transcript_files(tmp_path / "p")
        held = lines_of(mine)
        saved = AppendLog.read(log)
        assert held >= 20 and b'"game_over"' not in saved[-1], (held, len(saved))
        # The host takes back entries the player holds, from a move the player made on its
        # turn: until the player is back nobody else may move there, so the host's log stays
        # shorter than the player's. (Cut elsewhere, the host's CPUs move on at once: they
        # may remake the same entries byte for byte, leaving no rollback to see, or grow the
        # log back to the player's length with other entries, which the player then meets
        # as a FORK instead.)
        kept = last_turn_move(players_seat(saved), saved[: min(held, len(saved))])
        assert kept is not None, (held, len(saved))
        log.write_bytes(b"".join(line + b"\n" for line in saved[:kept]))
        again = spawn("host", "--resume", ready["table_id"], *common)
        try:
            code = player.wait(timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"the player still ran after 60 s:\n{out.read_text()}") from None
        assert code == 1, out.read_text()
    finally:
        stop(host)
        if again is not None:
            stop(again)
        if player.poll() is None:
            player.kill()
            player.wait()
    said = out.read_text()
    assert f"ALARM: ROLLBACK: the host now serves {kept} entries" in said, said
    assert "EQUIVOCATION" not in said  # stopped before anything was signed on the new log
