"""Strict shape checks for JSON objects: exact key sets and typed fields.

The JSON Schemas in protocol/schemas/v1 are the language-neutral contract; these checks are
the same contract in code, fast enough for every frame (tests hold the two together).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from .errors import Reason, RemoteError
from .rules import MAX_SEATS

Check = Callable[[Any], bool]

MAX_NAME = 24


def is_int(value: Any) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def uint(value: Any) -> bool:
    return is_int(value) and value >= 0


def positive(value: Any) -> bool:
    return is_int(value) and value >= 1


def seat(value: Any) -> bool:
    return is_int(value) and 0 <= value < MAX_SEATS


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


#: Characters a name may not contain (SPEC.md 10.5), the same class as the `name` pattern of
#: protocol/schemas/v1/common.schema.json: controls, format characters, separators other than
#: the plain space, private use and noncharacters. An explicit list, not the Unicode database,
#: so every Python version (and every other implementation) agrees on the same names.
NAME_FORBIDDEN = re.compile(
    "[\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u0600-\\u0605\\u061c\\u06dd\\u070f\\u0890-\\u0891\\u08e2\\u1680\\u180e\\u2000-\\u200c\\u200e-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ue000-\\uf8ff\\ufdd0-\\ufdef\\ufeff\\ufff9-\\ufffb\\ufffe-\\uffff\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U0001fffe-\U0001ffff\U0002fffe-\U0002ffff\U0003fffe-\U0003ffff\U0004fffe-\U0004ffff\U0005fffe-\U0005ffff\U0006fffe-\U0006ffff\U0007fffe-\U0007ffff\U0008fffe-\U0008ffff\U0009fffe-\U0009ffff\U000afffe-\U000affff\U000bfffe-\U000bffff\U000cfffe-\U000cffff\U000dfffe-\U000dffff\U000e0001\U000e0020-\U000e007f\U000efffe-\U0010ffff]"
)


def name(value: Any) -> bool:
    """A display name after cleaning: 1..24 characters, none forbidden, single inner spaces."""
    return (
        isinstance(value, str)
        and 1 <= len(value) <= MAX_NAME
        and NAME_FORBIDDEN.search(value) is None
        and value == value.strip(" ")
        and "  " not in value
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
    if obj.keys() == spec.keys():  # the usual case: only a bad value is left to report
        for key, check in spec.items():
            if not check(obj[key]):
                raise RemoteError(Reason.SCHEMA, f"{what}: bad value for {key!r}")
        return
    extra = set(obj) - set(spec)
    if extra:
        raise RemoteError(Reason.SCHEMA, f"{what}: unexpected field {sorted(extra)[0]!r}")
    for key, check in spec.items():
        if key not in obj:
            raise RemoteError(Reason.SCHEMA, f"{what}: missing field {key!r}")
        if not check(obj[key]):
            raise RemoteError(Reason.SCHEMA, f"{what}: bad value for {key!r}")
