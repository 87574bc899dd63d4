"""`p2pdice simulate --protocol --transcripts DIR` saves one verifying log per game; the bots
hand the logs over and the command writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.verify import verify_lines


def test_each_protocol_game_is_saved_as_a_log_that_verifies(tmp_path: Path) -> None:
    folder = tmp_path / "made" / "here"  # made by the command
    args = ["simulate", "--protocol", "--seats", "2", "--games", "2", "--seed", "4"]
    assert main([*args, "--transcripts", str(folder)]) == 0
    saved = sorted(folder.iterdir())
    assert [p.name for p in saved] == ["game-0001.jsonl", "game-0002.jsonl"]
    for path in saved:
        data = path.read_bytes()
        assert data.endswith(b"\n")
        assert verify_lines(data.splitlines()).ok, path.name
    assert saved[0].read_bytes() != saved[1].read_bytes()


def test_transcripts_need_protocol_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "--transcripts", str(tmp_path / "t")]) == 2
    assert "--transcripts: needs --protocol" in capsys.readouterr().err
    assert not (tmp_path / "t").exists()
