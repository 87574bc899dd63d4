"""`p2pdice verify` on what a user's shell hands it: a file that cannot be read is a bad
command line (status 2, SPEC.md 9), and so is a record of sent messages (`--mine`) from
another table; a client's record of sent messages caught by a `*.jsonl` pattern is left out
with a note, and a game the host ended shows the seats still in sharing 1st, as the record
does (docs/stats.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


def test_a_file_that_does_not_exist_is_a_bad_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["verify", str(EXAMPLES / "game.jsonl"), str(missing)]) == 2
    assert f"cannot read {missing}" in capsys.readouterr().err


def test_a_record_of_sent_messages_is_left_out_with_a_note(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sent = tmp_path / "sent.jsonl"
    sent.write_text(json.dumps({"at": 1, "ref": "00" * 32, "rejected": "REPLAY"}) + "\n")
    assert main(["verify", str(sent), str(EXAMPLES / "game.jsonl")]) == 0
    out = capsys.readouterr()
    assert f"{sent} is a record of the messages you sent" in out.err
    assert f"--mine {sent}" in out.err
    assert "game.jsonl: verified" in out.out and str(sent) not in out.out
    assert main(["verify", str(sent)]) == 2
    assert "no transcript to verify" in capsys.readouterr().err


def test_a_game_ended_without_a_winner_shows_the_seats_still_in_sharing_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["verify", str(EXAMPLES / "void-cap.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "ranking: 1. P0  1. P1" in out
    assert "the 2 seats still in share 1st" in out


def test_a_game_nobody_survived_keeps_its_places(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(EXAMPLES / "no-survivor.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "ranking: 1. P0  2. P1" in out


def test_a_record_of_messages_sent_at_another_table_is_a_bad_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Checked against a transcript of another table, a record of sent messages would find
    nothing missing because it checked nothing: the wrong file is said, not passed."""
    sent = str(EXAMPLES / "faults-1.seat2.sent.ndjson")
    assert main(["verify", "--mine", sent, str(EXAMPLES / "game.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"none of the messages in {sent} was sent at the table given" in err
    # Beside its own table's transcript (among others) it is checked as usual.
    assert main(["verify", "--mine", sent, str(EXAMPLES / "faults-1.jsonl")]) == 0
    assert "your messages:" in capsys.readouterr().out
    both = [str(EXAMPLES / "faults-1.jsonl"), str(EXAMPLES / "game.jsonl")]
    assert main(["verify", "--mine", sent, *both]) == 0


def test_a_record_of_the_tables_own_messages_leaves_a_failed_or_cut_log_its_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log that stops early or fails a check is not checked against the record (it is not
    the game the record's messages went to, as far as anyone can tell), yet the record is of
    its table: the status is the log's, not a bad command line."""
    sent = str(EXAMPLES / "faults-1.seat2.sent.ndjson")
    lines = (EXAMPLES / "faults-1.jsonl").read_bytes().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"".join(lines[:20]))
    assert main(["verify", "--mine", sent, str(cut)]) == 3
    assert "--mine" not in capsys.readouterr().err
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_bytes(
        b"".join([*lines[:20], lines[20].replace(b'"counter":4', b'"counter":5', 1), *lines[21:]])
    )
    assert main(["verify", "--json", "--mine", sent, str(tampered)]) == 1
    assert json.loads(capsys.readouterr().out)["failure"] is not None
