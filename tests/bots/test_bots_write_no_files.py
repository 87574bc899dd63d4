"""The bots decide and play; they write no files: a caller that wants a game's log kept is
handed the lines (simulate_protocol's `save`) and stores them itself."""

from __future__ import annotations

import ast
from pathlib import Path

import p2pdice.bots

BOTS = Path(p2pdice.bots.__file__).resolve().parent
#: Modules and calls through which Python code reaches the file system.
FILE_MODULES = frozenset({"io", "os", "pathlib", "shutil", "tempfile"})
FILE_CALLS = frozenset(
    {"open", "write_bytes", "write_text", "read_bytes", "read_text", "mkdir", "unlink", "rename"}
)


def file_io(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, code) of each import of a file-system module and each call that reaches files."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        elif isinstance(node, ast.Call):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            names = [] if called not in FILE_CALLS else ["call"]
        else:
            continue
        if any(name == "call" or name.split(".")[0] in FILE_MODULES for name in names):
            found.append((node.lineno, ast.unparse(node)))
    return found


def test_the_check_finds_file_writes() -> None:
    written = "from pathlib import Path\n(Path(d) / 'g.jsonl').write_bytes(b'')\nopen('x', 'w')"
    assert len(file_io(ast.parse(written))) == 3
    assert file_io(ast.parse("import random\nrandom.Random(1).random()")) == []


def test_no_bot_module_touches_files() -> None:
    found = {
        path.name: hits
        for path in sorted(BOTS.rglob("*.py"))
        if (hits := file_io(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert found == {}
