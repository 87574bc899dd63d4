"""`p2pdice --home DIR` opens the lobby with its files in DIR, as `--home` does for every
command (docs/lan.md, "Where things are stored"); it was refused as `invalid choice:
'DIR'`, so the lobby could use another folder only through $P2PDICE_HOME. Given before a
command it is that command's --home. The real app in tmux at 80x24."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from p2pdice.cli import main
from tests.support import tmux

pytestmark = pytest.mark.usefixtures("private_network")


@pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")
def test_the_lobby_opens_with_its_files_in_home(tmp_path: Path) -> None:
    home = tmp_path / "lobby-home"
    t = tmux.Tmux()
    try:
        t.start([sys.executable, "-m", "p2pdice", "--home", str(home)], stderr=tmp_path / "err")
        t.wait_for(lambda s: "p2pdice lobby" in s, 20, "the lobby")
        assert home.is_dir()
        t.keys("q")
    finally:
        t.kill()


def test_home_before_a_command_is_the_commands_home(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "a-file"
    file.write_text("")
    assert main(["--home", str(file), "learn", "--drill", "--list"]) == 2
    assert f"--home {file}: that is a file" in capsys.readouterr().err
    assert main(["--home", str(tmp_path / "d"), "learn", "--drill", "--list"]) == 0
    assert (tmp_path / "d").is_dir()
