"""Host events (protocol/SPEC.md 6.2): the entries the host writes in its own name.

On the wire an event is a JSON object; in the core it is one of the frozen types below,
parsed once where it comes in (`parse_event`, called by `transcript.parse_entry` and at
`table.advance` for callers that still hold JSON) and turned back into JSON once where it
goes out (`to_json`, for the entry the host signs). `to_json(parse_event(obj)) == obj` for
every event the shape check accepts, so every entry, hash and vector stays byte-identical.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from types import NoneType, UnionType
from typing import Annotated, Any, ClassVar, Self, Union, get_args, get_origin, get_type_hints

from . import shape
from .errors import LocalError, Reason, RemoteError
from .messages import EXTRA_FIELDS, Message, MessageType, parse_message
from .rules import MAX_DICE, MAX_SEATS, SEATS_RANGE, Rules
from .version import PROTOCOL_VERSION

# ---- the shapes of event fields ----------------------------------------------------------------
#
# Each field of the typed events below is `Annotated[<its type>, <the check its JSON passes>]`:
# the type drives the codec (bytes are hex, tuples are lists, messages and records nest) and
# the check is the shape `check_event` applies, so one line of a class says both. (A check
# written in a class's annotation is evaluated against the class, not this module: lambdas,
# which look names up late, belong in the aliases here.)

Positive = Annotated[int, shape.positive]
Count = Annotated[int, shape.uint]
Flag = Annotated[bool, shape.boolean]
Seat = Annotated[int, shape.seat]
MaybeSeat = Annotated[int | None, shape.nullable(shape.seat)]
Seats = Annotated[tuple[int, ...], shape.list_of(shape.seat, max_items=MAX_SEATS)]
Dice = Annotated[
    tuple[int, ...],
    shape.list_of(lambda v: shape.is_int(v) and 0 <= v <= MAX_DICE, max_items=MAX_SEATS),
]
Key = Annotated[bytes, shape.HEX32]
Nonce = Annotated[bytes, shape.HEX16]
Name = Annotated[str, shape.name]
#: The genesis rules object as the wire has it; `check_event` checks the schema's shape of
#: it, and `Rules.from_json` reads it (table_state), which also refuses a `first_starter`
#: seat the table lacks (BAD_EVENT: the schema cannot state it).
RulesObject = Annotated[dict[str, Any], lambda v: isinstance(v, dict)]
HostCpu = Annotated[int, lambda v: shape.is_int(v) and 0 <= v <= MAX_SEATS]


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


OUTCOMES = ("bid_stands", "bid_fails", "exact_hit", "exact_miss")

#: The moves a forced event may make: a seat's blind move (RULES.md R8: a bid or a
#: challenge) or starting the next round for it.
FORCED_MOVES = (MessageType.BID, MessageType.CHALLENGE, MessageType.NEXT_ROUND)

#: A forced bid's quantity and face have the shape of a bid message's.
_BID_CHECKS = {k: EXTRA_FIELDS[MessageType.BID][k] for k in ("quantity", "face")}


def _forced_action(value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    kind = value.get("type")
    if not isinstance(kind, str) or kind not in FORCED_MOVES:
        return False
    if kind == MessageType.BID:
        return value.keys() == {"type", *_BID_CHECKS} and all(
            check(value[k]) for k, check in _BID_CHECKS.items()
        )
    return value.keys() == {"type"}


# ---- one codec for every record, driven by its fields ------------------------------------------

_Convert = Callable[[Any], Any] | None  #: None: the JSON value is the typed value as it is


def _same(value: Any) -> Any:
    return value


def _codec(hint: Any) -> tuple[_Convert, _Convert]:
    """(to JSON, from JSON) for a field's type; None where the value is its own JSON."""
    if get_origin(hint) is Annotated:
        hint = get_args(hint)[0]
    if hint is bytes:
        return bytes.hex, bytes.fromhex
    if hint is str:  # a StrEnum member (a MessageType, say) is written as the plain text it is
        return str, None
    if hint is Message:
        return Message.to_json, parse_message
    if isinstance(hint, type) and issubclass(hint, _Record):
        return hint.to_json, hint.from_json
    origin = get_origin(hint)
    if origin is tuple:
        item, _ = get_args(hint)  # tuple[X, ...]
        out, back = _codec(item)
        put, get = out or _same, back or _same  # bound here: mypy cannot narrow in lambdas
        return (
            list if out is None else (lambda v: [put(x) for x in v]),
            tuple if back is None else (lambda v: tuple(get(x) for x in v)),
        )
    if origin is Union or origin is UnionType:
        (item,) = [a for a in get_args(hint) if a is not NoneType]
        out, back = _codec(item)
        put, get = out or _same, back or _same
        return (
            None if out is None else (lambda v: None if v is None else put(v)),
            None if back is None else (lambda v: None if v is None else get(v)),
        )
    return None, None  # int, bool, and the rules object (read by Rules.from_json)


