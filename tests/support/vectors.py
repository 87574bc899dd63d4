"""The one way tests read protocol/ files: vectors, schemas and the spec."""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

PROTOCOL = Path(__file__).resolve().parents[2] / "protocol"
VECTORS = PROTOCOL / "vectors" / "v1"
SCHEMAS = PROTOCOL / "schemas" / "v1"


@cache
def load_vectors(name: str) -> dict[str, Any]:
    """A vector file, checked for its envelope (declared count matches)."""
    data = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    count = sum(len(g["tests"]) for g in data["test_groups"])
    assert count == data["number_of_tests"], (
        f"{name}: number_of_tests says {data['number_of_tests']}, has {count}"
    )
    return data


def cases(
    name: str, group_filter: str | None = None
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(group, test) pairs of a vector file, optionally only groups whose comment mentions a word."""
    for group in load_vectors(name)["test_groups"]:
        if group_filter and group_filter not in group.get("comment", ""):
            continue
        for test in group["tests"]:
            yield group, test


def case_ids(name: str, group_filter: str | None = None) -> list[str]:
    return [f"tc{t['tc_id']}" for _, t in cases(name, group_filter)]


@cache
def load_schema(relative: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / relative).read_text(encoding="utf-8"))
