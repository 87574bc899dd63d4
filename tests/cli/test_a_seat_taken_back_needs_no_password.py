"""A player taking back its seat at a password table needs no password: its key is its proof
(SPEC.md 10.2). That holds also when its seat record was lost or cannot be read, for its own
verified transcript says which seat its key joined."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from p2pdice.cli.lobby import CliLobby
from p2pdice.core.advert import key_prefix
from p2pdice.store import load_or_create_key
from tests.support.procs import bot_join, kill_all, password_host, spawn, wait_until


def test_a_seat_shown_only_by_the_transcript_is_taken_back_without_the_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("P2PDICE_PASSWORD", raising=False)
    secret = tmp_path / "pw.txt"
    secret.write_text("open sesame\n")
    home = tmp_path / "ann"
    with password_host(tmp_path) as ready:
        address = f"127.0.0.1:{ready['port']}"
        ann = bot_join(address, name="Ann", seed=1, home=home)
        bob = bot_join(address, name="Bob", seed=2, home=tmp_path / "bob")
        first = spawn(*ann, "--password-file", str(secret), log=tmp_path / "ann-1.out")
        other = spawn(*bob, "--password-file", str(secret), log=tmp_path / "bob.out")
        again = None
        try:
            # Killed once the game has started: a seat given up in the lobby is joined afresh.
            wait_until(lambda: b"commit_set" in transcript(home), 30, "round 1 in Ann's log")
            first.kill()
            first.wait(10)
            (seat_record,) = home.glob("tables/*/seat.json")
            seat_record.write_text('{"seat": ')  # torn by a failing disk
            assert_the_lobby_finds_the_seat(home, seat_record.parent.name, tmp_path / "h")
            again = spawn(*ann, log=tmp_path / "ann-2.out")
            try:
                assert again.wait(120) == 0, (tmp_path / "ann-2.out").read_text()
                assert other.wait(120) == 0, (tmp_path / "bob.out").read_text()
            except subprocess.TimeoutExpired:
                raise AssertionError((tmp_path / "ann-2.out").read_text()) from None
            said = (tmp_path / "ann-2.out").read_text()
            assert "--password-file" not in said and "refused" not in said, said
        finally:
            kill_all(first, again, other)


def assert_the_lobby_finds_the_seat(home: Path, table_id: str, host_home: Path) -> None:
    """The lobby lists the table as one to go back to, without the password: its browse
    looks in the transcript once the seat record cannot be read, for that host's table only."""
    lobby = CliLobby(home)
    host = key_prefix(load_or_create_key(host_home / "identity.key").public)
    assert not lobby.holds_seat(table_id, host)  # the torn record alone shows no seat
    assert lobby.look_for_seat(table_id, host)
    assert lobby.holds_seat(table_id, host)  # a key press asks again without a replay
    impostor = ("0" if host[0] != "0" else "1") + host[1:]
    assert not lobby.look_for_seat(table_id, impostor)


def transcript(home: Path) -> bytes:
    return b"".join(path.read_bytes() for path in home.glob("tables/*/transcript.jsonl"))
