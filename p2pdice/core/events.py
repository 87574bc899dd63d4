"""Host events (protocol/SPEC.md 6.2): the entries the host writes in its own name.

On the wire an event is a JSON object; in the core it is one of the frozen types below,
parsed once where it comes in (`parse_event`, called by `transcript.parse_entry` and at
`table.advance` for callers that still hold JSON) and turned back into JSON once where it
goes out (`to_json`, for the entry the host signs). `to_json(parse_event(obj)) == obj` for
every event the shape check accepts, so every entry, hash and vector stays byte-identical.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from . import shape
from .errors import LocalError, Reason, RemoteError
from .messages import Message, parse_message
from .rules import MAX_DICE, MAX_SEATS, SEATS_RANGE

_ROUND = {"round": shape.positive}
_ATTEMPT = {"round": shape.positive, "attempt": shape.positive}
_SEATS = shape.list_of(shape.seat, max_items=MAX_SEATS)
_DICE = shape.list_of(lambda v: shape.is_int(v) and 0 <= v <= MAX_DICE, max_items=MAX_SEATS)


def _message_of(kind: str) -> shape.Check:
    """A whole signed message of one type, as schemas/v1/event.schema.json requires of the
    items of `commits` and `contributions`: anything else there is SCHEMA (SPEC.md 9, step 1),
    like any other shape error of the entry."""

    def check(value: Any) -> bool:
        try:
            return parse_message(value).type == kind
        except RemoteError:
            return False

    return check


def _roster_item(value: Any) -> bool:
    try:
        shape.check_object(
            value,
            {
                "seat": shape.seat,
                "key": shape.HEX32,
                "name": shape.name,
                "cpu": shape.boolean,
                "host_run": shape.boolean,
            },
            "roster",
        )
    except RemoteError:
        return False
    return True


def _forced_action(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if not isinstance(kind, str):
        return False
    if kind == "bid":
        return (
            set(value) == {"type", "quantity", "face"}
            and shape.is_int(value["quantity"])
            and 1 <= value["quantity"] <= 30
            and shape.die(value["face"])
        )
    return kind in ("challenge", "next_round") and set(value) == {"type"}


OUTCOMES = ("bid_stands", "bid_fails", "exact_hit", "exact_miss")

#: Fields of each event type besides "type".
EVENT_FIELDS: Mapping[str, Mapping[str, shape.Check]] = {
    "genesis": {
        "protocol": shape.positive,
        "host": shape.HEX32,
        "name": shape.name,
        "rules": lambda v: isinstance(v, dict),
        "nonce": shape.HEX16,
        "host_cpu": lambda v: shape.is_int(v) and 0 <= v <= MAX_SEATS,
    },
    "leave": {"seat": shape.seat},
    "start": {
        "roster": lambda v: (
            isinstance(v, list) and len(v) in SEATS_RANGE and all(_roster_item(x) for x in v)
        )
    },
    "round": {
        **_ATTEMPT,
        "seats": _SEATS,
        "dice": _DICE,
        "starter": shape.nullable(shape.seat),
        "palifico": shape.boolean,
    },
    "commit_set": {
        **_ATTEMPT,
        "commits": shape.list_of(_message_of("commit"), max_items=MAX_SEATS),
    },
    "abort": {**_ATTEMPT, "missing": _SEATS, "reason": shape.one_of("commit_timeout")},
    "beacon": {
        **_ATTEMPT,
        "contributions": shape.list_of(_message_of("contribute"), max_items=MAX_SEATS),
        "beacon": shape.HEX32,
        "starter": shape.seat,
    },
    "forced": {
        **_ROUND,
        "seat": shape.seat,
        "reason": shape.one_of("timer", "absent"),
        "action": _forced_action,
    },
    "absent": {**_ROUND, "seat": shape.seat, "reason": shape.one_of("grace_expired", "no_reply")},
    "stand_in": {**_ROUND, "seat": shape.seat, "key": shape.HEX32},
    "return": {**_ROUND, "seat": shape.seat},
    "result": {
        **_ATTEMPT,
        "hands": shape.list_of(
            shape.nullable(shape.list_of(shape.die, max_items=MAX_DICE)), max_items=MAX_SEATS
        ),
        "count": shape.uint,
        "outcome": shape.one_of(*OUTCOMES),
        "loser": shape.nullable(shape.seat),
        "gainer": shape.nullable(shape.seat),
        "dice_after": _DICE,
        "eliminated": _SEATS,
        "next_starter": shape.seat,
        "palifico_next": shape.boolean,
    },
    "forfeit": {
        **_ATTEMPT,
        "seats": _SEATS,
        "reason": shape.one_of("no_contribution", "no_opening"),
        "dice_after": _DICE,
        "next_starter": shape.nullable(shape.seat),
    },
    "game_over": {"ranking": _SEATS, "reason": shape.one_of("finished", "abandoned")},
}


def check_event(obj: Any) -> dict[str, Any]:
    """Check an event's shape; returns it unchanged."""
    if not isinstance(obj, dict):
        raise RemoteError(Reason.SCHEMA, "an event must be a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise RemoteError(Reason.UNKNOWN_TYPE, f"unknown event type {str(kind)[:32]!r}")
    shape.check_object(obj, {"type": shape.one_of(kind), **EVENT_FIELDS[kind]}, f"{kind} event")
    return obj


def make_event(kind: str, **values: Any) -> dict[str, Any]:
    """Build and shape-check an event's JSON. A shape error here is the builder's own bug:
    LocalError."""
    event = {"type": kind, **{k: v.hex() if isinstance(v, bytes) else v for k, v in values.items()}}
    try:
        return check_event(event)
    except RemoteError as err:
        raise LocalError(err.reason, f"a {kind} event built here: {err.detail}") from err


# ---- the typed events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo:
    """A seat as its join made it: one item of the start event's roster."""

    seat: int
    key: bytes
    name: str
    cpu: bool
    host_run: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "key": self.key.hex(),
            "name": self.name,
            "cpu": self.cpu,
            "host_run": self.host_run,
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> SeatInfo:
        return cls(
            seat=obj["seat"],
            key=bytes.fromhex(obj["key"]),
            name=obj["name"],
            cpu=obj["cpu"],
            host_run=obj["host_run"],
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedMove:
    """The move a forced event makes: `bid` (with its quantity and face), `challenge` or
    `next_round`."""

    type: str
    quantity: int | None = None
    face: int | None = None

    def to_json(self) -> dict[str, Any]:
        if self.type == "bid":
            return {"type": "bid", "quantity": self.quantity, "face": self.face}
        return {"type": self.type}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> ForcedMove:
        return cls(type=obj["type"], quantity=obj.get("quantity"), face=obj.get("face"))


class _Event:
    """What every event type shares: its `type` and its JSON form."""

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The event as the wire and the signed entry spell it."""
        return {"type": self.type, **{f.name: _json(getattr(self, f.name)) for f in fields(self)}}  # type: ignore[arg-type]

    @property
    def messages(self) -> tuple[Message, ...]:
        """The player messages the event carries (commit_set, beacon): none by default."""
        return ()

    @property
    def acted_for(self) -> tuple[int, ...]:
        """The seats a host act (forced, absent, abort, forfeit) names: none by default."""
        return ()


def _json(value: Any) -> Any:
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, tuple):
        return [_json(v) for v in value]
    if isinstance(value, Message | SeatInfo | ForcedMove):
        return value.to_json()
    return value


@dataclass(frozen=True, slots=True, kw_only=True)
class Genesis(_Event):
    type: ClassVar[str] = "genesis"
    protocol: int
    host: bytes
    name: str
    rules: dict[str, Any]  #: as the wire has it; `Rules.from_json` reads it (table_state)
    nonce: bytes
    host_cpu: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(_Event):
    type: ClassVar[str] = "leave"
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(_Event):
    type: ClassVar[str] = "start"
    roster: tuple[SeatInfo, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Round(_Event):
    type: ClassVar[str] = "round"
    round: int
    attempt: int
    seats: tuple[int, ...]
    dice: tuple[int, ...]
    starter: int | None
    palifico: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitSet(_Event):
    type: ClassVar[str] = "commit_set"
    round: int
    attempt: int
    commits: tuple[Message, ...]

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.commits


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort(_Event):
    type: ClassVar[str] = "abort"
    round: int
    attempt: int
    missing: tuple[int, ...]
    reason: str

    @property
    def acted_for(self) -> tuple[int, ...]:
        return self.missing


@dataclass(frozen=True, slots=True, kw_only=True)
class Beacon(_Event):
    type: ClassVar[str] = "beacon"
    round: int
    attempt: int
    contributions: tuple[Message, ...]
    beacon: bytes
    starter: int

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.contributions


@dataclass(frozen=True, slots=True, kw_only=True)
class Forced(_Event):
    type: ClassVar[str] = "forced"
    round: int
    seat: int
    reason: str
    action: ForcedMove

    @property
    def acted_for(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True, slots=True, kw_only=True)
class Absent(_Event):
    type: ClassVar[str] = "absent"
    round: int
    seat: int
    reason: str

    @property
    def acted_for(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True, slots=True, kw_only=True)
class StandIn(_Event):
    type: ClassVar[str] = "stand_in"
    round: int
    seat: int
    key: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Return(_Event):
    type: ClassVar[str] = "return"
    round: int
    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Result(_Event):
    type: ClassVar[str] = "result"
    round: int
    attempt: int
    hands: tuple[tuple[int, ...] | None, ...]
    count: int
    outcome: str
    loser: int | None
    gainer: int | None
    dice_after: tuple[int, ...]
    eliminated: tuple[int, ...]
    next_starter: int
    palifico_next: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class Forfeit(_Event):
    type: ClassVar[str] = "forfeit"
    round: int
    attempt: int
    seats: tuple[int, ...]
    reason: str
    dice_after: tuple[int, ...]
    next_starter: int | None

    @property
    def acted_for(self) -> tuple[int, ...]:
        return self.seats


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(_Event):
    type: ClassVar[str] = "game_over"
    ranking: tuple[int, ...]
    reason: str


HostEvent = (
    Genesis
    | Leave
    | Start
    | Round
    | CommitSet
    | Abort
    | Beacon
    | Forced
    | Absent
    | StandIn
    | Return
    | Result
    | Forfeit
    | GameOver
)

_TYPES: Mapping[str, type[HostEvent]] = {
    cls.type: cls
    for cls in (
        Genesis,
        Leave,
        Start,
        Round,
        CommitSet,
        Abort,
        Beacon,
        Forced,
        Absent,
        StandIn,
        Return,
        Result,
        Forfeit,
        GameOver,
    )
}

#: Fields whose JSON is lowercase hex and whose value is bytes.
_HEX_FIELDS = frozenset({"host", "nonce", "key", "beacon"})


def _value(name: str, value: Any) -> Any:
    """One field of a shape-checked event, as its typed class holds it."""
    if name in _HEX_FIELDS:
        return bytes.fromhex(value)
    if name in ("commits", "contributions"):
        return tuple(parse_message(m) for m in value)
    if name == "roster":
        return tuple(SeatInfo.from_json(s) for s in value)
    if name == "action":
        return ForcedMove.from_json(value)
    if name == "rules":
        return value
    return _frozen(value)


def _frozen(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    return value


def parse_event(obj: Any) -> HostEvent:
    """Check an event's shape (RemoteError, as check_event) and return its typed form."""
    check_event(obj)
    cls = _TYPES[obj["type"]]
    return cls(**{f.name: _value(f.name, obj[f.name]) for f in fields(cls)})


def checked_json(event: HostEvent) -> dict[str, Any]:
    """The JSON form of an event built here, shape-checked: a bad one is our bug (LocalError)."""
    obj = event.to_json()
    try:
        return check_event(obj)
    except RemoteError as err:
        raise LocalError(err.reason, f"a {event.type} event built here: {err.detail}") from err
