"""Without root only the benchmarks that open no socket run: the docs name exactly those."""

from __future__ import annotations

import re
from pathlib import Path

import benchmarks.__main__ as bench

ROOT = Path(__file__).resolve().parent.parent


def _named_lists(text: str) -> list[list[str]]:
    """Each `--only A,B` list written where the text says no socket is opened."""
    found = re.findall(
        r"--only[` ]+([a-z_]+(?:,[a-z_]+)+)`?\W+\(?no socket", " ".join(text.split())
    )
    found += re.findall(r"no socket can run: --only ([a-z_]+(?:,[a-z_]+)+)", " ".join(text.split()))
    return [m.split(",") for m in found]


def test_the_benchmarks_without_sockets_are_the_ones_the_docs_name() -> None:
    expected = bench.socketless()
    assert expected and all(not bench.BENCHMARKS[n][1] for n in expected)
    for source in (ROOT / "docs" / "benchmarks.md", ROOT / "benchmarks" / "__main__.py"):
        text = source.read_text(encoding="utf-8")
        named = _named_lists(text)
        assert named, f"{source.name} names no list of socketless benchmarks"
        for names in named:
            assert names == expected, (source.name, names)
