"""`browse --timeout`, `join --timeout` and `join --give-up` take a number of seconds above 0:
zero, a negative number, nan or inf is refused in one line naming the flag, exit status 2,
before anything listens or connects. Before, `browse --timeout -1` listened for no time and
said no tables were found, and `join --give-up -5` gave up at the first lost connection."""

from __future__ import annotations

import pytest

from p2pdice.cli import main


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["browse", "--timeout"], "--timeout"),
        (["join", "127.0.0.1:9", "--timeout"], "--timeout"),
        (["join", "127.0.0.1:9", "--bot", "easy", "--give-up"], "--give-up"),
    ],
)
@pytest.mark.parametrize("value", ["-1", "0", "-0.5", "nan", "inf"])
def test_a_duration_of_zero_or_less_is_refused_naming_the_flag(
    argv: list[str], flag: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*argv, value])
    err = capsys.readouterr().err
    assert exited.value.code == 2
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"argument {flag}: a number of seconds above 0, not {value}" in err, err


@pytest.mark.parametrize(
    ("argv", "dest"),
    [
        (["browse", "--timeout", "0.5"], "timeout"),
        (["join", "x", "--give-up", "2"], "give_up"),
    ],
)
def test_a_duration_above_zero_is_taken(argv: list[str], dest: str) -> None:
    from p2pdice.cli import build_parser

    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == float(argv[-1])
