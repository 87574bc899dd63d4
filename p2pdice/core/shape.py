"""Strict shape checks for JSON objects: exact key sets and typed fields.

The JSON Schemas in protocol/schemas/v1 are the language-neutral contract; these checks are
the same contract in code, fast enough for every frame (tests hold the two together).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import Reason, RemoteError

Check = Callable[[Any], bool]

MAX_NAME = 24


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def uint(value: Any) -> bool:
    return is_int(value) and value >= 0


def positive(value: Any) -> bool:
    return is_int(value) and value >= 1


def seat(value: Any) -> bool:
    return is_int(value) and 0 <= value <= 5


def boolean(value: Any) -> bool:
    return isinstance(value, bool)


def hexbytes(size: int) -> Check:
    pattern = re.compile(f"[0-9a-f]{{{2 * size}}}")

    def check(value: Any) -> bool:
        return isinstance(value, str) and pattern.fullmatch(value) is not None

    check.__name__ = f"hex{size}"
    return check


HEX16 = hexbytes(16)
HEX32 = hexbytes(32)
HEX64 = hexbytes(64)


def one_of(*values: Any) -> Check:
    allowed = set(values)
    return lambda value: isinstance(value, str) and value in allowed


def name(value: Any) -> bool:
    """A display name after cleaning: 1..24 printable characters, no control or format codes."""
    return (
        isinstance(value, str)
        and 1 <= len(value) <= MAX_NAME
        and value.isprintable()
        and value == value.strip()
    )


def list_of(item: Check, *, max_items: int) -> Check:
    return lambda value: (
        isinstance(value, list) and len(value) <= max_items and all(item(v) for v in value)
    )


def nullable(check: Check) -> Check:
    return lambda value: value is None or check(value)


def die(value: Any) -> bool:
    return is_int(value) and 1 <= value <= 6


def check_object(obj: Any, spec: Mapping[str, Check], what: str) -> None:
    """Exactly the keys of `spec`, each passing its check; otherwise RemoteError(SCHEMA)."""
    if not isinstance(obj, dict):
        raise RemoteError(Reason.SCHEMA, f"{what} must be a JSON object")
    extra = set(obj) - set(spec)
    if extra:
        raise RemoteError(Reason.SCHEMA, f"{what}: unexpected field {sorted(extra)[0]!r}")
    for key, check in spec.items():
        if key not in obj:
            raise RemoteError(Reason.SCHEMA, f"{what}: missing field {key!r}")
        if not check(obj[key]):
            raise RemoteError(Reason.SCHEMA, f"{what}: bad value for {key!r}")
