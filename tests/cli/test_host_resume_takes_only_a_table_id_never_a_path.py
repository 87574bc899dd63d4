"""`host --resume` takes a table's id (its hex digits, or the short id `#97ee6f1d` the lobby
shows) and never a path: text with a path separator or `..` is refused in one line that says
to give the id, before any file is read. Before, `--resume ../elsewhere/ID` opened a saved
table outside this machine's `hosted/` folder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice import cli
from p2pdice.cli.common import load_saved_table
from p2pdice.cli.options import CliError

TABLE_ID = "97ee6f1d" + "ab" * 28


def _saved(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
    (folder / "table.json").write_text(
        json.dumps({"name": "Elsewhere", "cpu": [], "password_verifier": None})
    )


@pytest.mark.parametrize(
    "given",
    [
        f"../elsewhere/{TABLE_ID}",
        f"hosted/../../elsewhere/{TABLE_ID}",
        "..",
        f"..\\elsewhere\\{TABLE_ID}",
        f"/tmp/{TABLE_ID}",
        f"{TABLE_ID}/",
    ],
)
def test_a_path_is_refused_before_anything_is_read(tmp_path: Path, given: str) -> None:
    home = tmp_path / "home"
    _saved(tmp_path / "elsewhere" / TABLE_ID)  # what the path would reach
    _saved(home / "hosted" / TABLE_ID)
    with pytest.raises(CliError) as caught:
        load_saved_table(home, given)
    assert f"--resume {given}: a table id, not a path" in str(caught.value)


@pytest.mark.parametrize("given", ["kitchen", "97ee-6f1d", "", "#", "0x97ee"])
def test_text_that_is_no_id_is_refused(tmp_path: Path, given: str) -> None:
    _saved(tmp_path / "hosted" / TABLE_ID)
    with pytest.raises(CliError, match="not a table id"):
        load_saved_table(tmp_path, given)


@pytest.mark.parametrize("given", [TABLE_ID, TABLE_ID.upper(), "#97ee6f1d", " 97ee6f "])
def test_the_id_and_its_short_forms_still_resume(tmp_path: Path, given: str) -> None:
    _saved(tmp_path / "hosted" / TABLE_ID)
    assert load_saved_table(tmp_path, given).name == "Elsewhere"


def test_the_command_refuses_a_path_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["host", "--headless", "--no-advertise", "--home", str(tmp_path)]
    assert cli.main([*argv, "--resume", "../../etc"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "--resume ../../etc: a table id, not a path" in err
