"""A value or combination of flags the CLI cannot take is refused in one line that names the
flag (exit status 2, no traceback): empty names, bad --cpu counts and levels, a --home that
cannot be a folder, a player at a headless host, a headless host asked to open round 1,
pass-and-play with one player, a bot at a password table without a password, a password
file that is empty or not UTF-8."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from p2pdice.cli.common import name_of, parse_cpu, password_of
from p2pdice.cli.options import CliError


def test_name_of_cleans_and_refuses_empty_names() -> None:
    assert name_of("  Ann\x1b[31m ") == "Ann"
    with pytest.raises(CliError, match="--name: the name is empty"):
        name_of("\x1b\x07")
    with pytest.raises(CliError, match="--player: the name is empty"):
        name_of("", "--player")


def test_parse_cpu() -> None:
    assert parse_cpu(None) == (0, "medium")
    assert parse_cpu("3") == (3, "medium")
    assert parse_cpu("2:hard", seats=4) == (2, "hard")
    with pytest.raises(CliError, match="between 0 and 4"):
        parse_cpu("5", seats=4)
    with pytest.raises(CliError, match="cannot be negative"):
        parse_cpu("-1")
    with pytest.raises(CliError, match="expected N or N:LEVEL"):
        parse_cpu("many")
    with pytest.raises(CliError, match="--cpu: unknown bot 'genius'"):
        parse_cpu("1:genius")


def test_a_password_file_is_read_as_typed_and_refused_in_words_when_unusable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("P2PDICE_PASSWORD", raising=False)
    pw = tmp_path / "pw.txt"

    def read(data: bytes) -> str | None:
        pw.write_bytes(data)
        return password_of(argparse.Namespace(password_file=str(pw)))

    assert read("café\r\n".encode()) == "café"
    # Windows Notepad begins a UTF-8 file with a byte-order mark; nobody typed it.
    assert read("\ufeffcafé\n".encode()) == "café"
    assert read(b" two words ") == " two words "  # spaces are the password's own
    with pytest.raises(CliError, match=r"--password-file: .* is not UTF-8 text"):
        read("café".encode("latin-1"))
    for empty in (b"", b"\n", "\ufeff\r\n".encode()):
        with pytest.raises(CliError, match=r"--password-file: .* is empty"):
            read(empty)
    assert password_of(argparse.Namespace(password_file=None)) is None  # no file: no password


def test_join_with_a_bot_at_a_password_table_without_one_hints_and_exits_2(tmp_path: Path) -> None:
    import subprocess

    from tests.support.procs import p2pdice, password_host

    with password_host(tmp_path) as ready:
        env = {k: v for k, v in os.environ.items() if k != "P2PDICE_PASSWORD"}
        proc = subprocess.run(
            p2pdice("join", f"127.0.0.1:{ready['port']}", "--bot", "easy",
                    "--home", str(tmp_path / "c")),
            capture_output=True, text=True, timeout=30, env=env,
        )  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "--password-file" in proc.stderr and "P2PDICE_PASSWORD" in proc.stderr


def _cli(*args: str, env: dict | None = None):
    import subprocess

    from tests.support.procs import p2pdice

    return subprocess.run(
        p2pdice(*args), capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL,
        env=env,
    )  # fmt: skip


@pytest.mark.parametrize("where", ["file", "under_a_file", "missing_parent_in_proc"])
def test_a_home_that_cannot_be_a_folder_is_a_one_line_error(tmp_path: Path, where: str) -> None:
    a_file = tmp_path / "passwd"
    a_file.write_text("root:x:0:0\n")
    home = {
        "file": a_file,
        "under_a_file": a_file / "nope",
        "missing_parent_in_proc": Path("/proc/nope"),
    }[where]
    proc = _cli("practice", "--home", str(home))
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert f"--home {home}:" in proc.stderr


def test_player_with_headless_is_refused() -> None:
    proc = _cli("host", "--headless", "--player", "Bob", "--no-advertise")
    assert proc.returncode == 2
    assert "--player: a --headless host does not play" in proc.stderr


def test_a_headless_host_refuses_to_open_round_1_from_a_seat_it_does_not_play() -> None:
    proc = _cli("host", "--headless", "--first-starter", "host", "--no-advertise")
    assert proc.returncode == 2
    assert "--first-starter host: a --headless host has no seat" in proc.stderr


@pytest.mark.parametrize("command", ["simulate", "tournament", "learn"])
def test_games_nobody_hosts_do_not_offer_the_host_as_first_starter(command: str) -> None:
    proc = _cli(command, "--first-starter", "host")
    assert proc.returncode == 2
    assert "--first-starter: invalid choice: 'host'" in proc.stderr


def test_pass_and_play_with_one_player_says_what_is_missing() -> None:
    proc = _cli("pass-and-play", "--players", "Ann")
    assert proc.returncode == 2
    assert "--players: a table needs at least two seats" in proc.stderr
    assert "--seats" not in proc.stderr
