"""`host --resume` takes a table's short id (`97ee6f1d`, or `#97ee6f1d` as the lobby and
`browse` show it), or any start of its id that names one table hosted here; before, only the
64 hex digits would do and the short id was "no saved log for table 97ee6f1d". A start two
tables share names both."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli.common import load_saved_table
from p2pdice.cli.options import CliError

ONE = "97ee6f1d" + "ab" * 28
TWO = "97ee0000" + "cd" * 28


def _saved(home: Path, table_id: str, name: str) -> None:
    folder = home / "hosted" / table_id
    folder.mkdir(parents=True)
    (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
    (folder / "table.json").write_text(
        json.dumps({"name": name, "cpu": [], "password_verifier": None})
    )


def test_a_short_id_or_a_start_of_it_resumes_the_one_table(tmp_path: Path) -> None:
    _saved(tmp_path, ONE, "Attic")
    _saved(tmp_path, TWO, "Cellar")
    for given in (ONE, "97ee6f1d", "#97ee6f1d", "97EE6F", "97ee6f1dabab"):
        assert load_saved_table(tmp_path, given).name == "Attic", given
    assert load_saved_table(tmp_path, "97ee0").name == "Cellar"


def test_a_start_two_tables_share_names_both(tmp_path: Path) -> None:
    _saved(tmp_path, ONE, "Attic")
    _saved(tmp_path, TWO, "Cellar")
    with pytest.raises(CliError) as caught:
        load_saved_table(tmp_path, "97ee")
    assert ONE in str(caught.value) and TWO in str(caught.value), caught.value


def test_an_id_that_starts_no_table_is_still_no_saved_log(tmp_path: Path) -> None:
    _saved(tmp_path, ONE, "Attic")
    with pytest.raises(CliError, match="no saved log for table 1234"):
        load_saved_table(tmp_path, "1234")
