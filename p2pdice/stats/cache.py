"""What a verified file taught, as plain JSON, so a second `stats` run need not verify again.

The command keys each record by the SHA-256 of the file's exact bytes and by CACHE_VERSION
(with the program's version): a file changed by one byte is a new key and is verified
afresh, and a new program starts a new cache. The cache holds this machine's own verdicts;
whoever can write it could as well write the transcripts beside it (`--no-cache` verifies
every file again).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import Any

from ..core.bids import Bid
from ..core.game import Call, Outcome, PlacedBid, RoundResult
from ..core.hashing import is_hash_hex
from ..core.rules import Rules
from .games import HOST, OWN, STAND_IN, Game, Movers, Player, Skipped, preset_of

#: Bump when what a record holds changes, or what a figure is computed from: a record of
#: another version is never read, so its games are verified and read afresh. 2: who made
#: each move (`movers`), so a move the host or a CPU stand-in made for a seat is no longer
#: counted as the player's. 3: the places of a game whose last seats forfeited together
#: (a draw among them).
CACHE_VERSION = 3


def _pairs(value: Any) -> Any:
    return None if value is None else [list(item) if item is not None else None for item in value]


def result_to_json(result: RoundResult) -> dict[str, Any]:
    out: dict[str, Any] = {f.name: getattr(result, f.name) for f in fields(RoundResult)}
    out["bids"] = [[b.seat, b.bid.quantity, b.bid.face] for b in result.bids]
    out["call"] = None if result.call is None else str(result.call)
    out["outcome"] = str(result.outcome)
    out["hands"] = _pairs(result.hands)
    for name in ("dice_before", "dice_after", "eliminated", "forfeited"):
        out[name] = list(out[name])
    return out


def result_from_json(obj: dict[str, Any]) -> RoundResult:
    values = dict(obj)
    values["bids"] = tuple(PlacedBid(s, Bid(q, f)) for s, q, f in obj["bids"])
    values["call"] = None if obj["call"] is None else Call(obj["call"])
    values["outcome"] = Outcome(obj["outcome"])
    values["hands"] = tuple(None if h is None else tuple(h) for h in obj["hands"])
    for name in ("dice_before", "dice_after", "eliminated", "forfeited"):
        values[name] = tuple(obj[name])
    return RoundResult(**values)


_MOVERS = (OWN, HOST, STAND_IN)


def movers_from_json(obj: Any) -> Movers:
    bids, call, stood_in = obj
    if any(who not in _MOVERS for who in (*bids, *([] if call is None else [call]))):
        raise ValueError(f"unknown movers {obj!r}")
    return Movers(tuple(bids), call, tuple(int(seat) for seat in stood_in))


def record_of(item: Game | Skipped) -> dict[str, Any]:
    """The cache record of one file's verdict (its source and lines are not kept)."""
    if isinstance(item, Skipped):
        return {"skipped": {"reason": item.reason, "detail": item.detail}}
    return {
        "game": {
            "table_id": item.table_id,
            "start_hash": item.start_hash,
            "rules": item.rules.to_json(),
            "players": [[p.seat, p.key, p.name, p.kind] for p in item.players],
            "results": [result_to_json(r) for r in item.results],
            "places": list(item.places),
            "finished": item.finished,
            "winner": item.winner,
            "movers": [[list(m.bids), m.call, list(m.stood_in)] for m in item.movers],
        }
    }


def from_record(source: str, record: dict[str, Any], lines: tuple[bytes, ...]) -> Game | Skipped:
    """The verdict a record holds, for the file at `source` whose lines are `lines`."""
    if "skipped" in record:
        reason, detail = record["skipped"]["reason"], record["skipped"]["detail"]
        if not isinstance(reason, str) or not isinstance(detail, str):
            raise ValueError("a skipped record without a reason and a detail")
        return Skipped(source, reason, detail)
    obj = record["game"]
    rules = Rules.from_json(obj["rules"])
    results = tuple(result_from_json(r) for r in obj["results"])
    movers = tuple(movers_from_json(m) for m in obj["movers"])
    if len(movers) != len(results) or any(
        len(m.bids) != len(r.bids) or (m.call is None) != (r.call is None)
        for m, r in zip(movers, results, strict=True)
    ):
        raise ValueError("a record whose movers do not match its rounds")
    game = Game(
        source=source,
        table_id=obj["table_id"],
        start_hash=obj["start_hash"],
        rules=rules,
        kind=str(rules.kind),
        preset=preset_of(rules),
        players=tuple(Player(s, k, n, kind) for s, k, n, kind in obj["players"]),
        results=results,
        places=tuple(obj["places"]),
        finished=obj["finished"],
        winner=obj["winner"],
        movers=movers,
        lines=lines,
    )
    check_fits(game)
    return game


def check_fits(game: Game) -> None:
    """ValueError unless every seat, place and count the figures and ratings read from
    `game` fits its table: a record the cache holds is read with no verifier behind it, and
    one that does not fit would stop every later run rather than be verified afresh."""
    seats = game.rules.seats

    def seat(value: object, optional: bool = False) -> None:
        if not (optional and value is None) and (not _whole(value) or value not in range(seats)):
            raise ValueError(f"seat {value!r} at a table of {seats}")

    def per_seat(values: tuple[Any, ...], fits: Callable[[Any], bool], what: str) -> None:
        if len(values) != seats or not all(fits(v) for v in values):
            raise ValueError(f"{what} {values!r} at a table of {seats}")

    if not (is_hash_hex(game.table_id) and is_hash_hex(game.start_hash)):
        raise ValueError("a table id or start hash that is no hash")
    if [p.seat for p in game.players] != list(range(seats)) or not all(
        isinstance(text, str) for p in game.players for text in (p.key, p.name, p.kind)
    ):
        raise ValueError(f"players {game.players!r} at a table of {seats}")
    per_seat(game.places, lambda place: _whole(place) and 1 <= place <= seats, "places")
    seat(game.winner, optional=True)
    if not isinstance(game.finished, bool):
        raise ValueError(f"finished {game.finished!r}")
    for result, movers in zip(game.results, game.movers, strict=True):
        for held in (result.dice_before, result.dice_after):
            per_seat(held, lambda n: _whole(n) and n >= 0, "dice")
        per_seat(result.hands, lambda hand: hand is None or all(map(_die, hand)), "hands")
        for placed in result.bids:
            seat(placed.seat)
            if not (_whole(placed.bid.quantity) and _die(placed.bid.face)):
                raise ValueError(f"bid {placed.bid!r}")
        for optional in (result.caller, result.loser, result.gainer, result.starter):
            seat(optional, optional=True)
        for each in (*result.eliminated, *result.forfeited, *movers.stood_in):
            seat(each)
        if not isinstance(result.palifico_round, bool):
            raise ValueError(f"palifico_round {result.palifico_round!r}")


def _whole(value: object) -> bool:
    return type(value) is int  # not bool, which JSON keeps apart from a number


def _die(value: object) -> bool:
    return _whole(value) and value in range(1, 7)
