"""`p2pdice verify A B ...` compares the transcripts of one table (SPEC.md 9): a divergence
prints the two host-signed entries of one seq (the proof of a fork) and exits with its own
status; a shorter transcript with the same prefix stops early, which is no failure; a log
that stops before its game over is "incomplete", with its own status, not FAILED."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from p2pdice.cli.verify_exits import EXIT_FAILED, EXIT_FORK, EXIT_INCOMPLETE, EXIT_VERIFIED
from tests.support.cheats import Game, game_and_a_fork
from tests.support.procs import p2pdice


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(p2pdice("verify", *args), capture_output=True, text=True, timeout=120)


def test_two_transcripts_that_differ_at_one_seq_print_both_entries_and_exit_with_the_fork_status(
    tmp_path: Path,
) -> None:
    lines, other = game_and_a_fork()
    seq = json.loads(other)["seq"]
    a = write(tmp_path / "a.jsonl", lines)
    b = write(tmp_path / "b.jsonl", [*lines[:seq], other])
    done = verify(str(a), str(b))
    assert done.returncode == EXIT_FORK, done.stdout + done.stderr
    assert f"FORK at entry {seq}" in done.stdout
    assert lines[seq].decode() in done.stdout and other.decode() in done.stdout
    (table,) = json.loads(verify("--json", str(a), str(b)).stdout)["comparisons"]
    (fork,) = table["forks"]
    assert fork["seq"] == seq and fork["entries"] == [lines[seq].decode(), other.decode()]


def test_a_shorter_transcript_of_the_same_history_stops_early_and_is_no_failure(
    tmp_path: Path,
) -> None:
    lines, _ = game_and_a_fork()
    a = write(tmp_path / "a.jsonl", lines)
    cut = len(lines) - 5
    b = write(tmp_path / "b.jsonl", lines[:cut])
    done = verify(str(a), str(b))
    assert done.returncode == EXIT_INCOMPLETE, done.stdout
    assert f"{b} stops at entry {cut}" in done.stdout and "FAILED" not in done.stdout
    assert verify("--partial", str(a), str(b)).returncode == EXIT_VERIFIED
    # Each file names the code of its last entry, to set beside another player's.
    assert f"code at entry {len(lines) - 1} (the last): " in done.stdout
    assert f"code at entry {cut - 1} (the last): " in done.stdout


def test_a_log_left_before_its_end_is_incomplete_with_the_round_and_entry_and_the_partial_hint(
    tmp_path: Path,
) -> None:
    lines, _ = game_and_a_fork()
    cut = lines[: len(lines) - 5]
    rounds = [json.loads(line)["event"]["round"] for line in cut if b'"type":"round"' in line]
    b = write(tmp_path / "left.jsonl", cut)
    done = verify(str(b))
    assert done.returncode == EXIT_INCOMPLETE, done.stdout
    assert f"incomplete: verified up to round {rounds[-1]}, entry {len(cut) - 1}" in done.stdout
    assert (
        "--partial" in done.stdout and "FAILED" not in done.stdout and "MISSING" not in done.stdout
    )
    as_json = json.loads(verify("--json", str(b)).stdout)
    assert as_json["verdict"] == "incomplete"
    assert as_json["stopped_at"] == {"round": rounds[-1], "entry": len(cut) - 1}


def test_files_of_different_tables_are_compared_within_their_own_table_only(
    tmp_path: Path,
) -> None:
    lines, _ = game_and_a_fork()
    g = Game(seed=2, name="another table").start()
    g.play()
    a = write(tmp_path / "a.jsonl", lines)
    a2 = write(tmp_path / "a2.jsonl", lines)
    c = write(tmp_path / "c.jsonl", g.host.lines())
    done = verify(str(a), str(c), str(a2))
    assert done.returncode == EXIT_VERIFIED, done.stdout
    assert done.stdout.count("transcripts compared") == 1
    assert f"2 transcripts compared ({a}, {a2})" in done.stdout
    as_json = json.loads(verify("--json", str(a), str(c), str(a2)).stdout)
    assert [f["file"] for f in as_json["files"]] == [str(a), str(c), str(a2)]
    (table,) = as_json["comparisons"]
    assert table["files"] == [str(a), str(a2)] and table["agree"] and table["forks"] == []


def test_a_failure_outranks_a_log_cut_short(tmp_path: Path) -> None:
    lines, other = game_and_a_fork()
    seq = json.loads(other)["seq"]
    bad = write(tmp_path / "bad.jsonl", [*lines[:seq], other, *lines[seq + 1 :]])
    short = write(tmp_path / "short.jsonl", lines[: seq - 1])
    assert verify(str(bad)).returncode == EXIT_FAILED
    # bad.jsonl also departs from short's table history only after short stops: no fork.
    assert verify(str(short), str(bad)).returncode == EXIT_FAILED


def test_a_damaged_line_beside_an_honest_file_is_that_files_failure_not_a_fork(
    tmp_path: Path,
) -> None:
    """A line the host never signed (one byte changed in one player's copy) proves nothing
    against the host: `verify A B` names the damaged file and fails it, and reports no fork,
    whichever of the two files is the longer."""
    lines, _ = game_and_a_fork()
    seq = len(lines) // 2
    damaged_line = lines[seq].replace(b'"seq":', b'"seq": ', 1)
    assert damaged_line != lines[seq]
    for cut in (len(lines), seq + 1):  # the damaged copy as long as, then shorter than, A
        a = write(tmp_path / "a.jsonl", lines)
        b = write(tmp_path / "b.jsonl", [*lines[:seq], damaged_line, *lines[seq + 1 : cut]])
        done = verify(str(a), str(b))
        said = done.stdout + done.stderr
        assert done.returncode == EXIT_FAILED, said
        assert "FORK" not in said
        assert f"b.jsonl holds at entry {seq} a line the host did not sign" in said
        (table,) = json.loads(verify("--json", str(a), str(b)).stdout)["comparisons"]
        assert table["forks"] == [] and table["damaged"] == [{"file": str(b), "seq": seq}]
    # The honest copy the shorter one: the damage is still laid at the damaged file's door.
    a = write(tmp_path / "a.jsonl", lines[: seq + 1])
    b = write(tmp_path / "b.jsonl", [*lines[:seq], damaged_line, *lines[seq + 1 :]])
    (table,) = json.loads(verify("--json", str(a), str(b)).stdout)["comparisons"]
    assert table["forks"] == [] and table["damaged"] == [{"file": str(b), "seq": seq}]
