"""protocol/unicode's plain-text Unicode 14.0.0 files (assigned code points, marks, case
folding) are the data the core's name rule uses (SPEC.md 10.5), and what gen_names.py writes:
an implementation on a later Unicode version, or without case folding, loads them instead."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
from itertools import pairwise
from pathlib import Path

import pytest

from p2pdice.core import name_tables
from p2pdice.core.names import name_key, skeleton
from tests.support.vectors import PROTOCOL, cases

UNICODE = PROTOCOL / "unicode"
VERSION = name_tables.UNICODE_VERSION
FILES = [f"assigned-{VERSION}.txt", f"marks-{VERSION}.txt", f"casefold-{VERSION}.txt"]


def _data_lines(name: str) -> list[str]:
    lines = (UNICODE / name).read_text(encoding="utf-8").splitlines()
    assert lines[0].startswith(f"# {name}: ") and "gen_names.py" in "\n".join(lines[:12])
    return [line for line in lines if line and not line.startswith("#")]


def _file_ranges(name: str) -> list[tuple[int, int]]:
    """A ranges file read as another implementation would: "XXXX..YYYY" or "XXXX"."""
    pairs = []
    for line in _data_lines(name):
        lo, _, hi = line.partition("..")
        pairs.append((int(lo, 16), int(hi or lo, 16)))
    return pairs


def _table_ranges(text: str) -> list[tuple[int, int]]:
    """A name_tables range string ("41-5A 61") as pairs."""
    pairs = []
    for item in text.split():
        lo, _, hi = item.partition("-")
        pairs.append((int(lo, 16), int(hi or lo, 16)))
    return pairs


def _file_folding() -> dict[str, str]:
    folding = {}
    for line in _data_lines(f"casefold-{VERSION}.txt"):
        code, status, mapping, comment = (field.strip() for field in line.split(";"))
        target = "".join(chr(int(h, 16)) for h in mapping.split())
        assert status == ("C" if len(target) == 1 else "F"), line
        assert comment.startswith("#"), line
        assert chr(int(code, 16)) not in folding, line
        folding[chr(int(code, 16))] = target
    return folding


def _assigned() -> list[str]:
    return [chr(cp) for lo, hi in _table_ranges(name_tables.ASSIGNED) for cp in range(lo, hi + 1)]


def test_the_assigned_file_is_the_core_assigned_table() -> None:
    assert _file_ranges(f"assigned-{VERSION}.txt") == _table_ranges(name_tables.ASSIGNED)


def test_the_marks_file_is_the_core_marks_table() -> None:
    assert _file_ranges(f"marks-{VERSION}.txt") == _table_ranges(name_tables.MARKS)


def test_the_ranges_are_sorted_and_apart() -> None:
    for name in FILES[:2]:
        pairs = _file_ranges(name)
        assert all(lo <= hi for lo, hi in pairs)
        assert all(a[1] + 1 < b[0] for a, b in pairwise(pairs)), name


def test_the_casefold_file_is_the_folding_the_core_applies_to_every_assigned_code_point() -> None:
    """names.py folds with str.casefold: for each code point assigned in 14.0.0 it gives the
    file's mapping, or the code point itself when the file has none."""
    folding = _file_folding()
    assigned = _assigned()
    assert set(folding) <= set(assigned)
    differing = [ch for ch in assigned if folding.get(ch, ch) != ch.casefold()]
    assert differing == [], [f"U+{ord(ch):04X}" for ch in differing[:10]]
    assert folding["\u00df"] == "ss" and folding["\u0130"] == "i\u0307", "full folding"
    assert "\u13a0" not in folding and folding["\uab70"] == "\u13a0", "Cherokee folds up"


def _key_from_the_files(name: str, folding: dict[str, str]) -> str:
    """SPEC.md 10.5's key with case folding taken from the file, code point by code point."""

    def fold(text: str) -> str:
        return "".join(folding.get(ch, ch) for ch in text)

    return skeleton(fold(skeleton(fold(skeleton(unicodedata.normalize("NFKC", name))))))


def test_the_key_computed_with_the_casefold_file_is_the_core_key() -> None:
    """On every assigned code point as a name, and on the names of names.json."""
    folding = _file_folding()
    names = _assigned() + [t["name"] for _, t in cases("names.json")]
    names += [s for _, t in cases("names.json", "against the seated") for s in t["seated"]]
    differing = [n for n in names if _key_from_the_files(n, folding) != name_key(n)]
    assert differing == [], [" ".join(f"U+{ord(c):04X}" for c in n) for n in differing[:10]]


@pytest.mark.skipif(
    unicodedata.unidata_version != VERSION,
    reason="the generator reads the Unicode 14.0.0 database (Python 3.11's unicodedata)",
)
def test_the_generator_writes_the_shipped_files_byte_for_byte(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, str(PROTOCOL / "gen_names.py"), "--out", str(tmp_path),
         "--tables", str(tmp_path / "name_tables.py"), "--unicode", str(tmp_path / "unicode")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in (tmp_path / "unicode").iterdir()) == sorted(FILES)
    for name in FILES:
        assert (tmp_path / "unicode" / name).read_bytes() == (UNICODE / name).read_bytes(), name
