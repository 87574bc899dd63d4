"""The core is sans-I/O: it may not import anything that reaches the world."""

from __future__ import annotations

import ast
from pathlib import Path

import p2pdice.core

FORBIDDEN = {
    "asyncio",
    "aiohttp",
    "zeroconf",
    "prompt_toolkit",
    "socket",
    "os",
    "pathlib",
    "time",
    "random",
    "secrets",
    "threading",
    "subprocess",
    "io",
    "shutil",
    "tempfile",
    "select",
    "signal",
    "multiprocessing",
    "datetime",
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_imports_nothing_that_touches_the_world() -> None:
    core = Path(p2pdice.core.__file__).parent
    files = sorted(core.rglob("*.py"))
    assert len(files) >= 5
    offenders = {
        str(f.relative_to(core)): sorted(_imports(f) & FORBIDDEN)
        for f in files
        if _imports(f) & FORBIDDEN
    }
    assert offenders == {}


def test_the_check_itself_catches_a_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("import os\nfrom time import monotonic\nfrom asyncio import sleep\n")
    assert _imports(bad) & FORBIDDEN == {"os", "time", "asyncio"}
