"""`p2pdice verify ... | head -1`: once the reader has gone, the command stops with status 0
and no traceback, as coreutils do, rather than failing the pipeline."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from p2pdice.cli import main
from tests.support.procs import p2pdice


def test_verify_into_a_reader_that_stops_early_exits_0(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    argv = ["simulate", "--protocol", "--seats", "2", "--games", "3", "--seed", "2"]
    assert main([*argv, "--transcripts", str(folder), "--json"]) == 0
    files = [str(p) for p in sorted(folder.iterdir())]
    proc = subprocess.Popen(
        p2pdice("verify", *files),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()  # `head -1`: one line, then the reader is gone
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0, err
    assert b"verified" in first
    assert err == b""
