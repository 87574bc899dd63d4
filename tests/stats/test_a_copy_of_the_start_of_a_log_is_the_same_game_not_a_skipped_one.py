"""A file that holds only the first entries of another log on this device (a seat's copy of
a game its host ended after the seat left, a copy cut off mid-line by a crash, a seat's copy
of a game not ended yet beside its host's log) is a copy of that game: listed as
DUPLICATE_TABLE, not as a skipped game of its own, and `stats` prints it as a copy. A file
that differs anywhere keeps its own reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.errors import Reason
from p2pdice.stats.games import DUPLICATE

from .tables import league


def write(path: Path, lines: list[bytes], tail: bytes = b"") -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(line + b"\n" for line in lines) + tail)
    return str(path)


def test_copies_of_the_start_of_a_log_are_copies_and_an_edited_one_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ended, unfinished, edited = league(3)
    # A pass-and-play game ended by its host after the seats left: a seat's copy lacks the
    # last entries; the other seat's copy was cut off in the middle of a line.
    local = tmp_path / "pass-and-play"
    host = write(local / "host" / "hosted" / "a" / "log.jsonl", ended)
    left = write(local / "1" / "tables" / "a" / "transcript.jsonl", ended[:-3])
    torn = write(local / "2" / "tables" / "a" / "transcript.jsonl", ended[:-2], ended[-2][:9])
    # A game not ended: the host's log and a shorter seat's copy are one unfinished game.
    paused = write(tmp_path / "hosted" / "b" / "log.jsonl", unfinished[:-4])
    behind = write(tmp_path / "tables" / "b" / "transcript.jsonl", unfinished[:-6])
    # A seat's copy changed in one entry before its end is not a copy of its host's log.
    write(tmp_path / "hosted" / "c" / "log.jsonl", edited)
    changed = edited[:-1]
    at = next(i for i, line in enumerate(changed) if b'"type":"result"' in line)
    changed[at] = changed[at].replace(b'"count":', b'"count":1', 1)
    mutated = write(tmp_path / "tables" / "c" / "transcript.jsonl", changed)

    assert main(["stats", "--home", str(tmp_path), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == 2
    reasons = {s["file"]: s["reason"] for s in body["skipped"]}
    assert reasons == {
        left: DUPLICATE,
        torn: DUPLICATE,
        paused: str(Reason.MISSING_GAME_OVER),
        behind: DUPLICATE,
        mutated: reasons[mutated],
    }
    assert reasons[mutated] != DUPLICATE
    details = {s["file"]: s["detail"] for s in body["skipped"]}
    counted = f"a copy of the first {len(ended) - 3} of the {len(ended)} entries of {host}"
    assert details[left] == counted + " (counted)"
    assert details[behind].endswith(f"entries of {paused} (listed)")

    assert main(["stats", "--home", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "3 more file(s) are copies of games shown here" in text
    listed = text.split("skipped (not counted)")[1]
    assert paused in listed and mutated in listed
    assert left not in listed and torn not in listed and behind not in listed
