"""The package type-checks: mypy, configured in pyproject.toml (strict on the core, the defaults
elsewhere), reports no error."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def mypy(*arguments: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Runs mypy with pyproject.toml's configuration in a child process."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(PYPROJECT), *arguments],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_package_has_no_type_errors() -> None:
    result = mypy("p2pdice", cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_core_is_checked_strictly_and_the_rest_by_default(tmp_path: Path) -> None:
    untyped = "def double(x):\n    return x * 2\n"
    for package in ("p2pdice", "p2pdice/core", "p2pdice/bots"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "p2pdice/core/untyped.py").write_text(untyped, encoding="utf-8")
    (tmp_path / "p2pdice/bots/untyped.py").write_text(untyped, encoding="utf-8")
    result = mypy("--cache-dir", str(tmp_path / "cache"), "p2pdice", cwd=tmp_path)
    assert result.returncode == 1
    assert "p2pdice/core/untyped.py:1: error: Function is missing a type annotation" in (
        result.stdout
    )
    assert "bots" not in result.stdout
