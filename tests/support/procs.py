"""Running the real `p2pdice` command in subprocesses (optionally inside a namespace), bounded."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
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
    proc = spawn("host", "--json", *args, netns=netns)
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
