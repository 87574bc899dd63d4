"""`simulate --seats N` as `host` and `tournament` spell it; the old `--players N` still
works, says it is now `--seats`, and is not offered in --help."""

from __future__ import annotations

import json

import pytest

from p2pdice.cli import main


def _seats_played(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    assert main(["simulate", "--games", "1", "--json", *argv]) == 0
    out, err = capsys.readouterr()
    return len(json.loads(out.splitlines()[-1])["wins"]), err


def test_simulate_takes_seats(capsys: pytest.CaptureFixture[str]) -> None:
    seats, err = _seats_played(capsys, "--seats", "3")
    assert seats == 3 and err == ""


def test_the_old_players_flag_still_sets_the_seats_with_a_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seats, err = _seats_played(capsys, "--players", "5")
    assert seats == 5
    assert "--players is now --seats" in err


def test_help_offers_only_seats(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["simulate", "--help"])
    out = capsys.readouterr().out
    assert "--seats N" in out and "--players" not in out
