"""The package type-checks: mypy, configured in pyproject.toml (strict on the core, the defaults
elsewhere), reports no error in it, nor in the benchmarks, the fuzz targets or the tests'
shared helpers, which reach into it from outside and break first when it changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
#: Checked besides the package: a benchmark driving a method the client no longer has is a
#: type error long before anyone runs the benchmark.
AROUND = ("benchmarks", "fuzz", "tests/support")


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


def test_the_package_and_the_code_around_it_have_no_type_errors() -> None:
    result = mypy(cwd=ROOT)  # no paths: the configured `files`
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_benchmarks_fuzz_targets_and_test_helpers_are_checked(tmp_path: Path) -> None:
    for folder in ("p2pdice", *AROUND):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "__init__.py").write_text("", encoding="utf-8")
        (tmp_path / folder / "wrong.py").write_text('count: int = "one"\n', encoding="utf-8")
    (tmp_path / "tests/__init__.py").write_text("", encoding="utf-8")
    result = mypy("--cache-dir", str(tmp_path / "cache"), cwd=tmp_path)
    assert result.returncode == 1
    for folder in AROUND:
        assert f"{folder}/wrong.py:1: error: Incompatible types in assignment" in result.stdout


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
