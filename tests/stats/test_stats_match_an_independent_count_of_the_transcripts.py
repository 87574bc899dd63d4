"""`p2pdice stats --json` over protocol games says what a plain walk over the same JSON lines
counts: games, wins, places, dice lost, Liar calls and how often right, bids called and how
often they held, bluffs, exact calls, head-to-head, split by rules preset."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from p2pdice.cli import main

from .tables import league, save_home

PRESETS = {"wild": "classic", "aces": "perudo"}  # the `ones` option tells the two apart here


def figures(out: dict[tuple[str, str], dict[str, Any]], preset: str, key: str) -> dict[str, Any]:
    fresh: dict[str, Any] = {
        "h2h": defaultdict(list),
        **dict.fromkeys(
            (
                "games",
                "wins",
                "rounds",
                "dice_lost",
                "calls",
                "calls_right",
                "called",
                "held",
                "bids",
                "known",
                "bluffs",
                "exact",
                "exact_right",
            ),
            0,
        ),
        "places": {},
    }
    return out.setdefault((preset, key), fresh)


def recount(transcripts: list[list[bytes]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Figures per (preset, key), read straight from the entries' JSON: the test's own count,
    sharing nothing with p2pdice.stats but the file format (protocol/SPEC.md)."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for lines in transcripts:
        entries = [json.loads(line) for line in lines]
        rules = entries[0]["event"]["rules"]
        preset = PRESETS[rules["ones"]]
        keys: dict[int, str] = {}
        dice = [rules["starting_dice"]] * rules["seats"]
        bids: list[dict[str, Any]] = []
        call: dict[str, Any] | None = None
        palifico = False

        def row(seat: int, keys: dict[int, str] = keys, preset: str = preset) -> dict[str, Any]:
            return figures(out, preset, keys[seat])

        for entry in entries:
            event, msg = entry.get("event"), entry.get("msg", {}).get("body")
            if msg is not None:
                if msg["type"] == "join":
                    keys[msg["seat"]] = msg["key"]
                elif msg["type"] == "bid":
                    bids.append(msg)
                elif msg["type"] in ("challenge", "exact"):
                    call = msg
                continue
            if event["type"] == "round":
                bids, call = [], None
            elif event["type"] == "result":
                wild = rules["ones"] != "natural" and not palifico
                for seat, before in enumerate(dice):
                    if before:
                        row(seat)["rounds"] += 1
                        row(seat)["dice_lost"] += max(0, before - event["dice_after"][seat])
                for bid in bids:
                    mine = row(bid["seat"])
                    mine["bids"] += 1
                    hand = event["hands"][bid["seat"]]
                    if hand:
                        mine["known"] += 1
                        face = bid["face"]
                        support = [d for d in hand if d == face or (wild and face != 1 and d == 1)]
                        mine["bluffs"] += not support
                assert call is not None
                caller = row(call["seat"])
                if call["type"] == "challenge":
                    caller["calls"] += 1
                    caller["calls_right"] += event["outcome"] == "bid_fails"
                    bidder = row(bids[-1]["seat"])
                    bidder["called"] += 1
                    bidder["held"] += event["outcome"] == "bid_stands"
                else:
                    caller["exact"] += 1
                    caller["exact_right"] += event["outcome"] == "exact_hit"
                dice, palifico = event["dice_after"], event["palifico_next"]
            elif event["type"] == "game_over":
                assert event["reason"] == "finished"
                ranking = event["ranking"]
                for place, seat in enumerate(ranking, 1):
                    mine = row(seat)
                    mine["games"] += 1
                    mine["wins"] += place == 1
                    mine["places"][str(place)] = mine["places"].get(str(place), 0) + 1
                    for other_place, other in enumerate(ranking, 1):
                        if other != seat:
                            mine["h2h"][keys[other]].append(place < other_place)
    return out


@pytest.fixture(scope="module")
def games() -> list[list[bytes]]:
    return league(8)


def test_every_figure_matches_a_plain_count_of_the_entries(
    games: list[list[bytes]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = save_home(tmp_path, games, [f"t{n}" for n in range(len(games))])
    assert main(["stats", "--home", str(home), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == len(games) and body["skipped"] == []
    expected = recount(games)
    seen = {}
    for group in body["groups"]:
        assert group["kind"] == "standard"
        for p in group["players"]:
            seen[(group["preset"], p["key"])] = p
    assert sorted(seen) == sorted(expected)
    for where, want in expected.items():
        got = seen[where]
        assert got["games"] == want["games"] and got["wins"] == want["wins"], where
        assert got["places"] == want["places"], where
        assert (got["rounds"], got["dice_lost"]) == (want["rounds"], want["dice_lost"]), where
        assert (got["calls"]["made"], got["calls"]["right"]) == (want["calls"], want["calls_right"])
        assert (got["bids_called"]["called"], got["bids_called"]["held"]) == (
            want["called"],
            want["held"],
        )
        assert (got["bluffs"]["bids"], got["bluffs"]["known"], got["bluffs"]["bluffs"]) == (
            want["bids"],
            want["known"],
            want["bluffs"],
        )
        assert (got["exact_calls"]["made"], got["exact_calls"]["right"]) == (
            want["exact"],
            want["exact_right"],
        )
        for other, aheads in want["h2h"].items():
            h2h = got["head_to_head"][other]
            assert (h2h["games"], h2h["ahead"]) == (len(aheads), sum(aheads)), (where, other)
    # The games exercised what they count: some calls right, some wrong, some exact calls.
    totals = {
        k: sum(w[k] for w in expected.values()) for k in ("calls", "calls_right", "exact", "bluffs")
    }
    assert 0 < totals["calls_right"] < totals["calls"]
    assert totals["exact"] > 0 and totals["bluffs"] > 0
