"""A round that ended in a forfeit opened no hand and counted nothing: its call is counted as
neither right nor wrong, its bid as neither held nor failed. Its bids are still bids made, and
its seats still played the round and lost what they forfeited. A void round was never dealt:
it is nobody's round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "protocol" / "examples"


def test_a_forfeited_round_counts_no_call_as_right_or_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Round 1: P0 bids, P1 calls "Liar!", neither opening arrives: both forfeit their die.
    no_survivor = str(EXAMPLES / "no-survivor.jsonl")
    assert main(["stats", "--home", str(tmp_path), "--import", no_survivor, "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    players = {p["names"][0]: p for p in group["players"]}
    bidder, caller = players["P0"], players["P1"]
    assert caller["calls"] == {"made": 0, "right": 0, "rate": None}
    assert bidder["bids_called"] == {"called": 0, "held": 0, "rate": None}
    assert bidder["bluffs"] == {"bids": 1, "known": 0, "bluffs": 0, "rate": None}
    for player in (bidder, caller):
        assert (player["rounds"], player["dice_lost"]) == (1, 1)


def test_a_void_round_is_nobodys_round(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Two rounds void (seat 1's contribution never arrives), then the host ends the game.
    void_cap = str(EXAMPLES / "void-cap.jsonl")
    assert main(["stats", "--home", str(tmp_path), "--import", void_cap, "--json"]) == 0
    (group,) = json.loads(capsys.readouterr().out)["groups"]
    for player in group["players"]:
        assert (player["rounds"], player["dice_lost"], player["dice_lost_per_round"]) == (
            0,
            0,
            None,
        )
