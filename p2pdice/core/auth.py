"""Connection authentication: a key that already holds a seat answers the host's challenge
(protocol/SPEC.md 10.2). Not part of the transcript."""

from __future__ import annotations

from typing import Any

from . import shape
from .hashing import Tag
from .signing import SigningKey


def auth_parts(auth: Any) -> tuple[dict[str, Any], bytes]:
    shape.check_object(auth, {"body": lambda v: isinstance(v, dict), "sig": shape.HEX64}, "auth")
    body = auth["body"]
    shape.check_object(
        body,
        {
            "type": shape.one_of("auth"),
            "table": shape.HEX32,
            "host": shape.HEX32,
            "key": shape.HEX32,
            "nonce": shape.HEX16,
        },
        "auth",
    )
    return body, bytes.fromhex(auth["sig"])


def sign_auth(key: SigningKey, *, table: bytes, host: bytes, nonce: bytes) -> dict[str, Any]:
    """The answer to a challenge by a key that already holds a seat (SPEC.md 10.2)."""
    body = {
        "type": "auth",
        "table": table.hex(),
        "host": host.hex(),
        "key": key.public.hex(),
        "nonce": nonce.hex(),
    }
    return {"body": body, "sig": key.sign(Tag.SIG_AUTH, body).hex()}
