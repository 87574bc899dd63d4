"""The files under protocol/ are well-formed, match their schemas and are what the generators write."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from tests.support.vectors import PROTOCOL, SCHEMAS, VECTORS, load_schema, load_vectors

VECTOR_FILES = sorted(p.name for p in VECTORS.glob("*.json"))


@pytest.mark.parametrize("name", VECTOR_FILES)
def test_vector_file_matches_its_schema(name: str) -> None:
    schema = load_schema(f"vectors/{name.removesuffix('.json')}.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(load_vectors(name))


def test_every_schema_is_valid_draft_2020_12() -> None:
    import json

    schemas = sorted(SCHEMAS.rglob("*.schema.json"))
    assert len(schemas) >= len(VECTOR_FILES)
    for path in schemas:
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))


@pytest.mark.parametrize(
    "generator", ["gen_vectors.py", "gen_rules_vectors.py", "gen_transition_cases.py"]
)
def test_generators_reproduce_the_committed_vectors(generator: str, tmp_path: Path) -> None:
    """CI re-runs each generator; any file it would change means the vectors are stale."""
    proc = subprocess.run(
        [sys.executable, str(PROTOCOL / generator), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    written = sorted(tmp_path.glob("*.json"))
    assert written
    for path in written:
        assert path.read_bytes() == (VECTORS / path.name).read_bytes(), f"{path.name} is stale"


@pytest.mark.parametrize("generator", ["gen_vectors.py", "gen_rules_vectors.py", "gen_names.py"])
def test_generators_do_not_import_the_package(generator: str) -> None:
    import ast

    tree = ast.parse((PROTOCOL / generator).read_text())
    imported = {
        (node.module or "") if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in getattr(node, "names", [])
    }
    assert not any(name.split(".")[0] == "p2pdice" for name in imported)


def test_the_example_game_verifies_and_its_mutants_fail(tmp_path: Path) -> None:
    """protocol/examples: a whole game another implementation can check itself against."""
    import json

    from p2pdice.core.verify import report_json, split_lines, verify_lines

    examples = PROTOCOL / "examples"
    lines, problem = split_lines((examples / "game.jsonl").read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok
    assert report_json(report, lines) == json.loads((examples / "game.report.json").read_text())
    for mutant in json.loads((examples / "mutants.json").read_text()):
        lines, problem = split_lines((examples / mutant["file"]).read_bytes())
        failed = problem or verify_lines(lines).failure
        assert failed is not None and failed.reason == mutant["reason"], mutant["comment"]
        assert failed.index == mutant["index"], mutant["comment"]


def _example_games() -> list[tuple[dict, list[bytes]]]:
    import json

    from p2pdice.core.verify import split_lines

    examples = PROTOCOL / "examples"
    games = []
    for item in json.loads((examples / "games.json").read_text()):
        lines, problem = split_lines((examples / item["file"]).read_bytes())
        assert problem is None, item["file"]
        games.append((item, lines))
    return games


def test_every_example_game_verifies_to_its_report() -> None:
    import json

    from p2pdice.core.verify import report_json, verify_lines

    for item, lines in _example_games():
        report = verify_lines(lines)
        assert report.ok, (item["file"], report.failure)
        want = json.loads((PROTOCOL / "examples" / item["report"]).read_text())
        assert report_json(report, lines) == want, item["file"]


def test_the_examples_cover_every_entry_type_and_every_fault_path() -> None:
    """Issue 14: another language can check every entry type and every forfeit path."""
    from p2pdice.core.codec import decode
    from p2pdice.core.events import EVENT_FIELDS
    from p2pdice.core.messages import EXTRA_FIELDS

    seen: set[str] = set()
    forfeits: list[dict] = []
    endings: list[tuple[str, int]] = []
    rejoined = False
    for _, lines in _example_games():
        voids = 0
        join_keys: list[str] = []
        for line in lines:
            entry = decode(line)
            if "msg" in entry:
                body = entry["msg"]["body"]
                seen.add("msg:" + body["type"])
                if body["type"] == "join":
                    join_keys.append(body["key"])
                continue
            event = entry["event"]
            seen.add("event:" + event["type"])
            if "reason" in event:
                seen.add(f"event:{event['type']}:{event['reason']}")
            for inner in event.get("commits", []) + event.get("contributions", []):
                seen.add("msg:" + inner["body"]["type"])
            if event["type"] == "forfeit":
                forfeits.append(event)
                voids += event["reason"] == "no_contribution"
            if event["type"] == "forced":
                seen.add("forced:" + event["action"]["type"])
            if event["type"] == "game_over":
                endings.append((event["reason"], voids))
        rejoined |= len(join_keys) != len(set(join_keys))
    assert {"event:" + k for k in EVENT_FIELDS} <= seen
    assert {"msg:" + k for k in EXTRA_FIELDS} <= seen
    kinds = ("forced:timer", "forced:absent", "absent:grace_expired", "absent:no_reply")
    for kind in (*kinds, "absent:stalled"):
        assert "event:" + kind in seen, kind
    assert {"forced:bid", "forced:challenge"} <= seen
    assert rejoined  # a lobby leaver joins again with the same key (SPEC.md 4.1)
    # Every forfeit path: a void (with the starter still to be drawn, and with a known one),
    # a forfeit for a missing opening with survivors, one that leaves nobody, the void cap.
    voids = [f for f in forfeits if f["reason"] == "no_contribution"]
    assert any(f["next_starter"] is None for f in voids)
    assert any(f["next_starter"] is not None for f in voids)
    assert all(f["dice_after"] != [0] * len(f["dice_after"]) for f in voids)
    opening = [f for f in forfeits if f["reason"] == "no_opening"]
    assert any(any(f["dice_after"]) for f in opening)
    assert any(not any(f["dice_after"]) for f in opening)
    assert ("abandoned", 2) in endings  # the void cap (as many voids as seats, 2) ends the game
    assert {reason for reason, _ in endings} == {"finished", "abandoned"}


def test_the_example_is_what_its_generator_writes(tmp_path: Path) -> None:
    import os

    # The generator plays the game with the package, which is run from the tree, not installed.
    env = {**os.environ, "PYTHONPATH": str(PROTOCOL.parent)}
    proc = subprocess.run(
        [sys.executable, str(PROTOCOL / "gen_example.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    for path in tmp_path.iterdir():
        assert path.read_bytes() == (PROTOCOL / "examples" / path.name).read_bytes(), path.name


def test_the_reason_code_registry_is_the_codes_list() -> None:
    """SPEC.md 11 names every code p2pdice/core/errors.py has, and no other."""
    import re

    from p2pdice.core.errors import Reason

    spec = (PROTOCOL / "SPEC.md").read_text()
    registry = spec[spec.index("## 11. Reason codes") :]
    rows = [line.split("|")[1] for line in registry.splitlines() if line.startswith("| `")]
    named = {code for row in rows for code in re.findall(r"`([A-Z0-9_]+)`", row)}
    assert named == {r.value for r in Reason}


def test_the_several_files_examples_are_what_verify_prints_for_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/several.json: files of one table (a fork, a copy that stops early, a damaged
    copy) and the report and exit status `verify --json` gives for them, in that order."""
    import json

    from p2pdice.cli import main

    examples = PROTOCOL / "examples"
    monkeypatch.chdir(examples)
    for item in json.loads((examples / "several.json").read_text()):
        capsys.readouterr()
        status = main(["verify", "--json", *item["files"]])
        out = json.loads(capsys.readouterr().out)
        assert status == item["status"], item["comment"]
        assert out == json.loads((examples / item["report"]).read_text()), item["comment"]


def test_the_mine_examples_are_what_verify_prints_for_them(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """examples/mine.json: a player's record of sent messages beside its transcript, and the
    report `verify --json --mine` prints (without `file`: `$defs/report`)."""
    import json

    from p2pdice.cli import main

    examples = PROTOCOL / "examples"
    monkeypatch.chdir(examples)
    for item in json.loads((examples / "mine.json").read_text()):
        capsys.readouterr()
        status = main(["verify", "--json", "--mine", item["mine"], item["file"]])
        out = json.loads(capsys.readouterr().out)
        assert status == 0, item["comment"]
        assert out.pop("file") == item["file"]
        assert out == json.loads((examples / item["report"]).read_text()), item["comment"]
        assert out["mine"]["checked"] > 0 and out["mine"]["undelivered"]
