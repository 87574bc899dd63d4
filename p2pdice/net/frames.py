"""Wire frames (protocol/SPEC.md 10): one canonical JSON object per WebSocket text frame.

Decoding checks size first, then canonical JSON, then the frame's shape, so a hostile frame
is refused before any work that grows with its content.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core import shape
from ..core.closing import MAX_CLOSING_DETAIL, Closing
from ..core.codec import decode, encode
from ..core.errors import Reason, RemoteError
from ..core.pake import MESSAGE_BYTES
from ..core.rules import MAX_SEATS
from ..core.version import PROTOCOL_VERSION

MAX_FRAME = 64 * 1024

#: A SPAKE2 message (SPEC.md 3.4): 33 bytes in hex.
PAKE_MESSAGE = shape.hexbytes(MESSAGE_BYTES)


def _obj(value: Any) -> bool:
    return isinstance(value, dict)


TO_HOST: Mapping[str, Mapping[str, shape.Check]] = {
    "join": {
        "msg": _obj,
        "pake": shape.nullable(PAKE_MESSAGE),
        "proof": shape.nullable(shape.HEX32),
        "work": shape.nullable(shape.uint),
    },
    "auth": {"auth": _obj},
    "spectate": {},
    "send": {"msg": _obj},
    "sync": {"from": shape.uint},
}

TO_CLIENT: Mapping[str, Mapping[str, shape.Check]] = {
    "challenge": {
        "protocol": lambda v: v == PROTOCOL_VERSION and shape.is_int(v),  # ours only
        "table": shape.HEX32,
        "host": shape.HEX32,
        "nonce": shape.HEX16,
        "seat": shape.nullable(shape.seat),
        "password": shape.boolean,
        "pake": shape.nullable(PAKE_MESSAGE),
        "entries": shape.uint,
    },
    "welcome": {"seat": shape.nullable(shape.seat), "proof": shape.nullable(shape.HEX32)},
    "entry": {"entry": _obj},
    "accepted": {"ref": shape.HEX32, "seq": shape.nullable(shape.uint)},
    "error": {
        "reason": lambda v: isinstance(v, str) and v in Reason.__members__,
        "detail": lambda v: isinstance(v, str) and len(v) <= 500,
        "ref": shape.nullable(shape.HEX32),
    },
    "status": {
        "phase": lambda v: isinstance(v, str) and len(v) <= 20,
        "connected": shape.list_of(shape.seat, max_items=MAX_SEATS),
        "turn": shape.nullable(shape.seat),
        "deadline_ms": shape.nullable(shape.uint),
        "bank_ms": shape.nullable(shape.uint),  #: until the seat on turn runs out of time
    },
    "closing": {
        "reason": lambda v: isinstance(v, str) and v in set(Closing),
        "detail": lambda v: isinstance(v, str) and len(v) <= MAX_CLOSING_DETAIL,
    },
}


def decode_frame(
    data: bytes | str, kinds: Mapping[str, Mapping[str, shape.Check]]
) -> dict[str, Any]:
    """A frame's object, or RemoteError with the reason to send back."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if len(raw) > MAX_FRAME:
        raise RemoteError(Reason.TOO_LARGE, f"frames are at most {MAX_FRAME} bytes")
    obj = decode(raw)
    if not isinstance(obj, dict):
        raise RemoteError(Reason.SCHEMA, "a frame is a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in kinds:
        raise RemoteError(Reason.UNKNOWN_TYPE, f"unknown frame type {str(kind)[:32]!r}")
    shape.check_object(obj, {"type": shape.one_of(kind), **kinds[kind]}, f"{kind} frame")
    return obj


def encode_frame(kind: str, **fields: Any) -> str:
    return encode({"type": kind, **fields}).decode("utf-8")


def error_frame(reason: Reason, detail: str, ref: str | None = None) -> str:
    return encode_frame("error", reason=str(reason), detail=detail[:500], ref=ref)
