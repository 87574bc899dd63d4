"""`p2pdice stats --json` over protocol games says what a plain walk over the same JSON lines
counts: games, wins, places, dice lost, Liar calls and how often right, bids called and how
often they held, bluffs, exact calls, head-to-head, split by rules preset; and, in games where
a player left, the moves made for it (by the host, by a CPU stand-in), counted for nobody."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.rules import preset

from .recount import assert_matches, recount
from .tables import POOL, league, play_with_a_leaver, save_home

PRESETS = {"wild": "classic", "aces": "perudo"}  # the `ones` option tells the two apart here


@pytest.fixture(scope="module")
def games() -> list[list[bytes]]:
    leavers = [
        play_with_a_leaver(17, preset("classic", seats=4, starting_dice=2), POOL, 1),
        play_with_a_leaver(106, preset("perudo", seats=3, starting_dice=2), POOL[1:], 2),
    ]
    return [*league(8), *leavers]


def test_every_figure_matches_a_plain_count_of_the_entries(
    games: list[list[bytes]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, games, [f"t{n}" for n in range(len(games))])
    assert main(["stats", "--home", str(home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == len(games) and body["skipped"] == []
    assert all(group["kind"] == "standard" for group in body["groups"])
    expected = recount(games, lambda rules: PRESETS[rules["ones"]])
    assert_matches(body, expected)
    # The games exercised what they count: some calls right, some wrong, some exact calls,
    # and moves made for players who left, by the host and by a stand-in.
    totals = {
        k: sum(w[k] for w in expected.values()) for k in ("calls", "calls_right", "exact", "bluffs")
    }
    assert 0 < totals["calls_right"] < totals["calls"]
    assert totals["exact"] > 0 and totals["bluffs"] > 0
    for who in ("host", "stand_in"):
        assert sum(w["made_for_it"][who] for w in expected.values()) > 0
    assert sum(w["stand_in_games"] for w in expected.values()) == 2
