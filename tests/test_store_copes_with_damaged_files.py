"""The store copes with damaged or foreign local files: a torn last log line is dropped before
the next append, stray files among the secrets are ignored, an unreadable seat record reads as
none (the client then finds its seat in its own transcript), and an unreadable identity key
is a clear error that never replaces the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.core.errors import UserError
from p2pdice.store import AppendLog, ClientStore, CorruptFile, load_or_create_key


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
