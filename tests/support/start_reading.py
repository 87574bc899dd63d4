"""The independent reading of SPEC.md 3.3 (protocol/gen_vectors.py, the generator's own
statement of the spec) and what it needs from a transcript: the seats joined before the start."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def independent_reading() -> ModuleType:
    """protocol/gen_vectors.py, the generator-side statement of the SPEC, loaded as a module."""
    spec = importlib.util.spec_from_file_location("gen_vectors", ROOT / "protocol/gen_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_vectors", module)
    spec.loader.exec_module(module)
    return module


def joins_before(lines: list[bytes], at_start: int) -> dict[int, dict]:
    """The seats taken when the start entry (line `at_start`) was written: each signed join
    of the lobby, less the seats whose players left it, as start_refusal reads them."""
    joins: dict[int, dict] = {}
    for line in lines[:at_start]:
        entry = json.loads(line)
        body = (entry.get("msg") or {}).get("body") or {}
        if body.get("type") == "join":
            joins[body["seat"]] = {k: body[k] for k in ("cpu", "host_run", "key", "name", "seat")}
        elif (entry.get("event") or {}).get("type") == "leave":
            del joins[entry["event"]["seat"]]
    return joins
