"""Table options: the canonical rules object (protocol/RULES.md R1), presets and validation.

Every option is chosen when a table is created and never changes; the object is part of the
genesis entry, so the table id (and every commitment) binds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any

from .errors import OptionError


class Ones(StrEnum):
    WILD = "wild"  #: ones count for any face; ones are never bid
    NATURAL = "natural"  #: ones are an ordinary face, the lowest
    ACES = "aces"  #: wild ones, and ones may be bid with the aces conversions


class Palifico(StrEnum):
    OFF = "off"  #: no one-die rounds
    FIXED = "fixed"  #: in a palifico round the opening face is fixed for everyone
    FREE = "free"  #: one-die players may change the face in natural order


class TableKind(StrEnum):
    STANDARD = "standard"  #: one person per seat, each on their own device
    PRACTICE = "practice"  #: one owner holds and switches between several seats
    PASS_AND_PLAY = "pass_and_play"  #: several people share one device


class FirstStarter(StrEnum):
    RANDOM = "random"  #: drawn from round 1's shared randomness
    SEAT0 = "seat0"  #: the first seat opens round 1


SEATS_RANGE = range(2, 7)
STARTING_DICE_RANGE = range(1, 6)
TURN_TIMERS = (0, 30, 60)
GRACE_PERIOD_RANGE = range(5, 601)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """The canonical rules object. Field names are the JSON keys and the CLI flag names."""

    seats: int = 4
    starting_dice: int = 5
    ones: Ones = Ones.WILD
    exact_call: bool = False
    palifico: Palifico = Palifico.OFF
    turn_timer: int = 0
    grace_period: int = 30
    undo: bool = False
    kind: TableKind = TableKind.STANDARD
    first_starter: FirstStarter = FirstStarter.RANDOM

    def __post_init__(self) -> None:
        _check_int("seats", self.seats, SEATS_RANGE)
        _check_int("starting_dice", self.starting_dice, STARTING_DICE_RANGE)
        _check_enum("ones", self.ones, Ones)
        _check_bool("exact_call", self.exact_call)
        _check_enum("palifico", self.palifico, Palifico)
        if not _is_int(self.turn_timer) or self.turn_timer not in TURN_TIMERS:
            raise OptionError("turn_timer", "one of 0, 30, 60")
        _check_int("grace_period", self.grace_period, GRACE_PERIOD_RANGE)
        _check_bool("undo", self.undo)
        _check_enum("kind", self.kind, TableKind)
        _check_enum("first_starter", self.first_starter, FirstStarter)
        # Enum fields may arrive as plain strings; store the enum members.
        for name, enum in _ENUM_FIELDS.items():
            object.__setattr__(self, name, enum(getattr(self, name)))
        if self.undo and self.kind == TableKind.STANDARD:
            raise OptionError(
                "undo",
                "false on a standard table",
                "undo is only allowed on practice and pass_and_play tables "
                "(kind must be practice or pass_and_play)",
            )

    def to_json(self) -> dict[str, Any]:
        """The canonical rules object as plain JSON values."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = str(value) if isinstance(value, StrEnum) else value
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Rules:
        """Parse a rules object strictly: every key present, no unknown key, valid values."""
        if not isinstance(obj, Mapping):
            raise OptionError("rules", "a JSON object", "the rules must be a JSON object")
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(obj) - names)
        if unknown:
            raise OptionError(unknown[0], "absent", f"unknown option {unknown[0]!r}")
        missing = [n for n in sorted(names) if n not in obj]
        if missing:
            raise OptionError(missing[0], "present", f"option {missing[0]!r} is missing")
        return cls(**dict(obj))

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        return replace(self, **changes)

    def summary(self) -> str:
        """A short human description, e.g. 'aces, exact call, palifico fixed, 5 dice'."""
        parts = [f"{self.ones} ones"]
        if self.exact_call:
            parts.append("exact call")
        if self.palifico != Palifico.OFF:
            parts.append(f"palifico {self.palifico}")
        parts.append(f"{self.starting_dice} dice")
        if self.turn_timer:
            parts.append(f"{self.turn_timer}s turns")
        if self.kind != TableKind.STANDARD:
            parts.append(str(self.kind).replace("_", "-"))
        return ", ".join(parts)


_ENUM_FIELDS: dict[str, type[StrEnum]] = {
    "ones": Ones,
    "palifico": Palifico,
    "kind": TableKind,
    "first_starter": FirstStarter,
}

PRESETS: dict[str, dict[str, Any]] = {
    "classic": {"ones": Ones.WILD, "exact_call": False, "palifico": Palifico.OFF},
    "perudo": {"ones": Ones.ACES, "exact_call": True, "palifico": Palifico.FIXED},
}


def preset(name: str, **overrides: Any) -> Rules:
    """Rules of a named preset, with explicit options taking precedence."""
    if name not in PRESETS:
        raise OptionError("preset", " or ".join(PRESETS), f"unknown preset {name!r}")
    return Rules(**{**PRESETS[name], **overrides})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_int(key: str, value: Any, allowed: range) -> None:
    if not _is_int(value) or value not in allowed:
        raise OptionError(key, f"an integer from {allowed.start} to {allowed.stop - 1}")


def _check_bool(key: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise OptionError(key, "true or false")


def _check_enum(key: str, value: Any, enum: type[StrEnum]) -> None:
    allowed = [m.value for m in enum]
    if not isinstance(value, str) or value not in allowed:
        raise OptionError(key, "one of " + ", ".join(allowed))
