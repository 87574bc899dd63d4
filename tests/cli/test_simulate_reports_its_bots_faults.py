"""`simulate` reports how many decisions failed and became the blind move (docs/bots.md,
"Randomness and faults": `simulate` reports the total, `tournament` a count per bot), on
the rules engine and through the protocol alike."""

from __future__ import annotations

import json
import random

import pytest

from p2pdice.cli import main
from p2pdice.core.game import Action
from p2pdice.core.view import SeatView

BROKEN = f"{__name__}:broken"


def broken(view: SeatView, rng: random.Random) -> Action:
    raise RuntimeError("a third-party bot that always fails")


def _simulate(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["simulate", "--games", "2", "--seed", "1", "--bots", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("protocol", [[], ["--protocol"]], ids=["engine", "protocol"])
def test_the_json_holds_the_total_of_faults(
    capsys: pytest.CaptureFixture[str], protocol: list[str]
) -> None:
    out = _simulate(capsys, f"{BROKEN},medium", "--seats", "2", "--json", *protocol)
    assert json.loads(out)["bot_faults"] > 0
    out = _simulate(capsys, "medium", "--seats", "2", "--json", *protocol)
    assert json.loads(out)["bot_faults"] == 0


def test_the_text_says_how_many_decisions_failed(capsys: pytest.CaptureFixture[str]) -> None:
    out = _simulate(capsys, f"{BROKEN},medium", "--seats", "2")
    assert "bot faults:" in out
    assert "bot faults:" not in _simulate(capsys, "medium", "--seats", "2")
