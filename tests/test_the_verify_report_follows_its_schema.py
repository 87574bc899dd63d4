"""The verify report follows protocol/schemas/v1/report.schema.json, the contract a second
implementation's verifier is held to (SPEC.md 9).

Every example report validates as `$defs/report`; `p2pdice verify --json` validates for each
example game, each mutant, a log cut short (with and without --partial), a game abandoned in
the lobby, two files of one table and a fork; one file's output is the example report plus
`file`; the schema's enumerations are the code's; and it refuses a report with an unknown
key, a wrong verdict, a missing head_code or a verdict its failure contradicts.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any, get_args

import pytest

from p2pdice.cli import main
from p2pdice.cli.verify_exits import EXIT_FAILED, EXIT_FORK, EXIT_INCOMPLETE, EXIT_VERIFIED
from p2pdice.core.codec import decode
from p2pdice.core.messages import MessageType
from p2pdice.core.verify import HOST_ACTS, WarningKind
from tests.support.cheats import Game
from tests.support.vectors import PROTOCOL
from tests.test_schemas import _def, assert_valid, valid

EXAMPLES = PROTOCOL / "examples"
SCHEMA = "report.schema.json"
EXAMPLE_REPORT = "report.schema.json#/$defs/report"
GAMES = json.loads((EXAMPLES / "games.json").read_text())
MUTANTS = json.loads((EXAMPLES / "mutants.json").read_text())
SEVERAL = json.loads((EXAMPLES / "several.json").read_text())
MINE = json.loads((EXAMPLES / "mine.json").read_text())


def verify_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    """`p2pdice verify --json ARGS`, run in-process: its exit status and what it printed."""
    capsys.readouterr()
    status = main(["verify", "--json", *args])
    return status, json.loads(capsys.readouterr().out)


def example_report(name: str) -> dict[str, Any]:
    return json.loads((EXAMPLES / name).read_text())


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def game_lines() -> list[bytes]:
    return (EXAMPLES / "game.jsonl").read_bytes().splitlines()


# ---- the examples ------------------------------------------------------------------------


@pytest.mark.parametrize("item", GAMES, ids=[g["report"] for g in GAMES])
def test_every_example_report_follows_the_example_report_definition(item: dict[str, str]) -> None:
    report = example_report(item["report"])
    assert_valid(EXAMPLE_REPORT, report)
    assert report["verdict"] == "verified" and report["head_code"] is not None


@pytest.mark.parametrize("item", GAMES, ids=[g["file"] for g in GAMES])
def test_verify_json_of_an_example_game_is_its_example_report_with_file(
    item: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path = EXAMPLES / item["file"]
    status, out = verify_json(capsys, str(path))
    assert status == EXIT_VERIFIED
    assert_valid(SCHEMA, out)
    want = {"file": str(path), **example_report(item["report"])}
    assert out == want and list(out) == list(want)


@pytest.mark.parametrize("item", SEVERAL, ids=[s["report"] for s in SEVERAL])
def test_every_several_files_example_report_follows_the_several_definition(
    item: dict[str, Any],
) -> None:
    report = example_report(item["report"])
    assert_valid("report.schema.json#/$defs/several", report)
    assert [f["file"] for f in report["files"]] == item["files"]
    assert any(not c["agree"] for c in report["comparisons"]) == (item["status"] == EXIT_FORK)


@pytest.mark.parametrize("item", MINE, ids=[m["report"] for m in MINE])
def test_every_mine_example_report_follows_the_example_report_definition(
    item: dict[str, str],
) -> None:
    report = example_report(item["report"])
    assert_valid(EXAMPLE_REPORT, report)
    assert report["mine"] is not None and report["mine"]["undelivered"]


def test_the_reports_rules_name_the_seats_that_play_not_the_genesis_seats() -> None:
    """three-of-five: a genesis for 5 seats, a game of 3: rules.seats is n, the roster's length."""
    genesis = decode((EXAMPLES / "three-of-five.jsonl").read_bytes().splitlines()[0])["event"]
    report = example_report("three-of-five.report.json")
    assert genesis["rules"]["seats"] == 5
    assert report["rules"]["seats"] == len(report["roster"]) == 3


def test_the_example_reports_hold_every_host_act_and_every_warning_kind() -> None:
    acts = {k for g in GAMES for k in example_report(g["report"])["host_acts"]}
    kinds = {w["kind"] for g in GAMES for w in example_report(g["report"])["warnings"]}
    assert acts == set(HOST_ACTS)
    assert kinds == set(get_args(WarningKind))


