"""Table options: the canonical rules object (protocol/RULES.md R1), presets and validation.

Every option is chosen when a table is created and never changes; the object is part of the
genesis entry, so the table id (and every commitment) binds it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
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


class PalificoKind(StrEnum):
    """What a palifico round changes (RULES.md R5); read only when `palifico` is not off."""

    BOTH = "both"  #: ones are not wild and the face is fixed
    ONES_NOT_WILD = "ones-not-wild"  #: ones are not wild; bids raise in the natural order
    FACE_FIXED = "face-fixed"  #: ones count as the table's `ones` says; the face is fixed


class ExactReward(StrEnum):
    """What a right exact call earns (RULES.md R4)."""

    REGAIN = "regain"  #: the caller regains a die (never above the starting dice)
    OTHERS_LOSE = "others-lose"  #: every other seat still in loses a die


class ChallengePenalty(StrEnum):
    """How many dice the loser of a challenge gives up (RULES.md R4)."""

    ONE = "one"  #: one die
    DIFFERENCE = "difference"  #: the gap between the count and the bid, at least one


class TableKind(StrEnum):
    STANDARD = "standard"  #: one person per seat, each on their own device
    PRACTICE = "practice"  #: one owner holds and switches between several seats
    PASS_AND_PLAY = "pass_and_play"  #: several people share one device


class FirstStarter(StrEnum):
    """Who opens round 1: drawn, the host's own seat, or a named seat (`seatK`, K below
    MAX_SEATS)."""

    RANDOM = "random"  #: drawn from round 1's shared randomness
    #: the seat the host plays itself, which its start entry names (`host_seat`, SPEC.md 3.3);
    #: a table whose host does not play cannot start with it
    HOST = "host"
    SEAT0 = "seat0"  #: the first seat opens round 1
    SEAT1 = "seat1"
    SEAT2 = "seat2"
    SEAT3 = "seat3"
    SEAT4 = "seat4"
    SEAT5 = "seat5"

    @property
    def seat(self) -> int | None:
        """The seat `seatK` names, or None: drawn (`random`, SPEC.md 5.6) or named by the
        start (`host`)."""
        if self in (FirstStarter.RANDOM, FirstStarter.HOST):
            return None
        return int(self.value.removeprefix("seat"))


SEATS_RANGE = range(2, 7)
STARTING_DICE_RANGE = range(1, 6)
TURN_TIMERS = (0, 30, 60)
GRACE_PERIOD_RANGE = range(5, 601)
MAX_SEATS = SEATS_RANGE[-1]  #: seat numbers run from 0 to MAX_SEATS - 1
MIN_SEATS = SEATS_RANGE[0]  #: the fewest seats a game starts with (SPEC.md 3.3)
MAX_DICE = STARTING_DICE_RANGE[-1]  #: the most dice one seat ever holds
GRACE_PERIOD_OFFERED = (10, 15, 30, 60, 120, 300, 600)  #: what the host form cycles through
TIME_BANK_RANGE = range(0, 3601)  #: seconds of thinking time each seat has for a whole game
TIME_BANK_OFFERED = (0, 60, 120, 180, 300, 600)  #: what the host form cycles through
#: Seconds of each turn that never draw on the time bank (protocol/SPEC.md 8, docs/rules.md):
#: a player who moves within them never sees the bank.
TIME_BANK_FREE_PER_TURN = 15


@dataclass(frozen=True, slots=True)
class Option:
    """How one table option is offered and checked: the host form, the command-line flags,
    the help panel and the JSON schema are all read from here, so none of them restates it.

    `key` and `default` are filled in from the `Rules` field that carries the option."""

    label: str  #: "Starting dice"
    help: str  #: one line: what the option decides
    allowed: range | tuple[int, ...] = ()  #: integers only: the values the rules accept
    offered: tuple[Any, ...] = ()  #: what a form cycles through, when not every allowed value
    unit: str = ""  #: shown after a number, e.g. " s"
    zero: str = ""  #: how 0 is shown, when it means "none"
    metavar: str = ""  #: the command-line placeholder of an integer option
    hidden: bool = False  #: fixed by how a table is opened: no form field, no --help line
    #: matters only where people play by a clock: a turn's time, the time bank, a dropped
    #: player's wait, taking a bid back. Games that bots play through on the rules engine
    #: (`tournament`) have none of these, so they neither offer nor accept it.
    people_only: bool = False
    key: str = ""
    default: Any = None

    @property
    def flag(self) -> str:
        """The command-line flag: the key with dashes."""
        return "--" + self.key.replace("_", "-")

    @property
    def enum(self) -> type[StrEnum] | None:
        return type(self.default) if isinstance(self.default, StrEnum) else None

    @property
    def is_bool(self) -> bool:
        return isinstance(self.default, bool)

    @property
    def values(self) -> tuple[Any, ...]:
        """Every value the rules accept, as JSON values (enum members as their strings)."""
        if self.is_bool:
            return (False, True)
        if self.enum is not None:
            return tuple(m.value for m in self.enum)
        return tuple(self.allowed)

    @property
    def choices(self) -> tuple[Any, ...]:
        """The values a form offers, in order."""
        return self.offered or self.values

    def allowed_text(self) -> str:
        """The accepted values in words, as an error names them."""
        if self.is_bool:
            return "true or false"
        if isinstance(self.allowed, range):
            return f"an integer from {self.allowed.start} to {self.allowed.stop - 1}"
        return "one of " + ", ".join(str(v) for v in self.values)

    def check(self, value: Any) -> None:
        """OptionError naming the key and the allowed values when `value` is not one of them."""
        if self.is_bool:
            ok = isinstance(value, bool)
        elif self.enum is not None:
            ok = isinstance(value, str) and value in self.values
        else:
            ok = _is_int(value) and value in self.allowed
        if not ok:
            raise OptionError(self.key, self.allowed_text())

    def shown(self, value: Any) -> str:
        """A value as a person reads it: on/off, "30 s", "none"."""
        if isinstance(value, bool):
            return "on" if value else "off"
        if value == 0 and self.zero:
            return self.zero
        return f"{value}{self.unit}"

    def json_schema(self) -> dict[str, Any]:
        """The option's property in the rules object's JSON schema (common.schema.json)."""
        if self.is_bool:
            return {"type": "boolean"}
        if self.enum is not None:
            return {"enum": list(self.values)}
        if isinstance(self.allowed, range):
            return {
                "type": "integer",
                "minimum": self.allowed.start,
                "maximum": self.allowed.stop - 1,
            }
        return {"type": "integer", "enum": list(self.allowed)}


def _about(label: str, help: str, **more: Any) -> dict[str, Option]:
    """A `Rules` field's metadata: how the option is offered (read back through `OPTIONS`)."""
    return {"option": Option(label, help, **more)}


