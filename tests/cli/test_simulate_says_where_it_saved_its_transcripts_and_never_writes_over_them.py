"""`simulate --protocol --transcripts DIR` says where it saved the games, refuses a DIR that
already holds games of an earlier run (a second run wrote over them without a word), and
refuses a DIR that is a file in one line (it was a FileExistsError traceback) before any
game is played."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.cli import main

ARGS = ["simulate", "--protocol", "--seats", "2", "--games", "2", "--seed", "4"]


def test_it_says_where_the_games_went_and_keeps_an_earlier_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "games"
    assert main([*ARGS, "--transcripts", str(folder)]) == 0
    said = capsys.readouterr().out
    assert f"transcripts: game-0001.jsonl to game-0002.jsonl in {folder}" in said, said
    first = (folder / "game-0001.jsonl").read_bytes()
    assert main([*ARGS, "--seed", "5", "--transcripts", str(folder)]) == 2
    err = capsys.readouterr().err
    assert f"{folder} already holds game-0001.jsonl and 1 more" in err, err
    assert (folder / "game-0001.jsonl").read_bytes() == first


def test_a_file_for_a_folder_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a-file"
    path.write_text("not a folder")
    assert main([*ARGS, "--transcripts", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--transcripts: {path} is a file" in err and "Traceback" not in err, err
    assert main([*ARGS, "--transcripts", str(path / "inside")]) == 2
    assert "--transcripts: cannot make the folder" in capsys.readouterr().err
