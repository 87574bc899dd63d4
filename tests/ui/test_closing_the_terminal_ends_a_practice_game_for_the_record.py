"""Closing the terminal (SIGHUP) or SIGTERM in the middle of a practice or pass-and-play game
ends it for the record as Ctrl-C does: the table's log and every seat's copy end with the
signed `game_over` (`abandoned`) and `p2pdice verify` accepts each, although after a SIGHUP
the terminal is gone and nothing can be drawn on it. After a SIGTERM the screen is restored
(the table is not left over the shell). A table hosted here is left resumable, as before."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.cli.common import load_saved_table
from tests.support import tmux
from tests.support.procs import p2pdice
from tests.ui.test_leaving_a_practice_table_ends_its_game_in_every_copy import ended_game

pytestmark = pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")

#: The person opens round 1, so the game waits for them (the CPUs cannot finish a round).
OPENING = ["--cpu-think", "0", "--first-starter", "seat0"]
PRACTICE = ["practice", "--cpu", "2", *OPENING]
PASS_AND_PLAY = ["pass-and-play", "--players", "Ann,Bob", "--cpu", "1", *OPENING]


def gone(pid: int) -> bool:
    """The process has exited: a zombie nobody reaped yet has, once its other threads have
    ended too (until then its files, and the host's lock, are still open)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state == "Z" and len(os.listdir(f"/proc/{pid}/task")) <= 1
    except OSError:
        return True


def wait_until_gone(pid: int, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not gone(pid):
        assert time.monotonic() < deadline, f"p2pdice (pid {pid}) still runs after {timeout} s"
        time.sleep(0.2)


def every_copy(home: Path, folder: str) -> list[Path]:
    """The table's log, each seat's transcript and each CPU's copy."""
    base = home / folder
    return sorted(base.glob("host/hosted/*/log.jsonl")) + sorted(
        base.glob("**/tables/*/transcript.jsonl")
    )


@pytest.mark.parametrize(
    ("command", "folder", "cue", "how"),
    [
        (PRACTICE, "practice", "Your turn.", "the terminal closed"),
        (PRACTICE, "practice", "Your turn.", "SIGTERM"),
        (PASS_AND_PLAY, "pass-and-play", "press Space", "the terminal closed"),
    ],
    ids=["practice-closed-terminal", "practice-sigterm", "pass-and-play-closed-terminal"],
)
def test_closing_the_terminal_or_sigterm_ends_a_local_game_in_every_copy(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    folder: str,
    cue: str,
    how: str,
) -> None:
    t = tmux.Tmux()
    t.start([sys.executable, "-m", "p2pdice", *command, "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        t.wait_for(lambda s: cue in s, 30, "the game")
        pid = tmux.child_pid(t.pane_pid())
        assert pid is not None, t.screen()
        if how == "SIGTERM":
            os.kill(pid, signal.SIGTERM)
            wait_until_gone(pid, 20)
            screen = t.wait_for(lambda s: "Bids this round" not in s, 5, "the screen restored")
            assert "Terminated" not in screen, screen
        else:
            t.kill()  # the window closes: the program is sent SIGHUP, its terminal is gone
            wait_until_gone(pid, 20)
    finally:
        t.kill()
    copies = every_copy(tmp_path, folder)
    assert len(copies) == 4, copies  # the log, the people's copies, the CPUs'
    log = ended_game(copies[0])
    for path in copies:
        assert ended_game(path) == log
        capsys.readouterr()
        assert main(["verify", "--jobs", "1", str(path)]) == 0, capsys.readouterr().out
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()


def test_a_program_started_to_ignore_a_closed_terminal_plays_on(tmp_path: Path) -> None:
    """Under `nohup` (SIGHUP ignored from the start) the game is meant to outlive its
    terminal: the signal neither stops it nor ends its game."""
    ignoring = (
        "import os, signal, sys; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
        "os.execv(sys.executable, sys.argv[1:])"
    )
    t = tmux.Tmux()
    t.start([sys.executable, "-c", ignoring, sys.executable, "-m", "p2pdice", *PRACTICE,
             "--home", str(tmp_path)], stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        t.wait_for(lambda s: "Your turn." in s, 30, "the game")
        pid = tmux.child_pid(t.pane_pid())
        assert pid is not None, t.screen()
        os.kill(pid, signal.SIGHUP)
        time.sleep(1.0)
        assert not gone(pid) and "Your turn." in t.screen()
        copies = every_copy(tmp_path, "practice")
        assert copies and all('"game_over"' not in path.read_text() for path in copies)
    finally:
        t.kill()


@pytest.mark.usefixtures("private_network")
def test_a_table_hosted_here_stopped_by_sigterm_stays_resumable(tmp_path: Path) -> None:
    """Unlike a practice game, a hosted game is not ended by the signal: its log stops
    short of a `game_over`, and `host --resume` takes it up again."""
    home = tmp_path / "h"
    t = tmux.Tmux()
    t.start(p2pdice("host", "--seats", "2", "--cpu", "1", "--cpu-think", "0", "--player", "Ann",
                    "--bind", "127.0.0.1", "--no-advertise", "--home", str(home)),
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        t.wait_for(lambda s: "Your dice (" in s, 30, "the game under way")
        pid = tmux.child_pid(t.pane_pid())
        assert pid is not None, t.screen()
        os.kill(pid, signal.SIGTERM)
        wait_until_gone(pid, 20)
    finally:
        t.kill()
    [table_id] = [p.name for p in (home / "hosted").iterdir()]
    saved = load_saved_table(home, table_id)
    assert '"game_over"' not in saved.lines[-1].decode()
