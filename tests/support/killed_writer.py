"""kill -9 a process that rewrites one file over and over, and hand back what it left."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path


def killed_mid_write(code: str, home: Path, target: Path, *, times: int = 5) -> Iterator[bytes]:
    """Run `code` (given `home` as argv[1]; it prints "writing" and then keeps rewriting
    `target`) `times` times, each killed with SIGKILL among its writes; yields the bytes of
    `target` after each kill."""
    for _ in range(times):
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(home)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert proc.stdout is not None and proc.stdout.readline() == "writing\n"
            deadline = time.monotonic() + 20  # a busy machine may take a while to its first write
            while not target.exists() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.3)  # then the kill lands among later writes
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        yield target.read_bytes()
