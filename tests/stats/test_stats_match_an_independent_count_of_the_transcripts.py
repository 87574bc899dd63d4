"""`p2pdice stats --json` over protocol games says what a plain walk over the same JSON lines
counts: games, wins, places, dice lost, Liar calls and how often right, bids called and how
often they held, bluffs, exact calls, head-to-head, split by rules preset; in games where
a player left, the moves made for it (by the host, by a CPU stand-in), counted for nobody;
and in games with forfeited and void rounds, calls and bids that no reveal judged, counted as
neither right nor wrong, and draws among the seats whose forfeit together ended a game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.bots.protosim import Faults
from p2pdice.cli import main
from p2pdice.core.rules import preset

from .recount import assert_matches, recount
from .tables import (
    POOL,
    league,
    play_to_no_survivor,
    play_with_a_leaver,
    play_with_faults,
    save_home,
)

PRESETS = {"wild": "classic", "aces": "perudo"}  # the `ones` option tells the two apart here
LEAGUE_GAMES = 8  #: the games without a leaver or a fault, first in the list


@pytest.fixture(scope="module")
def games() -> list[list[bytes]]:
    leavers = [
        play_with_a_leaver(17, preset("classic", seats=4, starting_dice=2), POOL, 1),
        play_with_a_leaver(106, preset("perudo", seats=3, starting_dice=2), POOL[1:], 2),
    ]
    lost = Faults(open=0.2, contribute=0.1)  # only forfeits after a call, and voids
    faulty = [
        play_with_faults(0, preset("classic", seats=4, starting_dice=2), POOL, lost),
        play_with_faults(1, preset("classic", seats=4, starting_dice=2), POOL, lost),
        play_with_faults(4, preset("perudo", seats=4, starting_dice=2), POOL, lost),
        play_to_no_survivor(0, preset("classic", seats=3, starting_dice=1), POOL[:3]),
    ]
    return [*league(LEAGUE_GAMES), *leavers, *faulty]


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
    # Each of the two leavers' games had one seat played by a stand-in, counted once.
    leavers = recount(games[LEAGUE_GAMES : LEAGUE_GAMES + 2], lambda rules: PRESETS[rules["ones"]])
    assert sum(w["stand_in_games"] for w in leavers.values()) == 2
    # And rounds no reveal judged: forfeits after a call, voids, a game nobody survived.
    events = [json.loads(line).get("event") or {} for lines in games for line in lines]
    forfeits = [e for e in events if e.get("type") == "forfeit"]
    assert {e["reason"] for e in forfeits} == {"no_opening", "no_contribution"}
    assert any(not any(e["dice_after"]) for e in forfeits)