@dataclass(frozen=True, slots=True)
class _FieldCodec:
    name: str
    check: shape.Check
    to_json: _Convert
    from_json: _Convert
    default: Any  #: MISSING, or the value the JSON leaves out


def _field_codecs(cls: type) -> tuple[_FieldCodec, ...]:
    hints = get_type_hints(cls, include_extras=True)
    out = []
    for f in fields(cls):
        hint = hints[f.name]
        checks = [m for m in getattr(hint, "__metadata__", ()) if callable(m)]
        if len(checks) != 1:
            raise AssertionError(f"{cls.__name__}.{f.name}: Annotated with its shape check")
        to_json, from_json = _codec(hint)
        out.append(_FieldCodec(f.name, checks[0], to_json, from_json, f.default))
    return tuple(out)


class _Record:
    """A frozen dataclass whose JSON is its fields: bytes as hex, tuples as lists, messages
    and records as their own JSON; a field with a default is left out while it holds it."""

    __slots__ = ()

    def to_json(self) -> dict[str, Any]:
        obj: dict[str, Any] = {}
        for c in _FIELD_CODECS[type(self)]:
            value = getattr(self, c.name)
            if c.default is not MISSING and value == c.default:
                continue
            obj[c.name] = value if c.to_json is None else c.to_json(value)
        return obj

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Self:
        """The typed form of JSON that passed the record's shape check."""
        values = {}
        for c in _FIELD_CODECS[cls]:
            value = obj[c.name] if c.default is MISSING else obj.get(c.name, c.default)
            values[c.name] = value if c.from_json is None else c.from_json(value)
        return cls(**values)


# ---- the typed events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatInfo(_Record):
    """A seat as its join made it: one item of the start event's roster."""

    seat: Seat
    key: Key
    name: Name
    cpu: Flag
    host_run: Flag


def _roster_item(value: Any) -> bool:
    try:
        shape.check_object(value, _ROSTER_ITEM, "roster")
    except RemoteError:
        return False
    return True


Roster = Annotated[
    tuple[SeatInfo, ...],
    lambda v: isinstance(v, list) and len(v) in SEATS_RANGE and all(_roster_item(x) for x in v),
]


@dataclass(frozen=True, slots=True, kw_only=True)
class ForcedMove(_Record):
    """The move a forced event makes: `bid` (with its quantity and face), `challenge` or
    `next_round` (FORCED_MOVES); its shape is checked whole, by the forced event's `action`."""

    type: Annotated[str, shape.one_of(*FORCED_MOVES)]
    quantity: Annotated[int | None, shape.nullable(_BID_CHECKS["quantity"])] = None
    face: Annotated[int | None, shape.nullable(_BID_CHECKS["face"])] = None


class _Event(_Record):
    """What every event type shares: its `type` and its JSON form."""

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        """The event as the wire and the signed entry spell it."""
        return {"type": self.type, **_Record.to_json(self)}

    @property
    def messages(self) -> tuple[Message, ...]:
        """The player messages the event carries (commit_set, beacon): none by default."""
        return ()

    @property
    def acted_for(self) -> tuple[int, ...]:
        """The seats a host act (forced, absent, abort, forfeit) names: none by default."""
        return ()


@dataclass(frozen=True, slots=True, kw_only=True)
class Genesis(_Event):
    type: ClassVar[str] = "genesis"
    protocol: Positive
    host: Key
    name: Name
    rules: RulesObject
    nonce: Nonce
    host_cpu: HostCpu
    #: At the start the host fills every empty seat with a host-run CPU (SPEC.md 3.3);
    #: false: the game is played by the seats taken, the empty ones left out. Left out of
    #: the JSON while false (so a table of before it has the same genesis and id).
    cpu_fill: Annotated[bool, lambda v: v is True] = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(_Event):
    type: ClassVar[str] = "leave"
    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(_Event):
    type: ClassVar[str] = "start"
    roster: Roster
    #: The seat the host plays itself, named only at a table whose round 1 it opens
    #: (`first_starter` "host", SPEC.md 3.3); left out of the JSON otherwise, so every other
    #: start keeps its one encoding.
    host_seat: Annotated[int | None, shape.seat] = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Round(_Event):
    type: ClassVar[str] = "round"
    round: Positive
    attempt: Positive
    seats: Seats
    dice: Dice
    starter: MaybeSeat
    palifico: Flag


@dataclass(frozen=True, slots=True, kw_only=True)
class CommitSet(_Event):
    type: ClassVar[str] = "commit_set"
    round: Positive
    attempt: Positive
    commits: Annotated[
        tuple[Message, ...],
        shape.list_of(_message_of(MessageType.COMMIT), max_items=MAX_SEATS),
    ]

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.commits


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort(_Event):
    type: ClassVar[str] = "abort"
    round: Positive
    attempt: Positive
    missing: Seats
    reason: Annotated[str, shape.one_of("commit_timeout")]

    @property
    def acted_for(self) -> tuple[int, ...]:
        return self.missing


@dataclass(frozen=True, slots=True, kw_only=True)
class Beacon(_Event):
    type: ClassVar[str] = "beacon"
    round: Positive
    attempt: Positive
    contributions: Annotated[
        tuple[Message, ...],
        shape.list_of(_message_of(MessageType.CONTRIBUTE), max_items=MAX_SEATS),
    ]
    beacon: Key
    starter: Seat

    @property
    def messages(self) -> tuple[Message, ...]:
        return self.contributions


@dataclass(frozen=True, slots=True, kw_only=True)
class Forced(_Event):
    type: ClassVar[str] = "forced"
    round: Positive
    seat: Seat
    reason: Annotated[str, shape.one_of("timer", "absent")]
    action: Annotated[ForcedMove, _forced_action]

    @property
    def acted_for(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True, slots=True, kw_only=True)
class Absent(_Event):
    type: ClassVar[str] = "absent"
    round: Positive
    seat: Seat
    reason: Annotated[str, shape.one_of("grace_expired", "no_reply", "stalled")]

    @property
    def acted_for(self) -> tuple[int, ...]:
        return (self.seat,)


@dataclass(frozen=True, slots=True, kw_only=True)
class StandIn(_Event):
    type: ClassVar[str] = "stand_in"
    round: Positive
    seat: Seat
    key: Key


@dataclass(frozen=True, slots=True, kw_only=True)
class Return(_Event):
    type: ClassVar[str] = "return"
    round: Positive
    seat: Seat


@dataclass(frozen=True, slots=True, kw_only=True)
class Result(_Event):
    type: ClassVar[str] = "result"
    round: Positive
    attempt: Positive
    hands: Annotated[
        tuple[tuple[int, ...] | None, ...],
        shape.list_of(
            shape.nullable(shape.list_of(shape.die, max_items=MAX_DICE)), max_items=MAX_SEATS
        ),
    ]
    count: Count
    outcome: Annotated[str, shape.one_of(*OUTCOMES)]
    loser: MaybeSeat
    gainer: MaybeSeat
    dice_after: Dice
    eliminated: Seats
    next_starter: Seat
    palifico_next: Flag


@dataclass(frozen=True, slots=True, kw_only=True)
class Forfeit(_Event):
    type: ClassVar[str] = "forfeit"
    round: Positive
    attempt: Positive
    seats: Seats
    reason: Annotated[str, shape.one_of("no_contribution", "no_opening")]
    dice_after: Dice
    next_starter: MaybeSeat

    @property
    def acted_for(self) -> tuple[int, ...]:
        return self.seats


@dataclass(frozen=True, slots=True, kw_only=True)
class GameOver(_Event):
    type: ClassVar[str] = "game_over"
    ranking: Seats
    reason: Annotated[str, shape.one_of("finished", "abandoned")]


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

#: Every event type, in SPEC.md 6.2's order.
EVENT_TYPES: tuple[type[HostEvent], ...] = (
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

_TYPES: Mapping[str, type[HostEvent]] = {cls.type: cls for cls in EVENT_TYPES}

#: Each record type's fields, made once from the classes' annotations.
_FIELD_CODECS: Mapping[type, tuple[_FieldCodec, ...]] = {
    cls: _field_codecs(cls) for cls in (SeatInfo, ForcedMove, *EVENT_TYPES)
}


def _checks(cls: type) -> dict[str, shape.Check]:
    """The shape check of each field of a record, by JSON key, in field order."""
    return {c.name: c.check for c in _FIELD_CODECS[cls]}


_ROSTER_ITEM = _checks(SeatInfo)

#: Fields of each event type besides "type", with their shape checks (from the classes).
EVENT_FIELDS: Mapping[str, Mapping[str, shape.Check]] = {
    cls.type: _checks(cls) for cls in EVENT_TYPES
}


#: Fields an event's JSON leaves out while they hold their default (SPEC.md 3.1 `cpu_fill`).
LEFT_OUT_AT_DEFAULT: Mapping[str, frozenset[str]] = {
    cls.type: frozenset(c.name for c in _FIELD_CODECS[cls] if c.default is not MISSING)
    for cls in EVENT_TYPES
}


def check_event(obj: Any) -> dict[str, Any]:
    """Check an event's shape; returns it unchanged."""
    if not isinstance(obj, dict):
        raise RemoteError(Reason.SCHEMA, "an event must be a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in EVENT_FIELDS:
        raise RemoteError(Reason.UNKNOWN_TYPE, f"unknown event type {str(kind)[:32]!r}")
    spec = {"type": shape.one_of(kind), **EVENT_FIELDS[kind]}
    for name in LEFT_OUT_AT_DEFAULT[kind] - obj.keys():
        del spec[name]  # absent: it holds its default (present, its check refuses the default)
    shape.check_object(obj, spec, f"{kind} event")
    if kind == "genesis":
        # The schema's checks that no one field's check states: another protocol version, the
        # rules object's own shape, and `host_cpu` at most the seats (its allOf).
        if obj["protocol"] != PROTOCOL_VERSION:
            raise RemoteError(
                Reason.SCHEMA,
                f"genesis event: protocol {obj['protocol']} is not supported "
                f"(this is {PROTOCOL_VERSION})",
            )
        wrong = Rules.shape_error(obj["rules"])
        if wrong is not None:
            raise RemoteError(Reason.SCHEMA, f"genesis event: rules: {wrong}")
        if obj["host_cpu"] > obj["rules"]["seats"]:
            raise RemoteError(Reason.SCHEMA, "genesis event: more host-run CPU seats than seats")
    return obj


def make_event(kind: str, **values: Any) -> dict[str, Any]:
    """Build and shape-check an event's JSON. A shape error here is the builder's own bug:
    LocalError."""
    event = {"type": kind, **{k: v.hex() if isinstance(v, bytes) else v for k, v in values.items()}}
    try:
        return check_event(event)
    except RemoteError as err:
        raise LocalError(err.reason, f"a {kind} event built here: {err.detail}") from err


def parse_event(obj: Any) -> HostEvent:
    """Check an event's shape (RemoteError, as check_event) and return its typed form."""
    check_event(obj)
    return _TYPES[obj["type"]].from_json(obj)


def checked_json(event: HostEvent) -> dict[str, Any]:
    """The JSON form of an event built here, shape-checked: a bad one is our bug (LocalError)."""
    obj = event.to_json()
    try:
        return check_event(obj)
    except RemoteError as err:
        raise LocalError(err.reason, f"a {event.type} event built here: {err.detail}") from err
