"""What a verified file taught, as plain JSON, so a second `stats` run need not verify again.

The command keys each record by the SHA-256 of the file's exact bytes and by CACHE_VERSION
(with the program's version): a file changed by one byte is a new key and is verified
afresh, and a new program starts a new cache. The cache holds this machine's own verdicts;
whoever can write it could as well write the transcripts beside it (`--no-cache` verifies
every file again).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..core.bids import Bid
from ..core.game import Call, Outcome, PlacedBid, RoundResult
from ..core.rules import Rules
from .games import Game, Player, Skipped, preset_of

#: Bump when what a record holds changes.
CACHE_VERSION = 1


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
        }
    }


def from_record(source: str, record: dict[str, Any], lines: tuple[bytes, ...]) -> Game | Skipped:
    """The verdict a record holds, for the file at `source` whose lines are `lines`."""
    if "skipped" in record:
        return Skipped(source, record["skipped"]["reason"], record["skipped"]["detail"])
    obj = record["game"]
    rules = Rules.from_json(obj["rules"])
    return Game(
        source=source,
        table_id=obj["table_id"],
        start_hash=obj["start_hash"],
        rules=rules,
        kind=str(rules.kind),
        preset=preset_of(rules),
        players=tuple(Player(s, k, n, kind) for s, k, n, kind in obj["players"]),
        results=tuple(result_from_json(r) for r in obj["results"]),
        places=tuple(obj["places"]),
        finished=obj["finished"],
        winner=obj["winner"],
        lines=lines,
    )
