"""`p2pdice verify` on a log whose final line feed is missing reports the cut-off line as
JSON_SYNTAX rather than taking it whole (SPEC.md 9)."""

from __future__ import annotations

from pathlib import Path

from p2pdice.cli.verify import verify_file
from p2pdice.core.errors import Reason


def test_a_cut_off_last_line_is_reported_as_such(tmp_path: Path) -> None:
    from tests.support.cheats import Game

    g = Game(seed=1).start()
    g.play()
    path = tmp_path / "cut.jsonl"
    data = b"".join(line + b"\n" for line in g.host.lines())
    path.write_bytes(data[:-1])  # the final line feed is missing
    report = verify_file(path, partial=False, mine=None)
    assert report.failure is not None and report.failure.reason == Reason.JSON_SYNTAX
