"""`p2pdice verify FILE...`: replay saved transcripts offline and say whether they hold up."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from ..core.codec import CodecError, decode
from ..core.describe import ranking_line
from ..core.rules import Rules
from ..core.verify import Failure, Report, split_lines, verify_lines
from .options import CliError


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
    try:
        data = path.read_bytes()
    except OSError as err:
        report = Report()
        from ..core.errors import Reason

        report.failure = Failure(None, Reason.INTERNAL, f"cannot read the file: {err.strerror}")
        return report
    lines, problem = split_lines(data)
    # A cut-off last line is the failure to report, not the game-over entry it took with it.
    report = verify_lines(
        lines if problem is None else lines[:-1], partial=partial or problem is not None, mine=mine
    )
    if problem is not None and report.failure is None:
        report.failure = problem
    return report


def human(path: Path, report: Report) -> str:
    out = []
    if report.ok:
        out.append(f"{path}: verified ({report.entries} entries)")
    else:
        assert report.failure is not None
        out.append(f"{path}: FAILED at {report.failure.describe()}")
    if report.table_id:
        out.append(
            f"  table {report.table_name!r}, id {report.table_id[:16]}..., host key {report.host_key[:16]}..."
        )
    if report.comparison_code:
        out.append(f"  comparison code {report.comparison_code}")
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
    if report.ranking:
        names = {p["seat"]: p["name"] for p in report.roster}
        out.append("  ranking: " + ranking_line(report.ranking, names))
    if report.ended == "abandoned":
        out.append(
            "  the game ended without a winner (ended early by the host, or every seat left forfeited)"
        )
    for warning in report.warnings:
        out.append(f"  WARNING (entry {warning.index}): {warning.detail}")
    if report.mine_checked:
        out.append(
            f"  your messages: {report.mine_checked} checked, {report.mine_pending} not yet posted"
        )
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    mine = load_mine(Path(args.mine)) if args.mine else None
    all_ok = True
    results = []
    for name in args.files:
        path = Path(name)
        report = verify_file(path, partial=args.partial, mine=mine)
        all_ok &= report.ok
        if args.json:
            results.append({"file": str(path), **report.to_json()})
        else:
            print(human(path, report))
    if args.json:
        print(json.dumps(results if len(results) != 1 else results[0], indent=1))
    return 0 if all_ok else 1
