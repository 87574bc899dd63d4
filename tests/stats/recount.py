"""The tests' own count of what `p2pdice stats` figures, read straight from the entries' JSON
(protocol/SPEC.md), sharing nothing with p2pdice.stats but the file format.

Moves are counted by who signed them, as docs/stats.md says: a seat's bid or call is its
player's only while the key that joined the seat holds it; after a `stand_in` event (until
`return`) the seat's messages are a CPU stand-in's, and a `forced` event is the host's. The
rounds a stand-in played are not the player's, and a seat a stand-in played compares with
nobody head to head."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable
from typing import Any

#: Who made a move, as `made_for_it` in `stats --json` names the ones not the player's own.
OWN, HOST, STAND_IN = "own", "host", "stand_in"

FIGURES = (
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
    "stand_in_games",
)


def figures(out: dict[tuple[str, str], dict[str, Any]], group: str, key: str) -> dict[str, Any]:
    fresh: dict[str, Any] = {
        "h2h": defaultdict(list),
        **dict.fromkeys(FIGURES, 0),
        "places": {},
        "made_for_it": {HOST: 0, STAND_IN: 0},
    }
    return out.setdefault((group, key), fresh)


def recount(
    transcripts: list[list[bytes]], group: Callable[[dict[str, Any]], str]
) -> dict[tuple[str, str], dict[str, Any]]:
    """Figures per (group, key) over finished games whose rounds all end in a result; `group`
    names a game's group from its genesis rules."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for lines in transcripts:
        entries = [json.loads(line) for line in lines]
        rules = entries[0]["event"]["rules"]
        name = group(rules)
        keys: dict[int, str] = {}
        standing_in: set[int] = set()  #: seats a stand-in holds now
        stood_in: set[int] = set()  #: seats a stand-in ever played a round of
        dice = [rules["starting_dice"]] * rules["seats"]
        bids: list[tuple[dict[str, Any], str]] = []
        call: tuple[dict[str, Any], str] | None = None
        palifico = False

        def row(seat: int, keys: dict[int, str] = keys, name: str = name) -> dict[str, Any]:
            return figures(out, name, keys[seat])

        for entry in entries:
            event, msg = entry.get("event"), entry.get("msg", {}).get("body")
            if msg is not None:
                who = STAND_IN if msg["seat"] in standing_in else OWN
                if msg["type"] == "join":
                    keys[msg["seat"]] = msg["key"]
                elif msg["type"] == "bid":
                    bids.append((msg, who))
                elif msg["type"] == "undo":
                    bids.pop()
                elif msg["type"] in ("challenge", "exact"):
                    call = (msg, who)
                continue
            kind = event["type"]
            if kind == "stand_in":
                standing_in.add(event["seat"])
            elif kind == "return":
                standing_in.discard(event["seat"])
            elif kind == "forced" and event["action"]["type"] == "bid":
                action = event["action"]
                bids.append(({"seat": event["seat"], "face": action["face"]}, HOST))
            elif kind == "forced" and event["action"]["type"] == "challenge":
                call = ({"seat": event["seat"], "type": "challenge"}, HOST)
            elif kind == "round":
                bids, call = [], None
            elif kind == "forfeit":
                raise AssertionError("this count reads games whose rounds end in a result")
            elif kind == "result":
                wild = rules["ones"] != "natural" and not palifico
                for seat, before in enumerate(dice):
                    if before and seat in standing_in:
                        stood_in.add(seat)
                    elif before:
                        row(seat)["rounds"] += 1
                        row(seat)["dice_lost"] += max(0, before - event["dice_after"][seat])
                for bid, who in bids:
                    mine = row(bid["seat"])
                    if who != OWN:
                        mine["made_for_it"][who] += 1
                        continue
                    mine["bids"] += 1
                    hand = event["hands"][bid["seat"]]
                    if hand:
                        mine["known"] += 1
                        face = bid["face"]
                        support = [d for d in hand if d == face or (wild and face != 1 and d == 1)]
                        mine["bluffs"] += not support
                assert call is not None
                made, who = call
                caller = row(made["seat"])
                if who != OWN:
                    caller["made_for_it"][who] += 1
                elif made["type"] == "challenge":
                    caller["calls"] += 1
                    caller["calls_right"] += event["outcome"] == "bid_fails"
                else:
                    caller["exact"] += 1
                    caller["exact_right"] += event["outcome"] == "exact_hit"
                last, by = bids[-1]
                if made["type"] == "challenge" and by == OWN:
                    bidder = row(last["seat"])
                    bidder["called"] += 1
                    bidder["held"] += event["outcome"] == "bid_stands"
                dice, palifico = event["dice_after"], event["palifico_next"]
            elif kind == "game_over":
                assert event["reason"] == "finished"
                ranking = event["ranking"]
                for place, seat in enumerate(ranking, 1):
                    mine = row(seat)
                    mine["games"] += 1
                    mine["wins"] += place == 1
                    mine["places"][str(place)] = mine["places"].get(str(place), 0) + 1
                    mine["stand_in_games"] += seat in stood_in
                    for other_place, other in enumerate(ranking, 1):
                        if other != seat and seat not in stood_in and other not in stood_in:
                            mine["h2h"][keys[other]].append(place < other_place)
    return out


def assert_matches(body: dict[str, Any], expected: dict[tuple[str, str], dict[str, Any]]) -> None:
    """Every player's figures in a `stats --json` body are the count's, and no more players."""
    seen = {(g["preset"], p["key"]): p for g in body["groups"] for p in g["players"]}
    assert sorted(seen) == sorted(expected)
    for where, want in expected.items():
        got = seen[where]
        assert got["games"] == want["games"] and got["wins"] == want["wins"], where
        assert got["places"] == want["places"], where
        assert got["stand_in_games"] == want["stand_in_games"], where
        assert got["made_for_it"] == want["made_for_it"], where
        assert (got["rounds"], got["dice_lost"]) == (want["rounds"], want["dice_lost"]), where
        assert (got["calls"]["made"], got["calls"]["right"]) == (
            want["calls"],
            want["calls_right"],
        ), where
        assert (got["bids_called"]["called"], got["bids_called"]["held"]) == (
            want["called"],
            want["held"],
        ), where
        assert (got["bluffs"]["bids"], got["bluffs"]["known"], got["bluffs"]["bluffs"]) == (
            want["bids"],
            want["known"],
            want["bluffs"],
        ), where
        assert (got["exact_calls"]["made"], got["exact_calls"]["right"]) == (
            want["exact"],
            want["exact_right"],
        ), where
        assert sorted(got["head_to_head"]) == sorted(want["h2h"]), where
        for other, aheads in want["h2h"].items():
            h2h = got["head_to_head"][other]
            assert (h2h["games"], h2h["ahead"]) == (len(aheads), sum(aheads)), (where, other)
