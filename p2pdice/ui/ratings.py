"""Ratings as the table screens show them: plain figures the command line reads from this
device's verified games (p2pdice/stats, served from the stats cache) and hands to the ui.
The ui computes no rating and reads no file."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class RatingFigure:
    rating: float  #: mu - 3 sigma, as `p2pdice stats` prints it
    provisional: bool
    games: int


@dataclass(frozen=True, slots=True)
class RatingChange:
    before: RatingFigure | None  #: None: the finished game was the key's first rated one
    after: RatingFigure | None  #: None only with `stood_in`
    #: A CPU stand-in played part of the seat: the game rates this key not at all
    #: (docs/stats.md), and the line says so instead of a change.
    stood_in: bool = False


@dataclass(frozen=True, slots=True)
class RatingBook:
    """Every rated key this device knows (hex public key -> figure), and the changes the
    finished tables made (table id hex -> key -> change)."""

    figures: Mapping[str, RatingFigure] = field(default_factory=dict)
    changes: Mapping[str, Mapping[str, RatingChange]] = field(default_factory=dict)

    def by_prefix(self, prefix: str) -> RatingFigure | None:
        """The figure of the one key starting with `prefix` (a table's announced host key)."""
        if len(prefix) < 16:
            return None
        found = [f for k, f in self.figures.items() if k.startswith(prefix)]
        return found[0] if len(found) == 1 else None


#: What the game-over line of a seat a CPU stand-in played part of says instead of a change.
STOOD_IN_TEXT = "played partly by a CPU stand-in: not rated"


def short(figure: RatingFigure | None) -> str:
    """A seat's rating in a few columns: "24.1", "24.1?" while provisional, "" unknown."""
    if figure is None:
        return ""
    return f"{figure.rating:.1f}" + ("?" if figure.provisional else "")


def words(figure: RatingFigure) -> str:
    return f"{figure.rating:.1f}" + (" (provisional)" if figure.provisional else "")


def change_text(change: RatingChange) -> str:
    """ "rating 21.0 -> 23.4 (+2.4)", or "first rating 3.1" for a first rated game, or
    "played partly by a CPU stand-in: not rated"."""
    after = change.after
    if change.stood_in or after is None:
        return STOOD_IN_TEXT
    mark = " (provisional)" if after.provisional else ""
    if change.before is None:
        return f"first rating {after.rating:.1f}{mark}"
    delta = after.rating - change.before.rating
    return f"rating {change.before.rating:.1f} -> {after.rating:.1f} ({delta:+.1f}){mark}"
