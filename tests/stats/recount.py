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
    """Figures per (group, key) over ended games; `group` names a game's group from its
    genesis rules."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for lines in transcripts:
        entries = [json.loads(line) for line in lines]
        rules = entries[0]["event"]["rules"]
        _GameCount(out, group(rules), rules).walk(entries)
    return out


class _GameCount:
    """One game's entries, read in order into `out`."""

    def __init__(self, out: dict[tuple[str, str], dict[str, Any]], group: str, rules: Any) -> None:
        self.out, self.group, self.rules = out, group, rules
        self.keys: dict[int, str] = {}
        self.standing_in: set[int] = set()  #: seats a stand-in holds now
        self.stood_in: set[int] = set()  #: seats a stand-in ever played a round of
        self.dice: list[int] = [rules["starting_dice"]] * rules["seats"]
        self.bids: list[tuple[dict[str, Any], str]] = []
        self.call: tuple[dict[str, Any], str] | None = None
        self.palifico = False
        self.last_forfeit: list[int] = []  #: the seats the latest forfeit put out

    def row(self, seat: int) -> dict[str, Any]:
        return figures(self.out, self.group, self.keys[seat])

    def walk(self, entries: list[dict[str, Any]]) -> None:
        for entry in entries:
            event, msg = entry.get("event"), entry.get("msg", {}).get("body")
            if msg is not None:
                self.message(msg)
                continue
            kind = event["type"]
            if kind == "stand_in":
                self.standing_in.add(event["seat"])
            elif kind == "return":
                self.standing_in.discard(event["seat"])
            elif kind == "forced" and event["action"]["type"] == "bid":
                action = event["action"]
                self.bids.append(({"seat": event["seat"], "face": action["face"]}, HOST))
            elif kind == "forced" and event["action"]["type"] == "challenge":
                self.call = ({"seat": event["seat"], "type": "challenge"}, HOST)
            elif kind == "round":
                self.bids, self.call = [], None
                self.dice, self.palifico = event["dice"], event["palifico"]
            elif kind == "result":
                self.round_ended(event["dice_after"], event["hands"])
                self.judge(event["outcome"])
            elif kind == "forfeit":  # no hand opened, nothing judged
                lost = event["reason"] == "no_opening"  # else a void: a round never dealt
                self.round_ended(event["dice_after"], [None] * len(self.dice), played=lost)
                self.last_forfeit = event["seats"] if lost else []
            elif kind == "game_over":
                self.game_over(event["ranking"], event["reason"])

    def message(self, msg: dict[str, Any]) -> None:
        who = STAND_IN if msg["seat"] in self.standing_in else OWN
        if msg["type"] == "join":
            self.keys[msg["seat"]] = msg["key"]
        elif msg["type"] == "bid":
            self.bids.append((msg, who))
        elif msg["type"] == "undo":
            self.bids.pop()
        elif msg["type"] in ("challenge", "exact"):
            self.call = (msg, who)

    def round_ended(
        self, dice_after: list[int], hands: list[list[int] | None], *, played: bool = True
    ) -> None:
        """The rounds (when `played`), dice lost, bids and moves made for others of a round,
        however it ended."""
        wild = self.rules["ones"] != "natural" and not self.palifico
        for seat, before in enumerate(self.dice):
            if before and seat in self.standing_in:
                self.stood_in.add(seat)
            elif before and played:
                self.row(seat)["rounds"] += 1
                self.row(seat)["dice_lost"] += max(0, before - dice_after[seat])
        for bid, who in self.bids:
            mine = self.row(bid["seat"])
            if who != OWN:
                mine["made_for_it"][who] += 1
                continue
            mine["bids"] += 1
            hand = hands[bid["seat"]]
            if hand:
                mine["known"] += 1
                face = bid["face"]
                support = [d for d in hand if d == face or (wild and face != 1 and d == 1)]
                mine["bluffs"] += not support
        if self.call is not None and self.call[1] != OWN:
            made, who = self.call
            self.row(made["seat"])["made_for_it"][who] += 1
        self.dice = dice_after

    def judge(self, outcome: str) -> None:
        """A call the reveal decided: right or wrong for its caller, held or not for the bid."""
        assert self.call is not None
        made, who = self.call
        caller = self.row(made["seat"])
        if who == OWN and made["type"] == "challenge":
            caller["calls"] += 1
            caller["calls_right"] += outcome == "bid_fails"
        elif who == OWN:
            caller["exact"] += 1
            caller["exact_right"] += outcome == "exact_hit"
        last, by = self.bids[-1]
        if made["type"] == "challenge" and by == OWN:
            bidder = self.row(last["seat"])
            bidder["called"] += 1
            bidder["held"] += outcome == "bid_stands"

    def game_over(self, ranking: list[int], reason: str) -> None:
        """Places in ranking order; a game without a winner ties the seats still in or, when
        nobody is, the seats whose forfeit ended it."""
        tied: list[int] = []
        if reason == "abandoned":
            tied = [seat for seat in ranking if self.dice[seat]] or self.last_forfeit
        place = {
            seat: min(ranking.index(t) for t in tied) + 1 if seat in tied else position
            for position, seat in enumerate(ranking, 1)
        }
        for seat in ranking:
            mine = self.row(seat)
            mine["games"] += 1
            mine["wins"] += reason == "finished" and place[seat] == 1
            mine["places"][str(place[seat])] = mine["places"].get(str(place[seat]), 0) + 1
            mine["stand_in_games"] += seat in self.stood_in
            for other in ranking:
                if other != seat and seat not in self.stood_in and other not in self.stood_in:
                    mine["h2h"][self.keys[other]].append(place[seat] - place[other])


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
        for other, gaps in want["h2h"].items():
            h2h = got["head_to_head"][other]
            ahead, behind = sum(gap < 0 for gap in gaps), sum(gap > 0 for gap in gaps)
            assert (h2h["games"], h2h["ahead"], h2h["behind"]) == (len(gaps), ahead, behind), (
                where,
                other,
            )
