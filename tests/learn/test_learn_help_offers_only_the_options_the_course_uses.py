"""`p2pdice learn --help` offers no option the course sets itself (time bank, undo, first
starter: the graded match has none of them to choose), and refuses them when given, rather
than ignoring them (first-time user report: `--time-bank ... (default 180)`, and
`--first-starter` describing "the host's own seat")."""

from __future__ import annotations

import pytest

from p2pdice.cli import main


def test_learn_help_has_no_time_bank_undo_first_starter_or_host(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["learn", "--help"])
    text = capsys.readouterr().out
    for flag in ("--time-bank", "--undo", "--first-starter"):
        assert flag not in text
    assert "host" not in text
    assert "judgement drill's tables" in text  # what --seats still sizes


@pytest.mark.parametrize("flag", [["--time-bank", "60"], ["--undo"], ["--first-starter", "seat1"]])
def test_an_option_the_course_sets_is_refused_and_says_why(flag, tmp_path, capsys) -> None:
    code = main(["learn", "--list", "--home", str(tmp_path), *flag])
    assert code == 2
    assert "the course sets it itself" in capsys.readouterr().err
