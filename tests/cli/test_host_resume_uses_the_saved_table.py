"""`host --resume` takes the saved table (its name, CPU seats, password verifier and rules from
hosted/<id>/), and refuses a missing or corrupt `table.json` or a missing log in one clear
line, before anything is started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice import cli
from p2pdice.cli.common import load_saved_table
from p2pdice.cli.options import CliError
from p2pdice.core.rules import Rules
from tests.cli.stand_in_host_service import TABLE_ID, StandInHostService, stand_in_host_service


def _saved(home: Path, table_json: str | None) -> Path:
    folder = home / "hosted" / TABLE_ID
    folder.mkdir(parents=True)
    (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
    if table_json is not None:
        (folder / "table.json").write_text(table_json)
    return folder


def test_a_saved_table_loads(tmp_path: Path) -> None:
    for n, settings in enumerate(
        (
            {"name": "Kitchen", "cpu": ["hard"], "password_verifier": None},
            {"name": "Kitchen", "cpu": ["hard"], "password_verifier": "ab" * 32},
            {"name": "Kitchen", "cpu": ["hard"], "password": "old files kept it"},  # converted
        )
    ):
        _saved(tmp_path / str(n), json.dumps(settings))
        saved = load_saved_table(tmp_path / str(n), TABLE_ID)
        assert (saved.lines, saved.name, saved.cpu) == ([b'{"seq":0}'], "Kitchen", ["hard"])


@pytest.mark.parametrize(
    ("table_json", "says"),
    [
        (None, "is missing"),
        ("{not json", "is corrupt"),
        ("\xff\xfe", "is corrupt"),
        ("[1, 2]", "is corrupt"),
        ('{"name": "x", "cpu": "hard", "password": null}', "is corrupt"),
        ('{"cpu": [], "password": null}', "is corrupt"),
        ('{"name": "x", "cpu": [], "password_verifier": "AB"}', "is corrupt"),
        ('{"name": "x", "cpu": [], "password_verifier": 7}', "is corrupt"),
    ],
)
def test_a_missing_or_corrupt_table_json_is_a_clear_error(
    tmp_path: Path, table_json: str | None, says: str
) -> None:
    folder = _saved(tmp_path, table_json)
    with pytest.raises(CliError) as caught:
        load_saved_table(tmp_path, TABLE_ID)
    assert str(folder / "table.json") in str(caught.value) and says in str(caught.value)


def test_no_saved_log(tmp_path: Path) -> None:
    with pytest.raises(CliError, match="no saved log for table"):
        load_saved_table(tmp_path, TABLE_ID)


@pytest.fixture
def fake_service(monkeypatch: pytest.MonkeyPatch) -> type[StandInHostService]:
    return stand_in_host_service(monkeypatch, Rules(seats=2))


def _host(home: Path, *more: str) -> int:
    argv = ["host", "--headless", "--no-advertise", "--home", str(home), *more]
    return cli.main([*argv, "--resume", TABLE_ID])


def test_resume_with_a_missing_table_json_starts_nothing(
    tmp_path: Path, fake_service, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _saved(tmp_path, None)
    assert _host(tmp_path) == 2
    err = capsys.readouterr().err
    assert str(folder / "table.json") in err and "Traceback" not in err
    assert fake_service.started == []


def test_resume_prints_the_saved_tables_seats(
    tmp_path: Path, fake_service, capsys: pytest.CaptureFixture[str]
) -> None:
    _saved(tmp_path, json.dumps({"name": "Kitchen", "cpu": ["hard"], "password": None}))
    assert _host(tmp_path) == 0  # a host opens for up to six: the saved table has two
    out = capsys.readouterr().out
    assert "seats: up to 2, CPU seats run here: 1 (hard, seated at the start after the" in out
    assert "room for 1 player(s)" in out
    assert [s.running for s in fake_service.started] == [False]
