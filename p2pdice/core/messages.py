"""Player messages (protocol/SPEC.md 4): shapes, signing, parsing and hashing.

A message is `{"body": {...}, "sig": hex}`; the body always names the table, the seat, a
per-key counter and the newest entry the sender verified. Semantic checks (is it this seat's
turn, does the opening match) belong to the table state machine; here only the shape and the
signature are checked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from . import shape
from .bids import Bid
from .codec import encode
from .errors import LocalError, Reason, RemoteError
from .hashing import Tag, tagged_hash
from .signing import SigningKey, verify, verify_raw


class MessageType(StrEnum):
    """The type of every player message (SPEC.md 4.2), named once: code that asks about a
    kind uses these, and code that asks about a group of kinds reads the tables
    core/transitions.py derives (MESSAGE_PHASE, SEAT_MESSAGES, CHOSEN_MESSAGES, ...)."""

    JOIN = "join"
    COMMIT = "commit"
    CONTRIBUTE = "contribute"
    BID = "bid"
    CHALLENGE = "challenge"
    EXACT = "exact"
    UNDO = "undo"
    OPEN = "open"
    ACK = "ack"
    NEXT_ROUND = "next_round"


_ROUND = {"round": shape.positive}
_ATTEMPT = {"round": shape.positive, "attempt": shape.positive}

#: Fields of each message type besides the common ones.
EXTRA_FIELDS: Mapping[str, Mapping[str, shape.Check]] = {
    MessageType.JOIN: {
        "key": shape.HEX32,
        "name": shape.name,
        "cpu": shape.boolean,
        "host_run": shape.boolean,
        "host": shape.HEX32,
        "nonce": shape.HEX16,
    },
    MessageType.COMMIT: {**_ATTEMPT, "seed_commit": shape.HEX32, "contrib_commit": shape.HEX32},
    MessageType.CONTRIBUTE: {**_ATTEMPT, "commit_set": shape.HEX32, "contribution": shape.HEX32},
    MessageType.BID: {
        **_ROUND,
        "quantity": lambda v: shape.is_int(v) and 1 <= v <= 30,
        "face": shape.die,
    },
    MessageType.CHALLENGE: _ROUND,
    MessageType.EXACT: _ROUND,
    MessageType.UNDO: _ROUND,
    MessageType.OPEN: {**_ATTEMPT, "salt": shape.HEX32, "seed": shape.HEX32},
    MessageType.ACK: {**_ROUND, "result": shape.HEX32},
    MessageType.NEXT_ROUND: _ROUND,
}

MESSAGE_TYPES: tuple[str, ...] = tuple(MessageType)

_COMMON: Mapping[str, shape.Check] = {
    "type": shape.one_of(*MESSAGE_TYPES),
    "table": shape.HEX32,
    "seat": shape.seat,
    "counter": shape.uint,
    "head": shape.HEX32,
}

_SIG_MESSAGE_PREFIX = Tag.SIG_MESSAGE.encode("ascii") + b"\x00"
_ENVELOPE = {"body": lambda v: isinstance(v, dict), "sig": shape.HEX64}
#: Keyed by plain text, as a parsed body holds its type (a str-keyed lookup stays on the fast path).
_BODIES = {str(kind): {**_COMMON, **extra} for kind, extra in EXTRA_FIELDS.items()}


@dataclass(frozen=True)
class Message:
    """A signed player message whose shape has been checked (its signature not yet)."""

    body: dict[str, Any]
    sig: bytes
    #: canonical(body), when the message was cut out of a canonical line that holds it
    body_bytes: bytes | None = field(default=None, compare=False, repr=False)
    #: canonical(message), when it was cut out of a canonical frame that holds it: its digest
    #: and the entry that carries it are made from these bytes without encoding it again
    raw: bytes | None = field(default=None, compare=False, repr=False)

    @property
    def type(self) -> str:
        return str(self.body["type"])

    @property
    def seat(self) -> int:
        seat: int = self.body["seat"]
        return seat

    @property
    def counter(self) -> int:
        counter: int = self.body["counter"]
        return counter

    @cached_property
    def table(self) -> bytes:  # cached: the table machine reads it at every check
        return bytes.fromhex(self.body["table"])

    @cached_property
    def head(self) -> bytes:
        return bytes.fromhex(self.body["head"])

    def bytes_field(self, name: str) -> bytes:
        return bytes.fromhex(self.body[name])

    @property
    def bid(self) -> Bid:
        return Bid(self.body["quantity"], self.body["face"])

    def to_json(self) -> dict[str, Any]:
        return {"body": self.body, "sig": self.sig.hex()}

    @cached_property
    def _digest(self) -> bytes:
        return tagged_hash(
            Tag.MESSAGE, self.raw if self.raw is not None else encode(self.to_json())
        )

    def digest(self) -> bytes:
        """H("p2pdice/v1/message", canonical(message)): how a message is referred to."""
        return self._digest

    def signature_ok(self, public: bytes) -> bool:
        # The host checks a buffered commitment or contribution when it arrives and again
        # inside the set it posts: a verdict is a function of (key, body, signature), so a
        # message that verified under this very key once needs no second Ed25519 check.
        if self.__dict__.get("_verified_by") == public:
            return True
        if self.body_bytes is None:
            ok = verify(public, Tag.SIG_MESSAGE, self.body, self.sig)
        else:
            ok = verify_raw(public, _SIG_MESSAGE_PREFIX + self.body_bytes, self.sig)
        if ok:
            self.__dict__["_verified_by"] = bytes(public)  # frozen: as cached_property does
        return ok


def parse_message(
    obj: Any, *, body_bytes: bytes | None = None, raw: bytes | None = None
) -> Message:
    """Check the envelope and body shape of a decoded JSON message (SCHEMA / UNKNOWN_TYPE).

    `body_bytes`, when the caller has them, are the body's canonical bytes as they stand in
    the line it decoded: the signature check then need not encode the body again. `raw`, the
    same for the whole message (canonical(obj), as a canonical frame spells it), gives both."""
    shape.check_object(obj, _ENVELOPE, "message")
    body = obj["body"]
    kind = body.get("type")
    if not isinstance(kind, str) or kind not in _BODIES:
        raise RemoteError(Reason.UNKNOWN_TYPE, f"unknown message type {str(kind)[:32]!r}")
    shape.check_object(body, _BODIES[kind], f"{kind} message")
    if raw is not None and body_bytes is None:
        body_bytes = _body_of(raw, obj["sig"])
        if body_bytes is None:
            raw = None  # not the message's canonical bytes after all: encode when needed
    return Message(body=body, sig=bytes.fromhex(obj["sig"]), body_bytes=body_bytes, raw=raw)


_RAW_START = b'{"body":'


def _body_of(raw: bytes, sig: str) -> bytes | None:
    """canonical(body) inside canonical(message): keys sort, so the message is
    `{"body":` BODY `,"sig":"<hex>"}` (None when `raw` is not spelled so)."""
    end = b',"sig":"' + sig.encode("ascii") + b'"}'
    if not (raw.startswith(_RAW_START) and raw.endswith(end)):
        return None
    return raw[len(_RAW_START) : len(raw) - len(end)]


def sign_message(
    signer: SigningKey,
    *,
    kind: str,
    table: bytes,
    seat: int,
    counter: int,
    head: bytes,
    **fields: Any,
) -> Message:
    """Build, sign and shape-check a message (a malformed one is our own bug: LocalError)."""
    body = {
        "type": str(kind),  # plain text in the body, as a parsed message holds it
        "table": table.hex(),
        "seat": seat,
        "counter": counter,
        "head": head.hex(),
        **{k: v.hex() if isinstance(v, bytes) else v for k, v in fields.items()},
    }
    message = Message(body=body, sig=signer.sign(Tag.SIG_MESSAGE, body))
    try:
        parse_message(message.to_json())
    except RemoteError as err:
        raise LocalError(err.reason, err.detail) from None
    return message
