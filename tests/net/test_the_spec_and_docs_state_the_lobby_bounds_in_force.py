"""SPEC.md 10.4 and docs/lan.md state the bounds a reader of advertisements keeps: the
figures they give are the constants the code uses."""

from __future__ import annotations

from pathlib import Path

from p2pdice.core.advert import SHORT_ID_CHARS
from p2pdice.net.discovery import LOOKUP_RETRY_AFTER, MAX_PER_SENDER, MAX_TABLES, MAX_WAITING
from p2pdice.net.resolve import LISTING_BYTES, LISTING_ROWS
from p2pdice.ui.lobbymodel import GROUP_OVER

ROOT = Path(__file__).resolve().parents[2]


def flat(path: str) -> str:
    return " ".join((ROOT / path).read_text().split())


def test_the_spec_gives_the_bounds_the_code_keeps() -> None:
    spec = flat("protocol/SPEC.md")
    assert f"this implementation: {MAX_TABLES}, {MAX_PER_SENDER} per sender address" in spec
    assert f"at most {LISTING_BYTES // 1024} KiB and {LISTING_ROWS} rows" in spec
    assert f"The first {SHORT_ID_CHARS} hex digits of the table id (the **short id**" in spec


def test_the_lan_guide_gives_the_bounds_the_code_keeps() -> None:
    lan = flat("docs/lan.md")
    assert f"at most {MAX_TABLES} tables, at most {MAX_PER_SENDER} of them" in lan
    assert f"more than {GROUP_OVER} tables is **one row**" in lan
    assert f"read up to {LISTING_BYTES // 1024} KiB and its first {LISTING_ROWS} rows" in lan
    pauses = ", ".join(f"{p:g}" for p in LOOKUP_RETRY_AFTER[:-1])
    assert f"again after {pauses} and {LOOKUP_RETRY_AFTER[-1]:g} s" in lan
    assert f"at most {MAX_WAITING} names wait for such a retry" in lan
