"""The store copes with damaged or foreign local files: a torn last log line is dropped before
the next append, stray files among the secrets are ignored, an unreadable seat record reads as
none (the client then finds its seat in its own transcript), and an unreadable identity key
is a clear error that never replaces the key, nor does a second program making one at the
same moment."""

from __future__ import annotations

import errno
import json
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from p2pdice.core.errors import UserError
from p2pdice.store import (
    AppendLog,
    ClientStore,
    CorruptFile,
    create_once,
    holds_seat_at,
    load_or_create_key,
)


def test_an_append_log_drops_a_torn_last_line_before_appending(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b'{"a":1}\n{"b":')  # killed mid-write
    log = AppendLog(path)
    log.append(b'{"c":3}')
    log.close()
    assert path.read_bytes() == b'{"a":1}\n{"c":3}\n'


def test_stray_files_in_the_secrets_folder_are_ignored(tmp_path: Path) -> None:
    store = ClientStore(tmp_path, b"\x01" * 32)
    (store.folder / "secrets").mkdir(parents=True, exist_ok=True)
    (store.folder / "secrets" / "notes.json").write_text(json.dumps({"hello": 1}))
    (store.folder / "secrets" / "1-1.json").write_text("not json")
    assert store.load_secrets() == {}


@pytest.mark.parametrize("content", ["{garbage", '{"seat": "x", "host": 3}', "[]", '{"seat": 1}'])
def test_an_unreadable_seat_record_reads_as_none(tmp_path: Path, content: str) -> None:
    store = ClientStore(tmp_path, bytes(32))
    (store.folder / "seat.json").write_text(content)
    assert store.load_seat() is None


def test_an_unreadable_identity_key_is_a_clear_error_not_replaced(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    path.write_text("not a key\n")
    with pytest.raises(CorruptFile) as info:
        load_or_create_key(path)
    assert str(path) in str(info.value) and isinstance(info.value, UserError)
    assert path.read_text() == "not a key\n"


def _refuse_hard_links(source: object, target: object) -> None:
    raise PermissionError(errno.EPERM, "Operation not permitted")


def _key_after_barrier(path: str, barrier: Any, out: Any, hard_links: bool) -> None:
    if not hard_links:
        os.link = _refuse_hard_links  # this child process only
    barrier.wait(10)
    out.put(load_or_create_key(Path(path)).public.hex())


@pytest.mark.parametrize("hard_links", [True, False], ids=["hard links", "no hard links"])
def test_programs_starting_together_on_a_new_data_folder_share_one_identity(
    tmp_path: Path, hard_links: bool
) -> None:
    """Two programs started at once on a new data folder (two practice tables, say) must not
    each make a key: the one the file kept would orphan the other's games."""
    context = multiprocessing.get_context("fork")
    for attempt in range(4):
        path = tmp_path / str(attempt) / "identity.key"
        starters = 6
        barrier, out = context.Barrier(starters), context.Queue()
        procs = [
            context.Process(target=_key_after_barrier, args=(str(path), barrier, out, hard_links))
            for _ in range(starters)
        ]
        for proc in procs:
            proc.start()
        keys = {out.get(timeout=20) for _ in procs}
        for proc in procs:
            proc.join(20)
        assert keys == {load_or_create_key(path).public.hex()}
        assert [p.name for p in path.parent.iterdir()] == ["identity.key"]  # no temporary left


def test_an_identity_is_made_once_also_where_the_filesystem_has_no_hard_links(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A data folder on a FAT USB stick (os.link refused there) still gets its key, once."""
    monkeypatch.setattr(os, "link", _refuse_hard_links)
    path = tmp_path / "identity.key"
    key = load_or_create_key(path)
    assert load_or_create_key(path).public == key.public
    assert path.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["identity.key"]
    assert not create_once(path, b"another\n")  # there already: never replaced
    assert load_or_create_key(path).public == key.public


def test_a_seat_is_held_by_its_record_or_else_by_the_devices_own_transcript(
    tmp_path: Path,
) -> None:
    """What decides whether `join` asks for a password: a seat is taken back by the key, and
    the device's own verified transcript says which seat its key joined when the seat record
    was lost or cannot be read."""
    from p2pdice.core.client import ClientConnection
    from p2pdice.core.rules import Rules
    from p2pdice.core.signing import SigningKey
    from tests.support.client_link import Link

    secret = bytes([7]) * 32
    link = Link.table(Rules(seats=2, starting_dice=2))
    player = ClientConnection(key=SigningKey(secret), name="P0", cpu=True)
    link.connect(1, player)
    link.connect(2, ClientConnection(key=SigningKey(bytes([8]) * 32), name="P1", cpu=True))
    table = link.host.table_id.hex()
    home = tmp_path / "home"
    assert not holds_seat_at(home, table)  # no identity: no table has seen this device
    (home / "tables" / table).mkdir(parents=True)
    (home / "identity.key").write_text(secret.hex() + "\n")
    assert not holds_seat_at(home, table)  # no record, no transcript
    (home / "tables" / table / "transcript.jsonl").write_bytes(
        b"".join(line + b"\n" for line in player.lines)
    )
    assert holds_seat_at(home, table)
    (home / "tables" / table / "seat.json").write_text('{"seat": ')  # torn
    assert holds_seat_at(home, table)
    (home / "identity.key").write_text(bytes([9] * 32).hex() + "\n")  # another identity
    assert not holds_seat_at(home, table)
    assert not holds_seat_at(home, "../" + table[3:])  # an announced id is no path
