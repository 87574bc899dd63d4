"""`host --first-starter seat5 --start-when 2` is refused in one line before anything opens:
the start is refused while the named seat is empty, so such a table reached two seats and
then waited in silence (only typing `start` said why)."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.cli import main


def test_a_start_when_below_the_first_starters_seat_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = str(tmp_path / "h")
    args = ["host", "--headless", "--no-advertise", "--home", home, "--first-starter", "seat5"]
    assert main([*args, "--start-when", "2"]) == 2
    err = capsys.readouterr().err
    assert "--start-when 2: --first-starter seat5 has seat 5 open round 1" in err, err
    assert "needs 6 seats taken" in err, err
    assert not (tmp_path / "h" / "hosted").exists()  # nothing was opened
