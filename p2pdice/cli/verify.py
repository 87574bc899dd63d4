"""`p2pdice verify FILE...`: replay saved transcripts offline and say whether they hold up."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..core.codec import CodecError, decode
from ..core.compare import StoppedAt, Transcript, compare_transcripts
from ..core.describe import ranking_line
from ..core.errors import Reason
from ..core.rules import Rules
from ..core.verify import (
    Failure,
    Report,
    incomplete,
    last_code,
    report_json,
    split_lines,
    stop_of,
)
from .options import CliError
from .parallel_verify import jobs_for, verify_lines_batched, verify_paths
from .verify_exits import EXIT_FAILED, EXIT_FORK, EXIT_INCOMPLETE, EXIT_VERIFIED


def load_mine(path: Path) -> list[dict[str, Any]]:
    """A client's record of its own sent messages (JSON Lines, see p2pdice/store.py)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        raise CliError(f"--mine: cannot read {path}: {err.strerror}") from None
    records = []
    for number, line in enumerate(data.splitlines(), 1):
        try:
            record = decode(line)
        except CodecError as err:
            raise CliError(f"--mine: {path} line {number}: {err.detail}") from None
        if isinstance(record, dict):
            records.append(record)
    return records


def verify_file(path: Path, *, partial: bool, mine: list[dict[str, Any]] | None) -> Report:
    return _verify_read(path, partial=partial, mine=mine)[0]


def _verify_read(
    path: Path, *, partial: bool, mine: list[dict[str, Any]] | None, jobs: int = 1
) -> tuple[Report, list[bytes]]:
    """The report and the complete lines read (for comparing files of one table)."""
    try:
        data = path.read_bytes()
    except OSError as err:
        report = Report()
        report.failure = Failure(None, Reason.INTERNAL, f"cannot read the file: {err.strerror}")
        return report, []
    lines, problem = split_lines(data)
    # A cut-off last line is the failure to report, not the game-over entry it took with it.
    report = verify_lines_batched(
        lines if problem is None else lines[:-1],
        jobs=jobs_for(len(data), jobs),
        partial=partial or problem is not None,
        mine=mine,
    )
    if problem is not None and report.failure is None:
        report.failure = problem
    return report, lines if problem is None else lines[:-1]


def human(
    path: Path,
    report: Report,
    stop: StoppedAt | None = None,
    head: tuple[int, str] | None = None,
) -> str:
    out = []
    if report.ok and stop is not None:
        out.append(f"{path}: verified as a partial log ({stop.describe()})")
    elif report.ok:
        out.append(f"{path}: verified ({report.entries} entries)")
    elif incomplete(report) and stop is not None:
        out.append(
            f"{path}: incomplete: {stop.describe()}; the log stops before the game's end "
            "(its player left, or the host stopped): nothing in it failed. "
            "`p2pdice verify --partial` checks it as the partial log it is"
        )
    else:
        assert report.failure is not None
        out.append(f"{path}: FAILED at {report.failure.describe()}")
    if report.table_id:
        out.append(
            f"  table {report.table_name!r}, id {report.table_id[:16]}..., host key {report.host_key[:16]}..."
        )
    if report.comparison_code:
        out.append(f"  comparison code {report.comparison_code}")
    if head is not None:
        out.append(
            f"  code at entry {head[0]} (the last): {head[1]} (the same code at the same entry in "
            "another player's file: the same history)"
        )
    if report.rules:
        rules = Rules.from_json(report.rules)
        out.append(
            f"  rules: {rules.summary()}{' (practice table: not a contest)' if report.practice else ''}"
        )
    if report.roster:
        players = ", ".join(
            f"{p['name']} (seat {p['seat']}{', CPU run by the host' if p['host_run'] else ', CPU' if p['cpu'] else ''})"
            for p in report.roster
        )
        out.append(f"  players: {players}")
        host_run = [p for p in report.roster if p["host_run"]]
        if host_run:
            out.append(
                f"  note: the host's machine could read the hands of {len(host_run)} CPU seat(s) it ran"
            )
    out += [f"  {line}" for line in report.rounds]
    if report.host_acts:
        summary = ", ".join(f"{n} {kind}" for kind, n in sorted(report.host_acts.items()))
        out.append(f"  host acts (attributed to the host): {summary}")
        out += [f"    {line}" for line in report.host_act_lines]
    out += [f"  time bank: {line}" for line in report.stalls]
    abandoned = report.ended == "abandoned"
    if report.ranking:
        names = {p["seat"]: p["name"] for p in report.roster}
        shared = report.survivors if abandoned else 0
        out.append("  ranking: " + ranking_line(report.ranking, names, shared=shared))
    if abandoned and report.survivors > 1:
        out.append(
            f"  the game ended without a winner (ended early by the host): the {report.survivors} "
            "seats still in share 1st"
        )
    elif abandoned:
        out.append(
            "  the game ended without a winner (ended early by the host, or every seat left forfeited)"
        )
    for warning in report.warnings:
        out.append(f"  WARNING (entry {warning.index}): {warning.detail}")
    if report.mine_checked:
        out.append(
            f"  your messages: {report.mine_checked} checked, {report.mine_pending} not yet posted"
        )
    for undelivered in report.mine_undelivered:  # information: nobody is accused
        out.append(f"  note: {undelivered.describe()}")
    return "\n".join(out)