def test_the_schemas_enumerations_are_the_codes() -> None:
    report = _def("report.schema.json#/$defs/report")["properties"]
    assert list(report["host_acts"]["properties"]) == list(HOST_ACTS)
    warning = report["warnings"]["items"]["properties"]
    assert warning["kind"]["enum"] == list(get_args(WarningKind))
    undelivered = report["mine"]["properties"]["undelivered"]["items"]["properties"]
    assert undelivered["type"]["enum"] == [t.value for t in MessageType]
    file_report = _def("report.schema.json#/$defs/file_report")
    assert file_report["required"] == ["file", *_def(EXAMPLE_REPORT)["required"]]


# ---- verify --json on logs that fail or stop ---------------------------------------------


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m["file"] for m in MUTANTS])
def test_verify_json_of_a_mutant_follows_the_schema_and_names_its_failure(
    mutant: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out = verify_json(capsys, str(EXAMPLES / mutant["file"]))
    assert_valid(SCHEMA, out)
    assert out["ok"] is False
    assert out["failure"]["index"] == mutant["index"]
    assert out["failure"]["reason"] == mutant["reason"]
    if mutant["reason"] == "MISSING_GAME_OVER":  # the game-over entry dropped: a log cut short
        assert (status, out["verdict"]) == (EXIT_INCOMPLETE, "incomplete")
        assert out["stopped_at"]["entry"] == out["entries"] - 1
    else:
        assert (status, out["verdict"], out["stopped_at"]) == (EXIT_FAILED, "failed", None)
    if out["entries"]:  # the code of the last entry that verified
        assert out["head_code"]["entry"] == out["entries"] - 1
    else:
        assert out["head_code"] is None


def test_a_log_cut_short_is_incomplete_and_with_partial_verified_where_it_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_lines()[:-7]
    rounds = [decode(line)["event"]["round"] for line in lines if b'"type":"round"' in line]
    cut = write(tmp_path / "left.jsonl", lines)
    stop = {"round": rounds[-1], "entry": len(lines) - 1}
    status, out = verify_json(capsys, str(cut))
    assert_valid(SCHEMA, out)
    assert status == EXIT_INCOMPLETE
    assert (out["ok"], out["verdict"], out["stopped_at"]) == (False, "incomplete", stop)
    assert (out["failure"]["index"], out["failure"]["reason"]) == (None, "MISSING_GAME_OVER")
    assert (out["ended"], out["ranking"]) == (None, [])
    assert out["head_code"]["entry"] == len(lines) - 1
    status, partial = verify_json(capsys, "--partial", str(cut))
    assert_valid(SCHEMA, partial)
    assert status == EXIT_VERIFIED
    assert (partial["ok"], partial["verdict"], partial["failure"]) == (True, "verified", None)
    assert partial["stopped_at"] == stop and partial["head_code"] == out["head_code"]


def test_a_game_abandoned_in_the_lobby_has_ended_and_did_not_stop(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The transition case whose game_over comes in the lobby: verified, ended `abandoned`,
    ranking [], not a partial log stopped in the lobby."""
    cases = json.loads((PROTOCOL / "vectors" / "v1" / "transition_cases.json").read_text())
    (case,) = [
        t
        for group in cases["test_groups"]
        for t in group["tests"]
        if t["comment"].startswith("a game abandoned in the lobby")
    ]
    prefix = cases["transcripts"][case["prefix"]][: case["length"]]
    path = write(tmp_path / "lobby.jsonl", [line.encode() for line in prefix + case["lines"]])
    status, out = verify_json(capsys, str(path))
    assert_valid(SCHEMA, out)
    assert status == EXIT_VERIFIED
    assert (out["verdict"], out["ended"], out["ranking"]) == ("verified", "abandoned", [])
    assert out["stopped_at"] is None and out["roster"] == [] and out["comparison_code"] is None


def test_two_files_of_one_table_give_every_report_and_their_comparison(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = game_lines()
    whole = write(tmp_path / "whole.jsonl", lines)
    short = write(tmp_path / "short.jsonl", lines[:-7])
    status, out = verify_json(capsys, str(whole), str(short))
    assert_valid(SCHEMA, out)
    assert status == EXIT_INCOMPLETE
    assert [f["verdict"] for f in out["files"]] == ["verified", "incomplete"]
    assert out["files"][0] == {"file": str(whole), **example_report("game.report.json")}
    (table,) = out["comparisons"]
    assert table["agree"] and table["forks"] == [] and table["damaged"] == []
    assert table["stops"] == [{"file": str(short), "entries": len(lines) - 7}]
    assert table["table"] == out["files"][0]["table"]["id"]


@cache
def forked() -> tuple[list[bytes], bytes]:
    """A finished game and a host-signed second version of one of its `round` entries."""
    g = Game(seed=1).start()
    g.play()
    honest = g.entries_of("event:round")[1]
    other = g.forge_like(honest, palifico=not honest.event["palifico"])
    return g.host.lines(), other.line


def test_a_fork_follows_the_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines, other = forked()
    seq = json.loads(other)["seq"]
    a = write(tmp_path / "a.jsonl", lines)
    b = write(tmp_path / "b.jsonl", [*lines[:seq], other])
    status, out = verify_json(capsys, str(a), str(b))
    assert_valid(SCHEMA, out)
    assert status == EXIT_FORK
    (table,) = out["comparisons"]
    (fork,) = table["forks"]
    assert not table["agree"] and fork["seq"] == seq and fork["files"] == [str(a), str(b)]


# ---- the schema is strict ----------------------------------------------------------------


def _unknown_key(r: dict[str, Any]) -> None:
    r["extra"] = 1


def _unknown_nested_key(r: dict[str, Any]) -> None:
    r["table"]["seats"] = 2


def _return_for_returned(r: dict[str, Any]) -> None:
    r["host_acts"]["return"] = 1


def _zero_count(r: dict[str, Any]) -> None:
    r["host_acts"]["forced"] = 0


def _wrong_verdict(r: dict[str, Any]) -> None:
    r["verdict"] = "ok"


def _no_head_code(r: dict[str, Any]) -> None:
    del r["head_code"]


def _bad_code(r: dict[str, Any]) -> None:
    r["head_code"]["code"] = r["head_code"]["code"].replace("-", "")


def _verified_yet_failed(r: dict[str, Any]) -> None:
    r["failure"] = {"index": 3, "reason": "BAD_SIGNATURE", "detail": "x"}


def _failed_yet_ok(r: dict[str, Any]) -> None:
    r["verdict"] = "failed"


def _incomplete_at_an_index(r: dict[str, Any]) -> None:
    r.update(
        verdict="incomplete",
        ok=False,
        ended=None,
        ranking=[],
        stopped_at={"round": 3, "entry": 39},
        failure={"index": 39, "reason": "MISSING_GAME_OVER", "detail": "x"},
    )


def _failed_for_a_missing_end(r: dict[str, Any]) -> None:
    r.update(
        verdict="failed",
        ok=False,
        ended=None,
        ranking=[],
        failure={"index": None, "reason": "MISSING_GAME_OVER", "detail": "x"},
    )


def _stopped_after_the_end(r: dict[str, Any]) -> None:
    r["stopped_at"] = {"round": 3, "entry": 39}


def _unknown_reason(r: dict[str, Any]) -> None:
    r.update(verdict="failed", ok=False, failure={"index": 1, "reason": "NOPE", "detail": "x"})


def _unknown_warning_kind(r: dict[str, Any]) -> None:
    r["warnings"] = [{"index": 5, "seat": 0, "kind": "suspicious", "detail": "x"}]


def _rules_key_missing(r: dict[str, Any]) -> None:
    del r["rules"]["seats"]


MUTATIONS = [
    _unknown_key,
    _unknown_nested_key,
    _return_for_returned,
    _zero_count,
    _wrong_verdict,
    _no_head_code,
    _bad_code,
    _verified_yet_failed,
    _failed_yet_ok,
    _incomplete_at_an_index,
    _failed_for_a_missing_end,
    _stopped_after_the_end,
    _unknown_reason,
    _unknown_warning_kind,
    _rules_key_missing,
]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=[m.__name__.strip("_") for m in MUTATIONS])
def test_a_mutated_report_is_refused(mutate: Any) -> None:
    report = example_report("game.report.json")
    assert valid(EXAMPLE_REPORT, report)
    assert valid(SCHEMA, {"file": "game.jsonl", **report})
    mutated = copy.deepcopy(report)
    mutate(mutated)
    assert not valid(EXAMPLE_REPORT, mutated)
    assert not valid(SCHEMA, {"file": "game.jsonl", **mutated})


def test_the_one_file_form_needs_its_file_and_the_example_form_refuses_it() -> None:
    report = example_report("game.report.json")
    assert not valid(SCHEMA, report)
    assert not valid(EXAMPLE_REPORT, {"file": "game.jsonl", **report})
    assert not valid(SCHEMA, {"files": [{"file": "game.jsonl", **report}], "comparisons": []})
