"""hard's openings mix in decoys (a face its hand does not support) at the solved small
game's bluff share, so its opening face says less about its hand than a hand-led bidder's.

Measured exactly over every five-dice hand at a fresh heads-up table
(benchmarks.equilibrium.opening_information): before the decoys hard opened on an
unsupported face 2.8% of the time and its face carried 2.10 bits about its hand.
"""

from __future__ import annotations

import random

import pytest

from benchmarks.equilibrium import opening_information
from p2pdice.bots.hard import hard_policy
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import preset


@pytest.mark.parametrize("mode", ["classic", "perudo"])
def test_hards_opening_face_carries_less_about_its_hand_than_mediums(mode: str) -> None:
    rules = preset(mode, seats=2)
    medium = load_bot("medium")
    hard = opening_information(rules, hard_policy)
    hand_led = opening_information(rules, lambda view: [(1.0, medium(view, random.Random(0)))])
    assert hard["mutual_information"] <= hand_led["mutual_information"] - 0.25, (hard, hand_led)
    # Decoys are a real share of openings, yet most openings still have the hand behind them.
    assert 0.15 <= hard["unsupported"] <= 0.4, hard
    assert hard["surplus"] > 0.5, hard
