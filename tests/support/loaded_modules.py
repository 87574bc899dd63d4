"""Which modules a piece of code imports, run in a fresh interpreter.

The start-up tests check what is imported rather than timing it (docs/benchmarks.md, "First
paint and `--help`"). The child runs `code`, which must end by printing
`json.dumps(sorted(sys.modules))` as its last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import p2pdice


def modules_loaded_by(code: str) -> list[str]:
    # The child imports the same p2pdice as this process (a worktree, not an installed copy).
    root = str(Path(p2pdice.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": path},
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded
