"""Host events (protocol/SPEC.md 6.2): the entries the host writes in its own name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import shape
from .errors import LocalError, Reason, RemoteError

_ROUND = {"round": shape.positive}
_ATTEMPT = {"round": shape.positive, "attempt": shape.positive}
_SEATS = shape.list_of(shape.seat, max_items=6)
_DICE = shape.list_of(lambda v: shape.is_int(v) and 0 <= v <= 5, max_items=6)


def _message_of(kind: str) -> shape.Check:
    """A whole signed message of one type, as schemas/v1/event.schema.json requires of the
    items of `commits` and `contributions`: anything else there is SCHEMA (SPEC.md 9, step 1),
    like any other shape error of the entry."""

    def check(value: Any) -> bool:
        from .messages import parse_message

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
        "host_cpu": lambda v: shape.is_int(v) and 0 <= v <= 6,
    },
    "leave": {"seat": shape.seat},
    "start": {
        "roster": lambda v: (
            isinstance(v, list) and 2 <= len(v) <= 6 and all(_roster_item(x) for x in v)
        )
    },
    "round": {
        **_ATTEMPT,
        "seats": _SEATS,
        "dice": _DICE,
        "starter": shape.nullable(shape.seat),
        "palifico": shape.boolean,
    },
    "commit_set": {**_ATTEMPT, "commits": shape.list_of(_message_of("commit"), max_items=6)},
    "abort": {**_ATTEMPT, "missing": _SEATS, "reason": shape.one_of("commit_timeout")},
    "beacon": {
        **_ATTEMPT,
        "contributions": shape.list_of(_message_of("contribute"), max_items=6),
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
        "hands": shape.list_of(shape.nullable(shape.list_of(shape.die, max_items=5)), max_items=6),
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


def make_event(kind: str, **fields: Any) -> dict[str, Any]:
    """Build and shape-check an event. A shape error here is the builder's own bug: LocalError."""
    event = {"type": kind, **{k: v.hex() if isinstance(v, bytes) else v for k, v in fields.items()}}
    try:
        return check_event(event)
    except RemoteError as err:
        raise LocalError(err.reason, f"a {kind} event built here: {err.detail}") from err


def seats_acted_for(event: Mapping[str, Any]) -> tuple[int, ...]:
    """The seats a host act (forced, absent, abort, forfeit) names: those it acted for."""
    if event["type"] in ("forced", "absent"):
        return (event["seat"],)
    return tuple(event.get("missing", event.get("seats", ())))
