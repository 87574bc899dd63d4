"""A transcript changed after the game (one result's count edited) is never counted:
`stats` lists it with the verifier's reason code, and the other games still count."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.errors import Reason
from p2pdice.core.verify import verify_lines

from .tables import league, save_home


def test_an_edited_result_is_skipped_with_the_verifiers_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = league(3)
    home = save_home(tmp_path, games, ["a", "b", "c"])
    log = home / "hosted" / "b" / "log.jsonl"
    lines = log.read_bytes().splitlines()
    at = next(i for i, line in enumerate(lines) if b'"type":"result"' in line)
    lines[at] = lines[at].replace(b'"count":', b'"count":1', 1)  # 3 becomes 13, say
    log.write_bytes(b"".join(line + b"\n" for line in lines))
    failure = verify_lines(lines).failure
    assert failure is not None and failure.index == at

    assert main(["stats", "--home", str(home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == 2
    detail = f"entry {at}: {failure.detail.removeprefix(f'entry {at}: ')}"  # named once
    assert body["skipped"] == [{"file": str(log), "reason": str(failure.reason), "detail": detail}]
    counted = {p["key"] for g in body["groups"] for p in g["players"]}
    assert sum(p["games"] for g in body["groups"] for p in g["players"]) == 2 * 3
    assert counted

    assert main(["stats", "--home", str(home)]) == 0
    text = capsys.readouterr().out
    assert f"{log}: {failure.reason}: entry {at}" in text


def test_a_log_cut_short_is_skipped_as_missing_its_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (game,) = league(1)
    home = save_home(tmp_path, [game[: len(game) // 2]], ["cut"])
    assert main(["stats", "--home", str(home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == 0
    assert [s["reason"] for s in body["skipped"]] == [str(Reason.MISSING_GAME_OVER)]
