"""`host --resume ID` with a rules flag (or `--preset`, `--cpu` or `--name`) that differs from
what the saved table was opened with is refused in one line naming each such flag and what
the table keeps, exit status 2, before anything starts: a resumed table's rules are fixed in
its log (its CPU seats and name in its record). Before, `--seats 5` and the like were
silently ignored.
A flag that says what the table already has is taken (a script may repeat its command line
with --resume), and flags that are not rules (--port, --bind, --home, --player, --cpu-think,
--headless) are taken as for a new table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice import cli
from p2pdice.core.rules import Rules, preset
from tests.cli.stand_in_host_service import TABLE_ID, StandInHostService, stand_in_host_service

SAVED = preset("classic", seats=3, turn_timer=60)


def _saved(home: Path, rules: Rules | None = SAVED, cpu: tuple[str, ...] = ("hard",)) -> None:
    folder = home / "hosted" / TABLE_ID
    folder.mkdir(parents=True)
    genesis = {"seq": 0, "event": {"type": "genesis", "rules": rules.to_json()}} if rules else {}
    (folder / "log.jsonl").write_text(json.dumps(genesis) + "\n")
    (folder / "table.json").write_text(
        json.dumps({"name": "Kitchen", "cpu": list(cpu), "password_verifier": None})
    )


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[StandInHostService]:
    return stand_in_host_service(monkeypatch, SAVED).started


def _resume(home: Path, *flags: str, headless: bool = True) -> int:
    argv = ["host", *(["--headless"] if headless else []), "--no-advertise", "--home", str(home)]
    return cli.main([*argv, "--resume", TABLE_ID[:8], *flags])


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--seats", "5"], "--seats 5: a resumed table keeps the rules fixed in its log "
         "(seats 3); leave it out with --resume"),
        (["--turn-timer", "30", "--exact-call", "--seats", "3"],
         "--exact-call, --turn-timer 30: a resumed table keeps the rules fixed in its log "
         "(exact call off, turn timer 60 s); leave them out with --resume"),
        (["--preset", "perudo"], "--preset perudo: a resumed table keeps the rules fixed in "
         "its log (ones wild, exact call off, palifico off)"),
        (["--ones", "natural"], "--ones natural: a resumed table keeps the rules"),
        (["--cpu", "2"], "--cpu 2: a resumed table keeps the CPU seats it was opened with "
         "(hard); leave it out with --resume"),
        (["--name", "Attic"], "--name Attic: a resumed table keeps the name it was opened "
         "with ('Kitchen'); leave it out with --resume"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("headless", [True, False])
def test_a_flag_that_would_change_the_saved_table_is_refused_and_nothing_starts(
    tmp_path: Path,
    started: list[StandInHostService],
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    says: str,
    headless: bool,
) -> None:
    _saved(tmp_path)
    assert _resume(tmp_path, *flags, headless=headless) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"p2pdice host: error: {says}" in err, err
    assert started == []


def test_a_rules_flag_is_refused_when_the_saved_log_holds_no_rules(
    tmp_path: Path, started: list[StandInHostService], capsys: pytest.CaptureFixture[str]
) -> None:
    _saved(tmp_path, rules=None)
    assert _resume(tmp_path, "--seats", "3") == 2
    assert "--seats 3: a resumed table keeps the rules fixed in its log;" in capsys.readouterr().err
    assert started == []


def test_flags_that_say_what_the_table_has_and_flags_that_are_no_rules_are_taken(
    tmp_path: Path, started: list[StandInHostService], capsys: pytest.CaptureFixture[str]
) -> None:
    _saved(tmp_path)
    same = ["--preset", "classic", "--seats", "3", "--turn-timer", "60", "--no-exact-call"]
    others = [
        "--name",
        "Kitchen",
        "--port",
        "0",
        "--bind",
        "127.0.0.1",
        "--cpu-think",
        "0",
        "--cpu",
        "1:hard",
    ]
    assert _resume(tmp_path, *same, *others) == 0, capsys.readouterr().err
    assert len(started) == 1
    assert "table 'Kitchen' open on port 4242" in capsys.readouterr().out
