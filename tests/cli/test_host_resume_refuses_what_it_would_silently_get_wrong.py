"""`host --resume` refuses, in one line and before anything starts, what it would otherwise
get wrong without a word: an empty id (a script's unset variable, which opened a brand-new
table), a `--password-file` (the table keeps its own password), and a `--start-when` beyond
the saved table's seats (checked against six, the table then never started by itself). A
short id shared with finished tables means the one table that can be resumed. And a start
that names an opener's seat is fine with `--fill-cpu`, whose CPUs take that seat."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice import cli
from p2pdice.cli.common import saved_table_id
from tests.cli.stand_in_host_service import TABLE_ID, StandInHostService, stand_in_host_service
from tests.cli.test_a_resumed_table_refuses_rules_flags import SAVED, _saved


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[StandInHostService]:
    return stand_in_host_service(monkeypatch, SAVED).started


def _host(home: Path, *flags: str) -> int:
    return cli.main(["host", "--headless", "--no-advertise", "--home", str(home), *flags])


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--resume", ""], "--resume : not a table id"),
        (["--resume", TABLE_ID[:8], "--password-file", "PW"],
         "--password-file: a resumed table keeps the password it was opened with"),
        (["--resume", TABLE_ID[:8], "--start-when", "5"],
         "--start-when: between 2 and 3 (the table's --seats)"),
    ],
)  # fmt: skip
def test_resume_refuses_it_in_one_line_and_starts_nothing(
    tmp_path: Path,
    started: list[StandInHostService],
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    says: str,
) -> None:
    _saved(tmp_path)
    (tmp_path / "PW").write_text("hunter2\n")
    flags = [str(tmp_path / f) if f == "PW" else f for f in flags]
    assert _host(tmp_path, *flags) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err
    assert started == []


def test_a_start_that_names_the_openers_seat_is_taken_when_cpus_fill_it(
    tmp_path: Path, started: list[StandInHostService], capsys: pytest.CaptureFixture[str]
) -> None:
    flags = ["--seats", "4", "--start-when", "2", "--first-starter", "seat3"]
    assert _host(tmp_path, *flags) == 2  # nobody would ever sit in seat 3
    assert "needs 4 seats taken to start" in capsys.readouterr().err
    assert _host(tmp_path, *flags, "--fill-cpu", "easy") == 0
    assert len(started) == 1


def test_a_short_id_means_the_one_table_that_can_be_resumed(tmp_path: Path) -> None:
    _saved(tmp_path)  # unfinished: its log has no game_over
    done = tmp_path / "hosted" / (TABLE_ID[:8] + "0" * 56)
    done.mkdir()
    over = {"seq": 1, "event": {"type": "game_over", "reason": "finished"}}
    (done / "log.jsonl").write_text(json.dumps({"seq": 0}) + "\n" + json.dumps(over) + "\n")
    (done / "table.json").write_text(json.dumps({"name": "Old", "cpu": []}))
    assert saved_table_id(tmp_path, TABLE_ID[:8]) == TABLE_ID
