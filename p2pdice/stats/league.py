"""Merging games from other devices (`p2pdice stats --import`): what to do with each file.

A file is taken only if it verifies whole; a table already held is recognised by its id and
taken once; a file that contradicts the one held for its table (two host-signed histories)
is refused and reported, since it proves the table's host forked (SPEC.md 1.2.4, 9).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .games import Game, Skipped, fork_between

NEW = "new"  #: verified, and a table not held before: taken
HELD = "held"  #: the same table and the same log as one held: nothing to take
FORK = "fork"  #: the same table, another history: refused, the proof of a forking host
REFUSED = "refused"  #: does not verify: refused with the verifier's reason


@dataclass(frozen=True, slots=True)
class Arrival:
    source: str
    verdict: str  #: NEW, HELD, FORK or REFUSED
    detail: str
    game: Game | None = None  #: the game to keep, for NEW

    def to_json(self) -> dict[str, str]:
        return {"file": self.source, "verdict": self.verdict, "detail": self.detail}


def judge(held: Sequence[Game], incoming: Iterable[Game | Skipped]) -> list[Arrival]:
    """The verdict on each incoming file, in the order given; a table taken from an earlier
    incoming file counts as held for the later ones."""
    tables: dict[str, Game] = {game.table_id: game for game in held}
    out: list[Arrival] = []
    for item in incoming:
        if isinstance(item, Skipped):
            out.append(Arrival(item.source, REFUSED, f"{item.reason}: {item.detail}"))
            continue
        known = tables.get(item.table_id)
        if known is None:
            tables[item.table_id] = item
            out.append(Arrival(item.source, NEW, f"table {item.table_id[:16]}...", item))
            continue
        fork = fork_between([known, item])
        if fork is None:
            out.append(Arrival(item.source, HELD, f"table {item.table_id[:16]}... already held"))
        else:
            out.append(Arrival(item.source, FORK, fork))
    return out