def _total_size(paths: list[Path]) -> int:
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:
            continue  # reported when it is read
    return total


def transcripts_given(names: list[str]) -> list[Path]:
    """The files to verify: a file that cannot be read is a bad command line (CliError, exit
    2), and a client's record of sent messages (a folder's `sent.jsonl`, easily caught by a
    `*.jsonl` pattern) is left out with a note, since it is no transcript but what `--mine`
    reads."""
    paths: list[Path] = []
    for name in names:
        path = Path(name)
        try:
            with path.open("rb") as file:
                first = file.readline(64 * 1024)
        except OSError as err:
            raise CliError(f"cannot read {name}: {err.strerror}") from None
        if _is_sent_record(first):
            print(
                f"note: {name} is a record of the messages you sent, not a transcript: left "
                f"out (check it with --mine {name} beside its transcript)",
                file=sys.stderr,
            )
            continue
        paths.append(path)
    if not paths:
        raise CliError("no transcript to verify among the files given")
    return paths


def _is_sent_record(first_line: bytes) -> bool:
    """The first line of a sent-messages record (SPEC.md 9: objects with `at`, never `seq`)."""
    try:
        obj = json.loads(first_line)
    except ValueError:
        return False
    return isinstance(obj, dict) and "at" in obj and "seq" not in obj


def run(args: argparse.Namespace) -> int:
    mine = load_mine(Path(args.mine)) if args.mine else None
    status = EXIT_VERIFIED
    results = []
    read: list[Transcript] = []
    paths = transcripts_given(args.files)
    jobs = getattr(args, "jobs", 1)
    verified = (
        [_verify_read(paths[0], partial=args.partial, mine=mine, jobs=jobs)]
        if len(paths) == 1
        else verify_paths(
            paths, jobs=jobs_for(_total_size(paths), jobs), partial=args.partial, mine=mine
        )
    )
    if mine:
        _mine_of_a_table_given(Path(args.mine), mine, {r.table_id for r, _ in verified})
    for path, (report, lines) in zip(paths, verified, strict=True):
        if not report.ok:
            status = _worse(status, EXIT_INCOMPLETE if incomplete(report) else EXIT_FAILED)
        if lines:
            read.append(Transcript(str(path), lines))
        if args.json:
            # protocol/schemas/v1/report.schema.json: the core's report, named by its file.
            results.append({"file": str(path), **report_json(report, lines)})
        else:
            print(human(path, report, stop_of(report, lines), last_code(lines[: report.entries])))
    comparisons = compare_transcripts(read) if len(read) > 1 else []
    if any(not c.agree for c in comparisons):
        status = _worse(status, EXIT_FORK)
    if args.json:
        # One file: its report. Several: every report, and how the files of each table compare
        # (protocol/schemas/v1/report.schema.json).
        body: Any = (
            results[0]
            if len(results) == 1
            else {"files": results, "comparisons": [c.to_json() for c in comparisons]}
        )
        print(json.dumps(body, indent=1))
    else:
        for comparison in comparisons:
            print("\n".join(comparison.lines()))
    return status


def _mine_of_a_table_given(path: Path, mine: list[dict[str, Any]], tables: set[str]) -> None:
    """Refuse a record of sent messages none of which was sent at a table given (by the
    table ids the files' genesis entries named; a file that names none, or a record with no
    message, proves nothing either way): checked against another table's log it would find
    nothing missing only because it checked nothing."""
    sent_at = {
        record["msg"]["body"]["table"]
        for record in mine
        if isinstance(record.get("msg"), dict)
        and isinstance(record["msg"].get("body"), dict)
        and isinstance(record["msg"]["body"].get("table"), str)
    }
    given = {table for table in tables if table}
    if not sent_at or not given or sent_at & given:
        return
    where = ", ".join(sorted(table[:16] for table in sent_at))
    raise CliError(
        f"--mine: none of the messages in {path} was sent at the table given (they were sent "
        f"at table {where}): give the sent.jsonl of the same table's folder as the transcript"
    )


def _worse(status: int, other: int) -> int:
    """The status to exit with when both apply: a fork, then a failure, then a log cut short."""
    order = (EXIT_VERIFIED, EXIT_INCOMPLETE, EXIT_FAILED, EXIT_FORK)
    return max(status, other, key=order.index)
