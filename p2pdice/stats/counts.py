"""Per-player statistics from verified games (docs/stats.md says what each figure counts).

Figures are kept per (table kind, rules preset, player key): a practice game never lands in
a standard table's figures, and a CPU seat is its own key, never a human's. A move counts
for the player whose key signed it: a move the host made for a seat (`forced`) or a CPU
stand-in made in it is counted for nobody (`games.Movers`), and a round a stand-in played
is not the player's either.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ..core.game import Call, Outcome, RoundResult
from .games import HOST, OWN, STAND_IN, Game, Movers, is_bluff


@dataclass(slots=True)
class HeadToHead:
    """One opponent, over the games both seats were played by their own keys throughout: a
    game a CPU stand-in played part of either seat in compares neither way (as it rates
    neither, ratings.py)."""

    games: int = 0
    ahead: int = 0  #: games this player placed better than the opponent
    behind: int = 0  #: games the opponent placed better (a shared place is neither)

    def to_json(self) -> dict[str, int]:
        return {"games": self.games, "ahead": self.ahead, "behind": self.behind}


@dataclass(slots=True)
class PlayerStats:
    key: str
    kind: str  #: human, cpu or host_run (a key seen as more than one keeps its first)
    names: list[str] = field(default_factory=list)  #: every name it sat under, first seen first
    games: int = 0
    wins: int = 0
    places: Counter[int] = field(default_factory=Counter)
    #: Of `games`, those a CPU stand-in played part of its seat in: its place is the seat's
    #: (counted in `wins` and `places`), but no rating or head-to-head takes that game.
    stand_in_games: int = 0
    #: Bids and calls made in its seat but not by its key: by the host (`forced`) or by a
    #: CPU stand-in. None of them is in any figure (neither its own nor anyone's).
    made_for_it: Counter[str] = field(default_factory=Counter)
    rounds: int = 0  #: rounds it held dice at the start of and played itself (no stand-in)
    dice_lost: int = 0
    calls: int = 0  #: "Liar!" calls it made
    calls_right: int = 0
    bids_called: int = 0  #: its standing bids someone called "Liar!" on
    bids_held: int = 0
    bids: int = 0
    bids_known: int = 0  #: its bids in rounds whose reveal opened its hand
    bluffs: int = 0  #: of those, bids no die of its own hand counted toward
    exact_calls: int = 0
    exact_right: int = 0
    head_to_head: dict[str, HeadToHead] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "names": list(self.names),
            "games": self.games,
            "wins": self.wins,
            "places": {str(place): n for place, n in sorted(self.places.items())},
            "stand_in_games": self.stand_in_games,
            "made_for_it": {who: self.made_for_it[who] for who in (HOST, STAND_IN)},
            "rounds": self.rounds,
            "dice_lost": self.dice_lost,
            "dice_lost_per_round": _ratio(self.dice_lost, self.rounds),
            "calls": {
                "made": self.calls,
                "right": self.calls_right,
                "rate": _ratio(self.calls_right, self.calls),
            },
            "bids_called": {
                "called": self.bids_called,
                "held": self.bids_held,
                "rate": _ratio(self.bids_held, self.bids_called),
            },
            "bluffs": {
                "bids": self.bids,
                "known": self.bids_known,
                "bluffs": self.bluffs,
                "rate": _ratio(self.bluffs, self.bids_known),
            },
            "exact_calls": {
                "made": self.exact_calls,
                "right": self.exact_right,
                "rate": _ratio(self.exact_right, self.exact_calls),
            },
            "head_to_head": {k: h.to_json() for k, h in sorted(self.head_to_head.items())},
        }


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 6) if whole else None


#: (table kind, preset) -> player key -> figures
Tally = dict[tuple[str, str], dict[str, PlayerStats]]


def tally(games: Iterable[Game]) -> Tally:
    out: Tally = {}
    for game in games:
        group = out.setdefault((game.kind, game.preset), {})
        _count_game(group, game)
    return out


def _count_game(group: dict[str, PlayerStats], game: Game) -> None:
    stood_in = game.stood_in
    stats = []
    for player in game.players:
        record = group.get(player.key)
        if record is None:
            record = group[player.key] = PlayerStats(key=player.key, kind=player.kind)
        if player.name not in record.names:
            record.names.append(player.name)
        record.games += 1
        record.wins += game.winner == player.seat
        record.places[game.places[player.seat]] += 1
        record.stand_in_games += player.seat in stood_in
        stats.append(record)
    for result, movers in zip(game.results, game.movers, strict=True):
        # A void round was never dealt, so nobody played it: its replay is the round played.
        for record, player in zip(stats, game.players, strict=True):
            seat = player.seat
            if not result.void and result.dice_before[seat] > 0 and seat not in movers.stood_in:
                record.rounds += 1
                record.dice_lost += max(0, result.dice_before[seat] - result.dice_after[seat])
        for placed, who in zip(result.bids, movers.bids, strict=True):
            record = stats[placed.seat]
            if who != OWN:
                record.made_for_it[who] += 1
                continue
            record.bids += 1
            bluff = is_bluff(result, game.rules, placed.seat, placed.bid.face)
            if bluff is not None:
                record.bids_known += 1
                record.bluffs += bluff
        if result.caller is None or movers.call is None:
            continue
        if movers.call != OWN:
            stats[result.caller].made_for_it[movers.call] += 1
        # A forfeited round opened no hand and counted nothing: its call proved nobody right
        # or wrong, and its bid neither held nor failed (docs/stats.md).
        if result.outcome != Outcome.FORFEIT:
            _count_judged_call(stats, result, movers)
    for me, mine in zip(game.players, stats, strict=True):
        for other in game.players:
            if other.key == me.key or me.seat in stood_in or other.seat in stood_in:
                continue
            h2h = mine.head_to_head.setdefault(other.key, HeadToHead())
            h2h.games += 1
            h2h.ahead += game.places[me.seat] < game.places[other.seat]
            h2h.behind += game.places[me.seat] > game.places[other.seat]


def _count_judged_call(stats: list[PlayerStats], result: RoundResult, movers: Movers) -> None:
    """A call its reveal judged: for its caller when its own key made it, and for the bidder
    called when its own key made that bid (whoever called)."""
    assert result.caller is not None  # a round with a call has a caller
    caller = stats[result.caller]
    if movers.call == OWN and result.call == Call.CHALLENGE:
        caller.calls += 1
        caller.calls_right += result.outcome == Outcome.BID_FAILS
    elif movers.call == OWN and result.call == Call.EXACT:
        caller.exact_calls += 1
        caller.exact_right += result.outcome == Outcome.EXACT_HIT
    if result.call == Call.CHALLENGE and result.bidder is not None and movers.bids[-1] == OWN:
        stats[result.bidder].bids_called += 1
        stats[result.bidder].bids_held += result.outcome == Outcome.BID_STANDS
