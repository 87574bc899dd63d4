"""Coverage-guided fuzzing with atheris (when it is installed): frames to the host and
entries to a client never crash them, refused inputs change nothing, memory stays flat."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytest.importorskip("atheris", reason="atheris is optional (pip install '.[fuzz]')")

RUNS = 8000


@pytest.mark.parametrize("target", ["host", "client"])
def test_atheris_finds_nothing(target: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "fuzz", target, f"-atheris_runs={RUNS}", "-seed=1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    match = re.search(r"fuzz \w+: (\d+) inputs, RSS grew (-?[\d.]+) MiB", proc.stderr)
    assert match, proc.stderr[-2000:]
    inputs, grown = int(match[1]), float(match[2])
    print(f"atheris {target}: {inputs} inputs, RSS {grown:+.1f} MiB")
    assert inputs >= RUNS
    assert grown < 10
