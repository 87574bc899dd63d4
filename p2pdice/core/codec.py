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
    return _dump(value)


def _dump(value: Any) -> bytes:
    """Canonical bytes of a value already checked by `_check_value`."""
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
    except RecursionError:
        # Thousands of levels: the parser gives up before _check_value could count them.
        raise CodecError(Reason.JSON_TOO_DEEP, "nested too deeply") from None
    _check_value(value, 0)
    if _dump(value) != bytes(data):
        raise CodecError(Reason.JSON_NOT_CANONICAL, "valid JSON, but not in canonical form")
    return value


def _check_value(value: Any, depth: int) -> None:
    """`depth` counts the containers around `value`; a container adds one level (SPEC 2.3)."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return  # lone surrogates make the UTF-8 encoding fail, which encode() reports
    if kind is int:
        if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
            raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
        return
    if kind is dict:
        if depth >= MAX_DEPTH:
            raise CodecError(Reason.JSON_TOO_DEEP, f"nested deeper than {MAX_DEPTH} levels")
        for key, item in value.items():
            if type(key) is not str or not (key.isascii() and key.isprintable()):
                raise CodecError(Reason.JSON_KEY_NOT_ASCII, f"key {key!r} is not printable ASCII")
            _check_value(item, depth + 1)
        return
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            raise CodecError(Reason.JSON_TOO_DEEP, f"nested deeper than {MAX_DEPTH} levels")
        for item in value:
            _check_value(item, depth + 1)
        return
    if isinstance(value, float):
        raise CodecError(Reason.JSON_FLOAT, "numbers must be integers")
    raise CodecError(Reason.SCHEMA, f"{kind.__name__} has no JSON encoding")


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
