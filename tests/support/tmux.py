"""A real terminal for the interactive commands: a private tmux server (80x24 by default),
optionally inside a network namespace, always killed afterwards."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

TMUX = shutil.which("tmux")
ROOT = Path(__file__).resolve().parents[2]


class Tmux:
    """One tmux server on its own socket; `start` runs one command in its only pane."""

    def __init__(self, netns: str | None = None) -> None:
        self.socket = f"p2pdice-test-{uuid.uuid4().hex[:8]}"
        self.netns = netns

    def _cmd(self, *args: str) -> list[str]:
        assert TMUX is not None
        cmd = [TMUX, "-L", self.socket, "-f", "/dev/null", *args]
        return ["ip", "netns", "exec", self.netns, *cmd] if self.netns else cmd

    def run(self, *args: str) -> str:
        proc = subprocess.run(self._cmd(*args), capture_output=True, text=True, timeout=10)
        return proc.stdout

    def start(self, command: list[str], *, stderr: Path, width: int = 80, height: int = 24) -> None:
        env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color", "PYTHONUNBUFFERED": "1"}
        line = shlex.join(command) + f" 2>>{shlex.quote(str(stderr))}; sleep 30"
        subprocess.run(
            self._cmd("new-session", "-d", "-x", str(width), "-y", str(height), line),
            check=True, env=env, cwd=ROOT, timeout=10,
        )  # fmt: skip

    def respawn(self, command: list[str], *, stderr: Path) -> None:
        """Run `command` in the pane again (after the previous one was killed)."""
        line = shlex.join(command) + f" 2>>{shlex.quote(str(stderr))}; sleep 30"
        self.run("respawn-pane", "-k", line)

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def keys(self, *keys: str) -> None:
        self.run("send-keys", *keys)

    def pane_pid(self) -> int:
        return int(self.run("display-message", "-p", "#{pane_pid}").strip())

    def wait_for(self, predicate: Callable[[str], bool], timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                if os.environ.get("P2PDICE_TMUX_TIMING"):
                    took = timeout - (deadline - time.monotonic())
                    print(f"[tmux] {what}: {took:.1f} s of {timeout}", file=sys.stderr)
                return screen
            time.sleep(0.2)
        raise AssertionError(f"no {what} within {timeout} s; last screen:\n{screen}")

    def kill(self) -> None:
        socket_path = self.run("display-message", "-p", "#{socket_path}").strip()
        self.run("kill-server")
        if socket_path:
            Path(socket_path).unlink(missing_ok=True)


def play_step(t: Tmux) -> str:
    """Look at the screen and press what a hurried player would: Liar when it is offered,
    else the suggested bid; Enter to leave a reveal or start the next round. Returns the
    screen it acted on."""
    screen = t.screen()
    if "Your turn." in screen:
        t.keys("l" if " l Liar" in screen else "Enter")
    elif any(
        cue in screen
        for cue in (
            "start next round",
            "back to the table",
            "final ranking",
            "press Enter",
            "Enter play",
        )
    ):
        t.keys("Enter")
    return screen


def child_pid(pid: int) -> int | None:
    """The first child of `pid` (the p2pdice process under the pane's shell)."""
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if children else None
