"""hosted/<id>/table.json has one reader and writer, store.TableRecord."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.core.pake import password_verifier
from p2pdice.store import SavedTableError, TableRecord, unfinished_hosted_tables

TABLE_ID = bytes(range(32))


def test_a_record_reads_back_what_it_wrote(tmp_path: Path) -> None:
    record = TableRecord(
        name="Kitchen", cpu=("hard", "easy"), password_verifier=b"\x01" * 32, port=7000
    )
    record.save(tmp_path)
    assert TableRecord.load(tmp_path) == record
    assert (tmp_path / "table.json").stat().st_mode & 0o777 == 0o600


def test_a_file_from_before_verifiers_gives_the_passwords_verifier(tmp_path: Path) -> None:
    (tmp_path / "table.json").write_text(json.dumps({"name": "K", "cpu": [], "password": "pw"}))
    record = TableRecord.load(tmp_path)
    assert record.verifier(TABLE_ID) == password_verifier("pw", TABLE_ID)
    assert TableRecord(name="K", password_verifier=record.verifier(TABLE_ID)).to_json() == {
        "name": "K",
        "cpu": [],
        "password_verifier": password_verifier("pw", TABLE_ID).hex(),
        "port": 0,
    }


@pytest.mark.parametrize(
    "saved",
    [
        {"name": "K", "cpu": []},  # no password field at all: a password table would open to anyone
        {"name": "K", "cpu": [], "password_verifier": "ab"},
        {"name": "K", "cpu": [1], "password_verifier": None},
        {"cpu": [], "password_verifier": None},
        [],
    ],
)
def test_a_record_without_a_usable_name_cpu_list_or_verifier_is_corrupt(
    tmp_path: Path, saved: object
) -> None:
    (tmp_path / "table.json").write_text(json.dumps(saved))
    with pytest.raises(SavedTableError, match="is corrupt"):
        TableRecord.load(tmp_path)


def test_a_bad_port_reads_as_unknown(tmp_path: Path) -> None:
    for port in (0, 70000, "7000", None):
        (tmp_path / "table.json").write_text(
            json.dumps({"name": "K", "cpu": [], "password_verifier": None, "port": port})
        )
        assert TableRecord.load(tmp_path).port == 0


def test_the_lobby_offers_only_tables_with_a_readable_record(tmp_path: Path) -> None:
    for table, record in (("a" * 64, TableRecord(name="Kept")), ("b" * 64, None)):
        folder = tmp_path / "hosted" / table
        folder.mkdir(parents=True)
        (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
        if record is not None:
            record.save(folder)
        else:
            (folder / "table.json").write_text("{not json")
    assert [t.name for t in unfinished_hosted_tables(tmp_path)] == ["Kept"]


def test_a_record_keeps_the_name_the_hosts_player_sat_under(tmp_path: Path) -> None:
    record = TableRecord(name="Kitchen", player="Ann")
    record.save(tmp_path)
    assert TableRecord.load(tmp_path) == record
    assert json.loads((tmp_path / "table.json").read_text())["player"] == "Ann"
    # A headless host plays no seat: the field is left out, as in a file from before it.
    assert "player" not in TableRecord(name="Kitchen").to_json()
    for player in (None, 7, ["Ann"]):
        (tmp_path / "table.json").write_text(
            json.dumps({"name": "K", "cpu": [], "password_verifier": None, "player": player})
        )
        assert TableRecord.load(tmp_path).player == ""


def test_the_lobby_offers_a_table_with_the_name_its_host_played_under(tmp_path: Path) -> None:
    for table, player in (("a" * 64, "Ann"), ("b" * 64, "")):
        folder = tmp_path / "hosted" / table
        folder.mkdir(parents=True)
        (folder / "log.jsonl").write_bytes(b'{"seq":0}\n')
        TableRecord(name="Kitchen", player=player).save(folder)
    found = {t.table_id: t.host for t in unfinished_hosted_tables(tmp_path)}
    assert found == {"a" * 64: "Ann", "b" * 64: ""}


def test_a_resumed_table_keeps_the_pace_of_its_cpu_seats(tmp_path: Path) -> None:
    """A table opened with --cpu-think 0 is resumed (host --resume, or r in the lobby) at that
    pace unless --cpu-think says otherwise; an older record, or a pause that makes no sense,
    leaves the default."""
    import argparse

    from p2pdice.cli.common import CPU_THINK, cpu_think_of

    TableRecord(name="Quick", cpu=("easy",), cpu_think=0.0).save(tmp_path)
    saved = TableRecord.load(tmp_path).cpu_think
    assert saved == 0.0
    assert cpu_think_of(argparse.Namespace(cpu_think=None), saved) == 0.0
    assert cpu_think_of(argparse.Namespace(cpu_think=2.5), saved) == 2.5
    assert cpu_think_of(argparse.Namespace(cpu_think=None), None) == CPU_THINK
    for pause in (None, -1, 61, "0", True):
        (tmp_path / "table.json").write_text(
            json.dumps({"name": "K", "cpu": [], "password_verifier": None, "cpu_think": pause})
        )
        assert TableRecord.load(tmp_path).cpu_think is None
