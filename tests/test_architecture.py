"""The architecture holds: dependencies point down only (cli -> ui | net -> bots | store -> core,
ui and net independent, bots and store independent) and the core reaches no I/O, as the
import-linter contracts in pyproject.toml say."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """Runs import-linter with pyproject.toml's contracts on the p2pdice package under `root`.

    A child process, so the package it analyses is the one under `root`, not the one this test
    run has imported."""
    # A wide terminal keeps each reported import on one line.
    env = {**os.environ, "PYTHONPATH": str(root), "COLUMNS": "400"}
    command = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    return subprocess.run(
        [sys.executable, "-c", command, str(PYPROJECT), "--no-cache", "--no-logo"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_dependencies_point_down_and_the_core_reaches_no_io() -> None:
    result = lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def _copy_of_the_package(tmp_path: Path) -> Path:
    shutil.copytree(
        ROOT / "p2pdice", tmp_path / "p2pdice", ignore=shutil.ignore_patterns("__pycache__")
    )
    return tmp_path / "p2pdice"


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_contracts_catch_upward_sideways_and_io_imports(tmp_path: Path) -> None:
    package = _copy_of_the_package(tmp_path)
    _append(package / "core" / "rules.py", "from ..net import frames\nimport time\n")
    _append(package / "net" / "frames.py", "from p2pdice.ui import text\n")
    _append(package / "bots" / "easy.py", "import p2pdice.store\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    for reported in (
        "p2pdice.core.rules -> p2pdice.net.frames",
        "p2pdice.core.rules -> time",
        "p2pdice.net.frames -> p2pdice.ui.text",
        "p2pdice.bots.easy -> p2pdice.store",
    ):
        assert reported in result.stdout, reported


def test_a_new_top_level_module_must_be_given_a_layer(tmp_path: Path) -> None:
    package = _copy_of_the_package(tmp_path)
    (package / "helpers.py").write_text('"""Unplaced."""\n', encoding="utf-8")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "p2pdice.helpers" in result.stdout
