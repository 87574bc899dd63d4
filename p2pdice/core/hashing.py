"""Framing and tagged hashing (protocol/SPEC.md 2.1, 2.2, 2.5): every hash is domain-separated."""

from __future__ import annotations

import hashlib
import hmac
from enum import StrEnum


class Tag(StrEnum):
    """The registry of domain tags and signature contexts (SPEC.md 2.5)."""

    TABLE = "p2pdice/v1/table"  #: table id from the genesis event
    ENTRY = "p2pdice/v1/entry"  #: hash of a transcript entry
    MESSAGE = "p2pdice/v1/message"  #: hash of a signed player message
    COMMIT_SEED = "p2pdice/v1/commit/seed"  #: seed commitment
    COMMIT_CONTRIB = "p2pdice/v1/commit/contrib"  #: contribution commitment
    COMMIT_SET = "p2pdice/v1/commitset"  #: commitment-set hash
    BEACON = "p2pdice/v1/beacon"  #: the round's shared randomness R
    DICE = "p2pdice/v1/dice"  #: HMAC input for dice derivation
    STARTER = "p2pdice/v1/starter"  #: HMAC input for the random first starter
    COMPARE = "p2pdice/v1/compare"  #: comparison code
    PASSWORD_JOINER = "p2pdice/v1/password/joiner"  #: SPAKE2 identity of the joiner (side A)
    PASSWORD_HOST = "p2pdice/v1/password/host"  #: SPAKE2 identity of the host (side B)
    PASSWORD_CONFIRM_JOINER = "p2pdice/v1/password/confirm/joiner"  #: joiner's key confirmation
    PASSWORD_CONFIRM_HOST = "p2pdice/v1/password/confirm/host"  #: host's key confirmation
    PASSWORD_WORK = "p2pdice/v1/password/work"  #: a password attempt's proof of work
    RULES = "p2pdice/v1/rules"  #: rules hash for discovery
    SIG_MESSAGE = "p2pdice/v1/sig/message"  #: signature context of player messages
    #: Prefix of the signature context of host entries: the context is this, "/" and the
    #: table id in hex (`entry_context`), so an entry signature names its table.
    SIG_ENTRY = "p2pdice/v1/sig/entry"
    SIG_AUTH = "p2pdice/v1/sig/auth"  #: signature context of connection authentication


def is_hash_hex(value: object) -> bool:
    """`value` is a hash (a table id, say) as the protocol writes one: 64 lower-case hex
    digits, so also never a path to follow."""
    return (
        isinstance(value, str) and len(value) == 64 and all(c in "0123456789abcdef" for c in value)
    )


def entry_context(table_id: bytes) -> str:
    """The signature context of the host's entries at one table (SPEC.md 2.5): an entry
    signed for one table never verifies at another, even under the same host key."""
    return f"{Tag.SIG_ENTRY}/{table_id.hex()}"


Field = bytes | str | int


def field_bytes(value: Field) -> bytes:
    """Bytes as themselves, text as UTF-8, unsigned integers as u64 big-endian."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**64:
        return value.to_bytes(8, "big")
    raise TypeError(f"cannot frame {value!r}")


def frame(value: Field) -> bytes:
    data = field_bytes(value)
    return len(data).to_bytes(4, "big") + data


def framed(tag: str, *fields: Field) -> bytes:
    """frame(tag) || frame(f1) || ... || frame(fn)"""
    parts = [_framed_tag(tag)]
    for value in fields:
        # Bytes first and without a call: they are most fields, and every entry is hashed.
        data = value if type(value) is bytes else field_bytes(value)
        parts.append(len(data).to_bytes(4, "big"))
        parts.append(data)
    return b"".join(parts)


_TAG_FRAMES: dict[str, bytes] = {}


def _framed_tag(tag: str) -> bytes:
    framed_tag = _TAG_FRAMES.get(tag)
    if framed_tag is None:
        framed_tag = frame(tag)
        if isinstance(tag, Tag):  # only the registry's tags: a bounded cache
            _TAG_FRAMES[tag] = framed_tag
    return framed_tag


def tagged_hash(tag: Tag, *fields: Field) -> bytes:
    """H(tag, f1, ..., fn) = SHA-256 over the framed tag and fields."""
    return hashlib.sha256(framed(tag, *fields)).digest()


def tagged_hmac(key: bytes, tag: Tag, *fields: Field) -> bytes:
    """HMAC-SHA256 keyed by `key` over the framed tag and fields."""
    return hmac.new(key, framed(tag, *fields), hashlib.sha256).digest()
