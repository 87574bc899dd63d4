"""Running the real `p2pdice` command in subprocesses (optionally inside a namespace), bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def p2pdice(*args: str, netns: str | None = None) -> list[str]:
    cmd = [sys.executable, "-m", "p2pdice", *args]
    return ["ip", "netns", "exec", netns, *cmd] if netns else cmd


def spawn(*args: str, netns: str | None = None, log: Path | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    out = open(log, "w") if log else subprocess.PIPE  # noqa: SIM115 - closed with the process
    return subprocess.Popen(
        p2pdice(*args, netns=netns), stdout=out, stderr=subprocess.STDOUT, text=True, env=env
    )


def start_host(
    *args: str, netns: str | None = None, timeout: float = 15.0
) -> tuple[subprocess.Popen[str], dict]:
    """`p2pdice host --json ...`; returns the process and its ready line."""
    # CPU seats answer at once here: the tests are about the protocol, not the pace.
    proc = spawn("host", "--json", "--cpu-think", "0", *args, netns=netns)
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            if proc.poll() is not None:
                raise AssertionError(f"host exited early with {proc.returncode}")
            continue
        if line.startswith("{"):
            return proc, json.loads(line)
    proc.kill()
    raise AssertionError("host did not report ready")


@contextmanager
def password_host(tmp_path: Path, password: str = "open sesame") -> Iterator[dict]:
    """A headless 2-seat loopback host whose table needs `password`; yields its ready line."""
    secret = tmp_path / "pw.txt"
    secret.write_text(password + "\n")
    host, ready = start_host(
        "--headless", "--seats", "2", "--bind", "127.0.0.1", "--no-advertise",
        "--password-file", str(secret), "--home", str(tmp_path / "h"),
    )  # fmt: skip
    try:
        yield ready
    finally:
        host.kill()
        host.wait(10)


def start_headless_host(
    home: Path,
    *,
    seats: int = 3,
    grace: int | None = None,
    bind: str = "127.0.0.1",
    netns: str | None = None,
) -> tuple[subprocess.Popen[str], dict]:
    """A headless host with one CPU seat, bound to `bind` and not advertised (players join it
    by address); `grace` sets its --grace-period. Returns the process and its ready line."""
    grace_args = ("--grace-period", str(grace)) if grace is not None else ()
    return start_host(
        "--headless",
        "--seats",
        str(seats),
        "--cpu",
        "1",
        *grace_args,
        "--no-advertise",
        "--bind",
        bind,
        "--home",
        str(home),
        netns=netns,
    )


def bot_join(
    address: str, *, name: str, seed: int, home: Path, give_up: int | None = None
) -> tuple[str, ...]:
    """The arguments of `p2pdice join ADDRESS` played by the medium bot, as `name` with `seed`
    on `home` (and `--give-up` after that many seconds without the host), for `spawn`."""
    give_up_args = ("--give-up", str(give_up)) if give_up is not None else ()
    return (
        "join",
        address,
        "--bot",
        "medium",
        "--name",
        name,
        "--seed",
        str(seed),
        *give_up_args,
        "--home",
        str(home),
    )


def kill_all(*procs: subprocess.Popen[str] | None) -> None:
    """SIGKILL and reap whichever of these processes still run (None: one never started)."""
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()


def stop(proc: subprocess.Popen[str], timeout: float = 10.0) -> str:
    if proc.poll() is None:
        proc.terminate()
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out or ""


def transcript_files(home: Path) -> list[Path]:
    return sorted(home.glob("tables/*/transcript.jsonl"))


def host_log(home: Path) -> Path:
    logs = sorted(home.glob("hosted/*/log.jsonl"))
    assert len(logs) == 1, logs
    return logs[0]


def finished_copy_of_the_hosts_log(player_home: Path, host_home: Path) -> list[bytes]:
    """The one transcript the player kept: byte for byte the host's log, a game that verifies
    and finished. Returns its lines for the checks that follow."""
    from p2pdice.core.verify import split_lines, verify_lines

    mine = transcript_files(player_home)
    assert len(mine) == 1, mine
    assert mine[0].read_bytes() == host_log(host_home).read_bytes()
    lines, problem = split_lines(mine[0].read_bytes())
    assert problem is None, problem
    report = verify_lines(lines)
    assert report.ok, report.failure and report.failure.describe()
    assert report.ended == "finished", report.ended
    return lines


def wait_until(done: Callable[[], object], timeout: float, what: str) -> None:
    """Poll `done` (every 0.05 s) until it holds; AssertionError naming `what` after `timeout`
    seconds: the bounded wait of the tests that watch real processes and their files."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.05)


def log_lines(path: Path) -> int:
    """How many whole lines a log or transcript holds so far (0 before it exists)."""
    from p2pdice.store import AppendLog

    return len(AppendLog.read(path)) if path.exists() else 0
