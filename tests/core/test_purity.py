"""The core is sans-I/O: it may not import anything that reaches the world, nor call the builtins
that do.

The import-linter contracts in pyproject.toml (run by tests/test_architecture.py) are the main
check; this one reads the same forbidden list, resolves relative imports itself (so
`from ..net import x` is caught here too) and covers what the contracts cannot: an import of
the package's root (`from .. import x` is in no layer), and calls of the builtins that reach
the world (open, print, input, dynamic imports and code).
"""

from __future__ import annotations

import ast
import importlib.util
import tomllib
from pathlib import Path

import p2pdice.core

ROOT = Path(__file__).resolve().parents[2]
CORE = "p2pdice.core"
BUILTINS_THAT_REACH_THE_WORLD = frozenset(
    {"open", "print", "input", "breakpoint", "__import__", "exec", "eval", "compile"}
)


def _forbidden_modules() -> frozenset[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    (contract,) = [
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["type"] == "forbidden" and CORE in c["source_modules"]
    ]
    return frozenset(contract["forbidden_modules"])


FORBIDDEN = _forbidden_modules()


def imported_modules(tree: ast.Module, module: str, *, is_package: bool) -> set[str]:
    """The absolute names `module` imports; `from .x import y` and `from .. import y` resolved
    against its package (for `from <package> import y`, y may be a submodule: both are named)."""
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package)
            if node.module is None:
                names.update(f"{base}.{alias.name}" for alias in node.names)
            else:
                names.add(base)
    return names


def offending_imports(tree: ast.Module, module: str, *, is_package: bool) -> set[str]:
    """The imports of `module` that leave the core for the rest of p2pdice or reach the world."""
    return {
        name
        for name in imported_modules(tree, module, is_package=is_package)
        if name.split(".")[0] in FORBIDDEN
        or (name.split(".")[0] == "p2pdice" and name != CORE and not name.startswith(CORE + "."))
    }


def worldly_calls(tree: ast.Module) -> set[str]:
    """The builtins that reach the world (files, terminal, dynamic code) `tree` calls by name."""
    return {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in BUILTINS_THAT_REACH_THE_WORLD
    }


def _core_modules() -> list[tuple[str, Path]]:
    folder = Path(p2pdice.core.__file__).parent
    modules = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules.append((".".join((CORE, *parts)), path))
    return modules


def test_core_imports_nothing_that_touches_the_world() -> None:
    modules = _core_modules()
    assert len(modules) >= 5
    offenders = {}
    for module, path in modules:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = offending_imports(tree, module, is_package=path.name == "__init__.py")
        found |= worldly_calls(tree)
        if found:
            offenders[module] = sorted(found)
    assert offenders == {}


def test_the_check_catches_a_forbidden_absolute_import() -> None:
    tree = ast.parse(
        "import os\nimport os.path\nfrom time import monotonic\nfrom asyncio import sleep\n"
        "import p2pdice.net.frames\nfrom p2pdice.core.rules import Rules\nimport hashlib\n"
    )
    assert offending_imports(tree, "p2pdice.core.bad", is_package=False) == {
        "os",
        "os.path",
        "time",
        "asyncio",
        "p2pdice.net.frames",
    }


def test_the_check_catches_a_relative_import_that_leaves_the_core() -> None:
    tree = ast.parse(
        "from ..net import frames\nfrom .. import cli\nfrom .. import PROTOCOL_VERSION\n"
        "from .rules import Rules\nfrom . import game\nfrom .sub import x\n"
    )
    assert offending_imports(tree, "p2pdice.core.bad", is_package=False) == {
        "p2pdice.net",
        "p2pdice.cli",
        "p2pdice.PROTOCOL_VERSION",
    }
    # In a package's __init__, `.` is the package itself, so `..` leaves it.
    package_init = ast.parse("from . import game\nfrom ..store import AppendLog\n")
    assert offending_imports(package_init, "p2pdice.core", is_package=True) == {"p2pdice.store"}


def test_the_check_catches_a_builtin_that_reaches_the_world() -> None:
    tree = ast.parse("open('f').read()\nprint(1)\nself.print(2)\nlen([])\n__import__('os')\n")
    assert worldly_calls(tree) == {"open", "print", "__import__"}