@dataclass(frozen=True, slots=True, kw_only=True)
class Rules:
    """The canonical rules object. Field names are the JSON keys and the CLI flag names; each
    field's `Option` (see `OPTIONS`) says how it is offered and which values it accepts."""

    seats: int = field(
        default=4,
        metadata=_about(
            "Seats",
            "most players at the table, CPUs included (the start fixes how many play)",
            allowed=SEATS_RANGE,
            metavar="N",
        ),
    )
    starting_dice: int = field(
        default=5,
        metadata=_about(
            "Starting dice",
            "dice each player starts with",
            allowed=STARTING_DICE_RANGE,
            metavar="K",
        ),
    )
    ones: Ones = field(
        default=Ones.WILD,
        metadata=_about(
            "Ones", "wild: ones count for any face; natural: plain face; aces: wild and biddable"
        ),
    )
    exact_call: bool = field(
        default=False, metadata=_about("Exact call", "allow calling the standing bid exactly right")
    )
    palifico: Palifico = field(
        default=Palifico.OFF,
        metadata=_about("Palifico", "special round when a player first drops to one die"),
    )
    palifico_kind: PalificoKind = field(
        default=PalificoKind.BOTH,
        metadata=_about(
            "Palifico kind",
            "what a palifico round changes: both, ones-not-wild only, or face-fixed only",
        ),
    )
    exact_reward: ExactReward = field(
        default=ExactReward.REGAIN,
        metadata=_about(
            "Exact reward",
            "a right exact call: regain (the caller gets a die back) or others-lose "
            "(every other player loses one)",
        ),
    )
    challenge_penalty: ChallengePenalty = field(
        default=ChallengePenalty.ONE,
        metadata=_about(
            "Challenge penalty",
            "dice the loser of a challenge gives up: one, or the difference between the "
            "count and the bid (at least one)",
        ),
    )
    turn_timer: int = field(
        default=0,
        metadata=_about(
            "Turn timer",
            "seconds per turn (0: no timer)",
            allowed=TURN_TIMERS,
            unit=" s",
            zero="none",
            metavar="S",
            people_only=True,
        ),
    )
    time_bank: int = field(
        default=180,
        metadata=_about(
            "Time bank",
            f"seconds each seat may think beyond {TIME_BANK_FREE_PER_TURN} s a turn, for the "
            "whole game; a seat that uses them up is handed to a CPU (0: no bank)",
            allowed=TIME_BANK_RANGE,
            offered=TIME_BANK_OFFERED,
            unit=" s",
            zero="none",
            metavar="S",
            people_only=True,
        ),
    )
    grace_period: int = field(
        default=30,
        metadata=_about(
            "Grace period",
            "seconds a dropped player has to come back",
            allowed=GRACE_PERIOD_RANGE,
            offered=GRACE_PERIOD_OFFERED,
            unit=" s",
            metavar="S",
            people_only=True,
        ),
    )
    undo: bool = field(
        default=False,
        metadata=_about(
            "Undo",
            "take back your own last bid before anyone acts (not on standard tables)",
            people_only=True,
        ),
    )
    kind: TableKind = field(
        default=TableKind.STANDARD,
        metadata=_about(
            "Kind",
            "standard, practice or pass-and-play: fixed by how the table is opened",
            hidden=True,
        ),
    )
    first_starter: FirstStarter = field(
        default=FirstStarter.RANDOM,
        metadata=_about(
            "First starter",
            "who opens round 1: drawn fairly, the host's own seat, or a named seat",
        ),
    )

    def __post_init__(self) -> None:
        for option in OPTIONS:
            value = getattr(self, option.key)
            option.check(value)
            if option.enum is not None:  # may arrive as a plain string: keep the member
                object.__setattr__(self, option.key, option.enum(value))
        named = self.first_starter.seat
        if named is not None and named >= self.seats:
            raise OptionError(
                "first_starter",
                f"random, host or a seat below {self.seats}",
                f"first_starter {self.first_starter} names seat {named}, and the table has "
                f"{self.seats} seats (0 to {self.seats - 1})",
            )
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

    @classmethod
    def shape_error(cls, obj: Any) -> str | None:
        """What makes `obj` fail the rules object's schema (schemas/v1/common.schema.json:
        exactly the keys, each value allowed, undo only off a standard table), or None.

        A transcript's shape errors are its first checks (SPEC.md 9, step 1), so a genesis
        whose rules fail here is `SCHEMA`. The one check the schema cannot state, a
        `first_starter` seat the table does not have, is left to `from_json` (`BAD_EVENT`
        in a genesis).
        """
        try:
            cls.from_json(obj)
        except OptionError as err:
            value = obj.get(err.key) if isinstance(obj, Mapping) else None
            if err.key == "first_starter" and _allowed(OPTION_BY_KEY["first_starter"], value):
                return cls.shape_error({**obj, "first_starter": FirstStarter.RANDOM.value})
            return err.detail
        return None

    def with_options(self, **changes: Any) -> Rules:
        """A copy with some options changed (validated again)."""
        return replace(self, **changes)

    def summary(self) -> str:
        """A short human description, e.g. 'aces, exact call, palifico fixed, 5 dice'."""
        parts = [f"{self.ones} ones"]
        if self.exact_call:
            parts.append("exact call")
        if self.exact_call and self.exact_reward != ExactReward.REGAIN:
            parts.append(f"exact: {self.exact_reward}")
        if self.palifico != Palifico.OFF:
            kind = "" if self.palifico_kind == PalificoKind.BOTH else f" ({self.palifico_kind})"
            parts.append(f"palifico {self.palifico}{kind}")
        if self.challenge_penalty != ChallengePenalty.ONE:
            parts.append(f"lose the {self.challenge_penalty}")
        parts.append(f"{self.starting_dice} {'die' if self.starting_dice == 1 else 'dice'}")
        if self.turn_timer:
            parts.append(f"{self.turn_timer}s turns")
        if self.time_bank != OPTION_BY_KEY["time_bank"].default:  # the default goes unsaid
            parts.append(f"{self.time_bank}s time bank" if self.time_bank else "no time bank")
        if self.kind != TableKind.STANDARD:
            parts.append(str(self.kind).replace("_", "-"))
        return ", ".join(parts)


#: Every table option, in the rules object's key order.
OPTIONS: tuple[Option, ...] = tuple(
    replace(f.metadata["option"], key=f.name, default=f.default) for f in fields(Rules)
)
OPTION_BY_KEY: Mapping[str, Option] = {option.key: option for option in OPTIONS}


def time_bank_default(kind: TableKind) -> int:
    """The time bank a table of `kind` starts with: none where everyone sits at one device
    (practice, pass-and-play), since nobody there can hold the others hostage from afar and a
    practice player back from a break must not find a CPU in their seat."""
    return OPTION_BY_KEY["time_bank"].default if kind == TableKind.STANDARD else 0


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


def _allowed(option: Option, value: Any) -> bool:
    """The value passes the option's own check (its type and allowed set)."""
    try:
        option.check(value)
    except OptionError:
        return False
    return True
