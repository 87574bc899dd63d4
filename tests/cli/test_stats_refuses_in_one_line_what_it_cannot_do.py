"""`p2pdice stats` refuses, in one line naming the flag and exit status 2, what it cannot do:
an `--export` path that cannot be a folder (an existing file, a path under a file), and
`--json` with `--plot` (the plot would spoil the JSON). Nothing is read, imported or written
first."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


@pytest.mark.parametrize("where", ["a file", "a path under a file"])
def test_an_export_path_that_cannot_be_a_folder_is_refused_naming_the_flag_and_the_path(
    where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    afile = tmp_path / "afile"
    afile.write_text("")
    target = afile if where == "a file" else afile / "games"
    home = tmp_path / "home"
    game = str(EXAMPLES / "game.jsonl")
    assert main(["stats", "--home", str(home), "--import", game, "--export", str(target)]) == 2
    err = capsys.readouterr().err
    assert (
        f"--export: {target} is a file" in err
        or f"--export: cannot make the folder {target}" in err
    )
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (home / "league").exists()  # refused before anything was imported


def test_json_with_a_plot_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--home", str(tmp_path), "--json", "--plot"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and "--plot: not with --json" in out.err


def test_an_export_folder_it_cannot_write_into_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Where a game's file would go stands a folder: the write fails as on a read-only or
    # full disk (as root, permissions alone would not stop it).
    home = tmp_path / "home"
    game = str(EXAMPLES / "game.jsonl")
    first = tmp_path / "first"
    assert main(["stats", "--home", str(home), "--import", game, "--export", str(first)]) == 0
    (name,) = [p.name for p in first.iterdir()]
    blocked = tmp_path / "blocked"
    (blocked / name).mkdir(parents=True)
    capsys.readouterr()
    assert main(["stats", "--home", str(home), "--export", str(blocked)]) == 2
    err = capsys.readouterr().err
    assert f"--export: cannot write into {blocked}: " in err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
