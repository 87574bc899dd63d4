"""The second `stats` run reads each file's verdict from the cache kept by file hash, and
says exactly what verifying every file again says (who made each move included); a file
changed since (a new hash) is verified afresh, so an edit made after the cache was written is
still caught; a cache written before records kept who made each move is not read; and a
record that does not fit its table (a seat, place or die out of range) is verified afresh."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2pdice import __version__
from p2pdice.cli import main
from p2pdice.cli.stats import CACHE_FILE
from p2pdice.core.rules import preset

from .tables import POOL, league, play_with_a_leaver, save_home


def stats(home: Path, capsys: pytest.CaptureFixture[str], *flags: str) -> str:
    assert main(["stats", "--home", str(home), "--json", *flags]) == 0
    return capsys.readouterr().out


def test_the_cached_run_matches_a_full_verification(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, league(4), ["a", "b", "c", "d"])
    first = stats(home, capsys)
    cache = json.loads((home / CACHE_FILE).read_text())
    assert len(cache["files"]) == 4
    assert stats(home, capsys) == first == stats(home, capsys, "--no-cache")

    log = home / "hosted" / "c" / "log.jsonl"
    lines = log.read_bytes().splitlines()
    at = next(i for i, line in enumerate(lines) if b'"type":"result"' in line)
    lines[at] = lines[at].replace(b'"count":', b'"count":1', 1)
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    after = json.loads(stats(home, capsys))
    assert after["games"] == 3 and [s["file"] for s in after["skipped"]] == [str(log)]
    assert len(json.loads((home / CACHE_FILE).read_text())["files"]) == 4  # the old hash gone


def test_a_cache_of_another_version_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, league(2), ["a", "b"])
    first = stats(home, capsys)
    saved = json.loads((home / CACHE_FILE).read_text())
    # A record that would drop every game, under another version's tag: ignored.
    saved["version"] = "0/0"
    saved["files"] = {k: {"skipped": {"reason": "X", "detail": "y"}} for k in saved["files"]}
    (home / CACHE_FILE).write_text(json.dumps(saved))
    assert stats(home, capsys) == first


def test_a_damaged_cache_record_is_verified_afresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, league(3), ["a", "b", "c"])
    first = stats(home, capsys)
    saved = json.loads((home / CACHE_FILE).read_text())
    damage = [{"game": {"rules": "not rules"}}, {"game": None}, ["a list"], {"skipped": 7}]
    for key, bad in zip(saved["files"], damage, strict=False):
        saved["files"][key] = bad
    (home / CACHE_FILE).write_text(json.dumps(saved))
    assert stats(home, capsys) == first
    mended = json.loads((home / CACHE_FILE).read_text())["files"]
    assert all("game" in record and isinstance(record["game"], dict) for record in mended.values())


def test_a_cache_from_before_moves_were_read_by_key_is_read_afresh(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaver = play_with_a_leaver(17, preset("classic", seats=4, starting_dice=2), POOL, 1)
    home = save_home(tmp_path, [*league(2), leaver], ["a", "b", "left"])
    first = stats(home, capsys)
    assert stats(home, capsys) == first == stats(home, capsys, "--no-cache")
    made = [p["made_for_it"] for g in json.loads(first)["groups"] for p in g["players"]]
    assert any(m["host"] for m in made) and any(m["stand_in"] for m in made)
    saved = json.loads((home / CACHE_FILE).read_text())
    # As version 1 wrote it: no movers, and the figures read by seat.
    saved["version"] = f"1/{__version__}"
    for record in saved["files"].values():
        record["game"].pop("movers")
    (home / CACHE_FILE).write_text(json.dumps(saved))
    assert stats(home, capsys) == first
    mended = json.loads((home / CACHE_FILE).read_text())
    assert mended["version"] != saved["version"]
    assert all("movers" in record["game"] for record in mended["files"].values())


@pytest.fixture(scope="module")
def two_games() -> list[list[bytes]]:
    return league(2)


def _set(path: tuple[object, ...], value: object) -> Callable[[dict[str, Any]], None]:
    def damage(game: dict[str, Any]) -> None:
        *into, last = path
        target: Any = game
        for step in into:
            target = target[step]
        target[last] = value

    return damage


@pytest.mark.parametrize(
    "damage",
    [
        _set(("players", 0, 0), 9),
        _set(("places",), [1]),
        _set(("places", 0), 0),
        _set(("winner",), 7),
        _set(("results", 0, "bids", 0, 0), 5),
        _set(("results", 0, "caller"), -1),
        _set(("results", 0, "dice_before"), [2]),
        _set(("results", 0, "dice_after", 0), "2"),
        _set(("results", 0, "hands", 0), [9, 9]),
        _set(("results", 0, "eliminated"), [3]),
        _set(("movers", 0, 2), [4]),
        _set(("start_hash",), 5),
    ],
    ids=[
        "a seat beyond the table",
        "fewer places than seats",
        "a place of 0",
        "a winner beyond the table",
        "a bid from a seat beyond the table",
        "a caller below seat 0",
        "dice for fewer seats",
        "dice that are no number",
        "a hand of no dice",
        "a seat out beyond the table",
        "a stand-in in a seat beyond the table",
        "a start hash that is no hash",
    ],
)
def test_a_cache_record_that_does_not_fit_its_table_is_verified_afresh(
    damage: Callable[[dict[str, Any]], None],
    two_games: list[list[bytes]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = save_home(tmp_path, two_games, ["a", "b"])
    first = stats(home, capsys)
    written = json.loads((home / CACHE_FILE).read_text())
    saved = json.loads((home / CACHE_FILE).read_text())
    damage(next(iter(saved["files"].values()))["game"])
    (home / CACHE_FILE).write_text(json.dumps(saved))
    assert stats(home, capsys) == first
    assert json.loads((home / CACHE_FILE).read_text()) == written
