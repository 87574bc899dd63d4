"""`p2pdice practice` in a real terminal (tmux, 80x24): dice, a bid and a reveal on screen."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
ROOT = Path(__file__).resolve().parents[2]


def practice_command() -> list[str]:
    """`p2pdice practice`, from this checkout."""
    return [sys.executable, "-m", "p2pdice", "practice"]


class Tmux:
    def __init__(self) -> None:
        self.socket = f"p2pdice-test-{uuid.uuid4().hex[:8]}"

    def run(self, *args: str) -> str:
        proc = subprocess.run(
            [TMUX, "-L", self.socket, "-f", "/dev/null", *args],
            capture_output=True,
            text=True,
            timeout=10,
        )
        return proc.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", *keys)


def test_practice_in_tmux_shows_dice_a_bid_and_a_reveal(tmp_path: Path) -> None:
    command = [*practice_command(), "--home", str(tmp_path), "--cpu", "2", "--starting-dice", "2",
               "--cpu-think", "0"]  # fmt: skip
    t = Tmux()
    env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color"}
    started = time.monotonic()
    subprocess.run(
        [TMUX, "-L", t.socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24",
         shlex.join(command) + f" 2>{shlex.quote(str(tmp_path / 'stderr.txt'))}; sleep 5"],
        check=True, env=env, cwd=ROOT, timeout=10,
    )  # fmt: skip
    seen: dict[str, str] = {}
    try:
        deadline = started + 40
        while time.monotonic() < deadline and not {"table", "bid", "reveal"} <= set(seen):
            time.sleep(0.2)
            screen = t.screen()
            if "first" not in seen and screen.strip():
                seen["first"] = f"{time.monotonic() - started:.2f}s"
            if "Your turn." in screen:
                seen["table"] = screen
                if " l Liar" in screen:
                    t.keys("l")
                else:
                    t.keys("Enter")
            elif "Current bid:" in screen:
                seen["bid"] = screen
            if re.search(r"Round \d+: the reveal", screen):
                seen["reveal"] = screen
                if "table" not in seen:
                    # The CPUs may settle round 1 before our turn: leave the reveal as a
                    # player would, to reach our own turn.
                    t.keys("Enter")
            if "Current bid:" in screen and "table" in seen:
                seen["bid"] = screen
    finally:
        socket_path = t.run("display-message", "-p", "#{socket_path}").strip()
        t.run("kill-server")
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)
    assert "reveal" in seen, f"no reveal; last screen:\n{t.screen()}\n{seen}"
    table, reveal = seen["table"], seen["reveal"]
    assert "Your dice (" in table and ("┌───────┐" in table or "+-------+" in table)
    assert "Current bid:" in seen["bid"] or "Bids this round" in table
    assert "code " in table and "Enter" in table
    lines = [line for line in reveal.splitlines() if "verified" in line]
    assert len(lines) == 3, reveal  # every seat's commitment verified
    assert "ALARM" not in reveal
    assert all(len(line) <= 80 for line in reveal.splitlines())


def run_in_tmux(
    command: list[str], tmp_path: Path, *, size: tuple[int, int] = (80, 24), wait: float = 20.0
) -> tuple[str, int | None]:
    """Run `command` in a fresh tmux pane; return the screen once it exits, and its status."""
    t = Tmux()
    env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color"}
    script = shlex.join(command) + '; echo "EXIT=$?"; sleep 30'
    subprocess.run(
        [TMUX, "-L", t.socket, "-f", "/dev/null", "new-session", "-d",
         "-x", str(size[0]), "-y", str(size[1]), script],
        check=True, env=env, cwd=ROOT, timeout=10,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + wait
        screen = ""
        while time.monotonic() < deadline:
            time.sleep(0.2)
            screen = t.screen()
            if "EXIT=" in screen:
                break
    finally:
        socket_path = t.run("display-message", "-p", "#{socket_path}").strip()
        t.run("kill-server")
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)
    status = None
    for line in screen.splitlines():
        if line.startswith("EXIT="):
            status = int(line.removeprefix("EXIT="))
    return screen, status


def test_join_of_a_password_table_without_the_password_says_how_and_exits_2(
    tmp_path: Path,
) -> None:
    from tests.support.procs import password_host

    with password_host(tmp_path) as ready:
        command = [sys.executable, "-m", "p2pdice", "join", f"127.0.0.1:{ready['port']}",
                   "--home", str(tmp_path / "c")]  # fmt: skip
        screen, status = run_in_tmux(command, tmp_path)
    assert status == 2, screen
    assert "needs a password" in screen and "--password-file" in screen, screen
    assert "P2PDICE_PASSWORD" in screen


def test_join_of_an_unreachable_address_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "p2pdice", "join", f"127.0.0.1:{port}", "--timeout", "2",
               "--home", str(tmp_path / "c")]  # fmt: skip
    screen, status = run_in_tmux(command, tmp_path)
    assert status == 2, screen
    unwrapped = screen.replace("\n", "")  # the line is longer than the terminal is wide
    assert f"could not reach the host at 127.0.0.1:{port}: connection refused" in unwrapped, screen
    assert "Connecting" not in screen and "q quit" not in screen  # no full-screen UI


def test_a_small_terminal_says_so_acts_on_nothing_unseen_and_recovers(tmp_path: Path) -> None:
    command = [*practice_command(), "--home", str(tmp_path), "--cpu", "1", "--cpu-think", "0",
               "--first-starter", "seat1"]  # fmt: skip
    t = Tmux()
    env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color"}
    subprocess.run(
        [TMUX, "-L", t.socket, "-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24",
         shlex.join(command) + "; sleep 5"],
        check=True, env=env, cwd=ROOT, timeout=10,
    )  # fmt: skip

    def wait_for(text: str, seconds: float) -> str:
        deadline = time.monotonic() + seconds
        screen = t.screen()
        while time.monotonic() < deadline and text not in screen:
            time.sleep(0.2)
            screen = t.screen()
        return screen

    try:
        screen = wait_for("Your turn.", 40)  # the CPU (seat 1, after ours) opened; our turn
        assert "Your turn." in screen, screen
        t.run("resize-window", "-x", "70", "-y", "20")
        screen = wait_for("Terminal too small", 5)
        assert "Terminal too small: 70x20" in screen, screen
        assert "q quit" in screen.rstrip().splitlines()[-1], screen
        t.keys("Enter")  # on the old, broken screen this bid unseen
        time.sleep(0.5)
        t.run("resize-window", "-x", "80", "-y", "24")
        screen = wait_for("Your turn.", 5)
        assert "Your turn." in screen and "Terminal too small" not in screen, screen
        column = [line.split("│", 1)[1] for line in screen.splitlines() if "│" in line]
        bids = [b.strip() for b in column if " x " in b]
        assert len(bids) == 1 and bids[0].startswith("CPU"), screen  # Enter did not bid
    finally:
        socket_path = t.run("display-message", "-p", "#{socket_path}").strip()
        t.run("kill-server")
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)
