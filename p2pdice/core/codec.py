"""Canonical JSON (protocol/SPEC.md 2.3): the only bytes this protocol ever signs or hashes.

A strict subset of RFC 8785: integers only, ASCII keys, sorted keys, no whitespace. Decoding
is strict in the other direction too: bytes are accepted only if they re-encode to exactly
themselves, so one value has exactly one encoding and a signature covers exactly one text.
"""

from __future__ import annotations

import json
from typing import Any

from .errors import Reason, RemoteError

MAX_SAFE_INT = 2**53 - 1
MAX_DEPTH = 32
_MAX_INT_DIGITS = len(str(MAX_SAFE_INT))


class CodecError(RemoteError):
    """Bytes that are not canonical JSON, or a value that has no canonical encoding."""


def encode(value: Any) -> bytes:
    """The canonical encoding of a JSON value built from dict, list, str, int, bool, None."""
    _check_value(value, 0)
    text = json.dumps(
        value, ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
    )
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise CodecError(Reason.JSON_BAD_UTF8, "a string holds a lone surrogate") from None


def decode(data: bytes) -> Any:
    """Parse bytes that must be canonical; CodecError with the SPEC's reason otherwise."""
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise CodecError(Reason.JSON_BAD_UTF8, "not valid UTF-8") from None
    if text.startswith("\ufeff"):
        raise CodecError(Reason.JSON_NOT_CANONICAL, "a byte-order mark is not canonical")
    if _nesting_depth(text) > MAX_DEPTH:
        raise CodecError(Reason.JSON_TOO_DEEP, f"nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(
            text,
            object_pairs_hook=_object_without_duplicates,
            parse_float=_refuse_float,
            parse_int=_bounded_int,
            parse_constant=_refuse_constant,
        )
    except json.JSONDecodeError as err:
        raise CodecError(Reason.JSON_SYNTAX, f"not JSON: {err.msg} at byte {err.pos}") from None
    except RecursionError:  # pragma: no cover - the depth scan above comes first
        raise CodecError(Reason.JSON_TOO_DEEP, "nested too deeply") from None
    _check_value(value, 0)
    if encode(value) != bytes(data):
        raise CodecError(Reason.JSON_NOT_CANONICAL, "valid JSON, but not in canonical form")
    return value


def _check_value(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise CodecError(Reason.JSON_TOO_DEEP, f"nested deeper than {MAX_DEPTH} levels")
    if value is None or isinstance(value, bool):
        return
    if isinstance(value, int):
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
        return
    if isinstance(value, str):
        _check_string(value)
        return
    if isinstance(value, float):
        raise CodecError(Reason.JSON_FLOAT, "numbers must be integers")
    if isinstance(value, (list, tuple)):
        for item in value:
            _check_value(item, depth + 1)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str) or not all(" " <= ch <= "~" for ch in key):
                raise CodecError(Reason.JSON_KEY_NOT_ASCII, f"key {key!r} is not printable ASCII")
            _check_value(item, depth + 1)
        return
    raise CodecError(Reason.SCHEMA, f"{type(value).__name__} has no JSON encoding")


def _check_string(text: str) -> None:
    if any("\ud800" <= ch <= "\udfff" for ch in text):
        raise CodecError(Reason.JSON_BAD_UTF8, "a string holds a lone surrogate")


def _nesting_depth(text: str) -> int:
    """Deepest bracket nesting outside strings: a cheap scan before the recursive parser."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth -= 1
    return deepest


def _object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise CodecError(Reason.JSON_DUPLICATE_KEY, f"key {key!r} appears twice")
        obj[key] = value
    return obj


def _refuse_float(text: str) -> Any:
    raise CodecError(Reason.JSON_FLOAT, f"{text[:20]} is not an integer")


def _refuse_constant(text: str) -> Any:
    raise CodecError(Reason.JSON_SYNTAX, f"{text} is not JSON")


def _bounded_int(text: str) -> int:
    digits = text.lstrip("-")
    if len(digits) > _MAX_INT_DIGITS:  # before int(): a huge literal must not cost time
        raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
    value = int(text)
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
    return value
