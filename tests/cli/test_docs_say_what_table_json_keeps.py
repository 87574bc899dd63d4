"""docs/lan.md says what a hosted table's `table.json` keeps, and it is what a real host
writes: the name, CPU seats, the password's verifier (never the password), the port and the
CPU seats' pause."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.procs import password_host

ROOT = Path(__file__).resolve().parents[2]


def _the_docs_line() -> str:
    text = " ".join((ROOT / "docs" / "lan.md").read_text(encoding="utf-8").split())
    match = re.search(r"`table\.json` what `--resume` needs \(([^)]*)\)", text)
    assert match, "docs/lan.md lists what table.json keeps"
    return match[1]


def test_table_json_keeps_a_verifier_and_the_docs_say_so(tmp_path: Path) -> None:
    with password_host(tmp_path, "open sesame") as ready:
        [saved] = (tmp_path / "h" / "hosted").glob("*/table.json")
        record = json.loads(saved.read_text(encoding="utf-8"))
        assert ready["port"] == record["port"]
    assert "open sesame" not in saved.read_text(encoding="utf-8")
    assert set(record) == {"name", "cpu", "password_verifier", "port", "cpu_think"}
    said = _the_docs_line()
    parts = [part.strip() for part in said.split(",")]
    assert "password" not in parts  # it does not keep the password
    assert "verifier" in said and "never the password" in said
    assert "name" in said and "CPU seats" in said and "port" in said and "pause" in said
