"""Start-up: `p2pdice --help` wall time, and time to the first paint of the terminal UI.

- `p2pdice --help`: the installed console script run N times in a row (like hyperfine: one
  warm-up run first), wall time per run. Baseline: `python -c pass`, same interpreter, same
  way. Target < 0.3 s.
- first paint: `p2pdice practice` in a fresh tmux server at 80x24 (P2PDICE_HOME in a fresh
  temporary folder), `tmux capture-pane -p` polled every 10 ms until the screen is not
  empty; from just before tmux is asked to start to the first non-empty capture. Baseline:
  the same for `python -c "print('ready')"` (tmux, the shell and the interpreter). Target
  < 0.6 s.

    python -m benchmarks.startup [--quick] [--json]
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import common
from .common import figure, stats


def console_script() -> list[str]:
    script = Path(sys.executable).with_name("p2pdice")
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "p2pdice"]  # pragma: no cover - not installed as a script


def wall_times(cmd: Sequence[str], runs: int) -> list[float]:
    subprocess.run(cmd, capture_output=True, check=True)  # warm-up: page cache, .pyc files
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        out.append(time.perf_counter() - start)
    return out


def first_paint(command: str, env: dict[str, str], timeout: float = 20.0) -> float:
    tmux = shutil.which("tmux")
    assert tmux is not None
    socket = f"p2pdice-bench-{uuid.uuid4().hex[:8]}"
    base = [tmux, "-L", socket, "-f", "/dev/null"]
    started = time.perf_counter()
    subprocess.run(
        [*base, "new-session", "-d", "-x", "80", "-y", "24", f"{command}; sleep 30"],
        check=True,
        env=env,
        cwd=common.ROOT,
        timeout=10,
    )
    try:
        while time.perf_counter() - started < timeout:
            screen = subprocess.run(
                [*base, "capture-pane", "-p"], capture_output=True, text=True, timeout=10
            ).stdout
            if screen.strip():
                return time.perf_counter() - started
            time.sleep(0.01)
        raise RuntimeError(f"nothing on screen after {timeout} s: {command}")
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True, timeout=10)


def run(*, quick: bool = False) -> dict[str, Any]:
    runs = 10 if quick else 20
    paints = 3 if quick else 10
    helps = wall_times([*console_script(), "--help"], runs)
    passes = wall_times([sys.executable, "-c", "pass"], runs)
    figures = [
        figure(
            "startup",
            "p2pdice --help wall time",
            "s",
            stats(helps),
            stats(passes),
            baseline_what="python -c pass",
            targets=[("< 0.3 s", "median", 0.3)],
            notes=f"{runs} runs after one warm-up",
        )
    ]
    text = []
    if shutil.which("tmux") is None:
        text.append("startup: tmux is not installed; first paint not measured")
    else:
        tui, ref = [], []
        with tempfile.TemporaryDirectory(prefix="p2pdice-bench-tui-") as tmp:
            env = {**os.environ, "LANG": "C.UTF-8", "TERM": "xterm-256color"}
            practice = shlex.join([*console_script(), "practice"])
            for rep in range(paints):
                home = Path(tmp) / f"home{rep}"
                tui.append(first_paint(practice, {**env, "P2PDICE_HOME": str(home)}))
                ref.append(first_paint(shlex.join([sys.executable, "-c", "print('ready')"]), env))
        figures.append(
            figure(
                "startup",
                "p2pdice practice: first paint in tmux 80x24",
                "s",
                stats(tui),
                stats(ref),
                baseline_what="tmux + python -c print, same polling",
                targets=[("< 0.6 s", "median", 0.6)],
                notes=f"{paints} runs, each with a fresh home folder",
            )
        )
    return {"figures": figures, "details": {"text": text}}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("startup", run, argv, needs_network=False)


if __name__ == "__main__":
    sys.exit(main())
