"""A table hosted with `--home DIR` and paused prints a resume command that carries `--home
DIR`: its saved log is there, and the command printed without it looked in the default
folder ("no saved log for table ..."). The terminal client's farewell (q then p) and the
headless host's line (SIGTERM) alike; a real host in tmux at 80x24, and a real headless one."""

from __future__ import annotations

import shlex
import socket
import time
from pathlib import Path

import pytest

from p2pdice.cli.common import load_saved_table
from tests.support import tmux
from tests.support.procs import p2pdice, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")
def test_the_terminal_hosts_farewell_names_its_home(tmp_path: Path) -> None:
    home = tmp_path / "my home"
    host = tmux.Tmux()
    command = p2pdice(
        "host", "--seats", "2", "--cpu", "1", "--cpu-think", "3", "--player", "Ann",
        "--bind", "127.0.0.1", "--no-advertise", "--port", str(_free_port()),
        "--home", str(home),
    )  # fmt: skip
    try:
        host.start(command, stderr=tmp_path / "host.err")
        # Every seat is taken (Ann and the host's CPU): the game starts by itself.
        host.wait_for(lambda s: "Your dice (" in s, 30, "the game under way")
        [table_id] = [p.name for p in (home / "hosted").iterdir()]
        host.keys("q")
        host.wait_for(lambda s: "p pause the table" in s, 10, "the host's question")
        host.keys("p")
        expected = f"p2pdice host --resume {table_id} --home {shlex.quote(str(home))})"
        # The whole farewell (it may still be printing when "table paused" first shows),
        # however it was wrapped: at spaces by the farewell, inside the path by the terminal.
        bare = "".join(expected.split())
        host.wait_for(lambda s: bare in "".join(s.split()), 20, "the host's farewell")
    finally:
        host.kill()


def test_the_headless_hosts_pause_line_names_its_home(tmp_path: Path) -> None:
    home = tmp_path / "h"
    proc, ready = start_host(
        "--headless", "--seats", "3", "--no-advertise", "--bind", "127.0.0.1", "--home", str(home)
    )
    time.sleep(1)  # its stop signals are set up just after the ready line
    said = stop(proc)
    line = next(x for x in said.splitlines() if x.startswith("table paused"))
    command = line.split("resume it with ", 1)[1].split(" (or r", 1)[0]
    assert command == (
        f"p2pdice host --resume {ready['table_id']} --headless --home {shlex.quote(str(home))}"
    ), line
    saved = load_saved_table(Path(shlex.split(command)[-1]), ready["table_id"])
    assert saved.lines  # the folder named holds the table's log
