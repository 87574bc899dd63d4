"""`stats --export` writes a device's verified games; `stats --import` on another device takes
the tables it lacks, recognises the ones it holds by table id, refuses files that do not
verify, and refuses (exit status 4, the proof printed) a log that contradicts the one held
for its table: the host showed the two devices two histories."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.cli.verify_exits import EXIT_FORK
from p2pdice.core.rules import preset

from .tables import POOL, league, play_game, save_home


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    status = main(["stats", *args, "--json"])
    return status, json.loads(capsys.readouterr().out)


def test_a_friends_export_adds_the_missing_tables_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = league(6)
    mine = save_home(tmp_path / "mine", games[:4], ["a", "b", "c", "d"])
    theirs = save_home(tmp_path / "theirs", games[2:], ["w", "x", "y", "z"])
    (tmp_path / "theirs" / "hosted" / "bad").mkdir()
    (tmp_path / "theirs" / "hosted" / "bad" / "log.jsonl").write_bytes(b"not json\n")
    export = tmp_path / "export"
    status, body = run_json(capsys, "--home", str(theirs), "--export", str(export))
    assert status == 0 and len(list(export.iterdir())) == 4

    status, body = run_json(capsys, "--home", str(mine), "--import", str(export))
    assert status == 0
    assert sorted(a["verdict"] for a in body["imported"]) == ["held", "held", "new", "new"]
    assert all(set(a) == {"file", "verdict", "detail"} for a in body["imported"])
    assert body["games"] == 6 and body["skipped"] == []
    # The league is kept: the next run counts the imported games without importing again.
    status, again = run_json(capsys, "--home", str(mine))
    assert again["games"] == 6 and again["ratings"] == body["ratings"]
    status, twice = run_json(capsys, "--home", str(mine), "--import", str(export))
    assert [a["verdict"] for a in twice["imported"]] == ["held"] * 4

    bad = tmp_path / "theirs" / "hosted" / "bad" / "log.jsonl"
    status, refused = run_json(capsys, "--home", str(mine), "--import", str(bad))
    assert [a["verdict"] for a in refused["imported"]] == ["refused"]
    assert refused["imported"][0]["detail"].startswith("JSON_SYNTAX")
    assert refused["games"] == 6


def test_a_log_that_contradicts_the_one_held_is_refused_as_a_fork(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = preset("classic", seats=3, starting_dice=1)
    # One host (same key, same nonce: the same table) showing two histories.
    held = play_game(7, rules, POOL[:3])
    other = play_game(7, rules, [POOL[0], POOL[1], POOL[3]])
    assert held[0] == other[0] and held != other
    mine = save_home(tmp_path / "mine", [held], ["t"])
    forked = tmp_path / "forked.jsonl"
    forked.write_bytes(b"".join(line + b"\n" for line in other))
    status, body = run_json(capsys, "--home", str(mine), "--import", str(forked))
    assert status == EXIT_FORK
    (arrival,) = body["imported"]
    assert arrival["verdict"] == "fork" and "FORK at entry" in arrival["detail"]
    assert body["games"] == 1 and not (mine / "league").exists()
    assert main(["stats", "--home", str(mine), "--import", str(forked)]) == EXIT_FORK
    assert "fork: FORK at entry" in capsys.readouterr().out


def test_two_logs_of_one_table_that_differ_on_this_device_are_not_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = preset("classic", seats=3, starting_dice=1)
    one, two = play_game(7, rules, POOL[:3]), play_game(7, rules, [POOL[0], POOL[1], POOL[3]])
    _, body = run_json(capsys, "--home", str(save_home(tmp_path, [one, two], ["a", "b"])))
    assert body["games"] == 0
    assert [s["reason"] for s in body["skipped"]] == ["FORK", "FORK"]
