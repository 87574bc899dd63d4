"""`tournament --json` holds what the text output shows beside the win rates: each bot's seats
and faults, and the rounds played; docs/bots.md shows the same keys. Before, a script
reading the JSON could not see a bot's faults (a third-party bot failing every decision
looked like a weak one) nor how many seats a repeated bot held."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from p2pdice.cli import main

DOCS = Path(__file__).resolve().parents[2] / "docs" / "bots.md"


def _report(capsys: pytest.CaptureFixture[str], bots: str, *more: str) -> dict:
    assert main(["tournament", "--bots", bots, "--games", "12", "--seed", "3", *more]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_holds_each_bots_seats_and_faults_and_the_rounds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = _report(capsys, "medium,easy,easy,tests.bots.test_tournament:broken_bot", "--json")
    bots = data["bots"]
    assert {n: b["seats"] for n, b in bots.items()} == {
        "medium": 1,
        "easy": 2,
        "tests.bots.test_tournament:broken_bot": 1,
    }
    assert bots["tests.bots.test_tournament:broken_bot"]["faults"] > 0
    assert bots["medium"]["faults"] == bots["easy"]["faults"] == 0
    assert data["rounds"] > 0


def test_json_says_what_the_text_says(capsys: pytest.CaptureFixture[str]) -> None:
    data = _report(capsys, "medium,tests.bots.test_tournament:broken_bot", "--json")
    text = _report_text(capsys, "medium,tests.bots.test_tournament:broken_bot")
    for name, bot in data["bots"].items():
        row = next(line.split() for line in text.splitlines() if line.split()[:1] == [name])
        assert (int(row[1]), int(row[-1])) == (bot["seats"], bot["faults"]), row
    assert f"{data['rounds']} rounds" in text


def _report_text(capsys: pytest.CaptureFixture[str], bots: str) -> str:
    assert main(["tournament", "--bots", bots, "--games", "12", "--seed", "3"]) == 0
    return capsys.readouterr().out


def test_the_docs_show_the_keys_the_json_has(capsys: pytest.CaptureFixture[str]) -> None:
    data = _report(capsys, "hard,medium", "--json")
    section = DOCS.read_text(encoding="utf-8").split("## The tournament command", 1)[1]
    shown = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    assert set(shown) == set(data)
    for entry in shown["bots"].values():
        assert set(entry) == set(data["bots"]["hard"])
