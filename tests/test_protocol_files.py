"""The files under protocol/ are well-formed, match their schemas and are what the generators write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.support.vectors import PROTOCOL, SCHEMAS, VECTORS, load_schema, load_vectors

VECTOR_FILES = sorted(p.name for p in VECTORS.glob("*.json"))


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_vector_file_matches_its_schema(name: str) -> None:
    schema = load_schema(f"vectors/{name.removesuffix('.json')}.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(load_vectors(name))


def test_every_schema_is_valid_draft_2020_12() -> None:
    import json

    schemas = sorted(SCHEMAS.rglob("*.schema.json"))
    assert len(schemas) >= len(VECTOR_FILES)
    for path in schemas:
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


@pytest.mark.parametrize("generator", ["gen_vectors.py", "gen_rules_vectors.py"])
def test_generators_reproduce_the_committed_vectors(generator: str, tmp_path: Path) -> None:
    """CI re-runs each generator; any file it would change means the vectors are stale."""
    proc = subprocess.run(
        [sys.executable, str(PROTOCOL / generator), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    written = sorted(tmp_path.glob("*.json"))
    assert written
    for path in written:
        assert path.read_bytes() == (VECTORS / path.name).read_bytes(), f"{path.name} is stale"


@pytest.mark.parametrize("generator", ["gen_vectors.py", "gen_rules_vectors.py"])
def test_generators_do_not_import_the_package(generator: str) -> None:
    import ast

    tree = ast.parse((PROTOCOL / generator).read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in getattr(node, "names", [])
    }
    assert not any(name.split(".")[0] == "p2pdice" for name in imported)
