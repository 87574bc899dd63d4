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


_ENCODER = json.JSONEncoder(
    ensure_ascii=False, separators=(",", ":"), sort_keys=True, allow_nan=False
)


def encode(value: Any) -> bytes:
    """The canonical encoding of a JSON value built from dict, list, str, int, bool, None."""
    _check_value(value, 0)
    return _dump(value)


def _dump(value: Any) -> bytes:
    """Canonical bytes of a value already checked by `_check_value`."""
    text = _ENCODER.encode(value)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise CodecError(Reason.JSON_BAD_UTF8, "a string holds a lone surrogate") from None


_NOT_PLAIN = object()  #: what the plain path returns when it cannot decide


def decode(data: bytes) -> Any:
    """Parse bytes that must be canonical; CodecError with the SPEC's reason otherwise."""
    data = bytes(data)
    value = _decode_plain(data)
    if value is not _NOT_PLAIN:
        return value
    return _decode_strict(data)


def _decode_plain(data: bytes) -> Any:
    """The fast path for the text every entry is: printable ASCII without escapes, few
    brackets. Such text cannot hold a bad key, a lone surrogate, a byte-order mark or too deep
    a nesting, and the parser's own hooks refuse floats and integers out of range, so parsing
    it and comparing its re-encoding with it decides canonical form. Anything else, and
    anything that fails here, takes the strict path, which also names the reason."""
    if (
        not data.isascii()
        or b"\\" in data
        or b"\x7f" in data
        or data.count(b"{") + data.count(b"[") > MAX_DEPTH
    ):
        return _NOT_PLAIN
    try:
        # Controls below 0x20 are not printable: the parser refuses them raw in strings.
        value = _PLAIN_DECODER.decode(data.decode("ascii"))
        if _dump(value) == data:
            return value
    except (ValueError, CodecError, RecursionError):
        pass
    return _NOT_PLAIN


def _decode_strict(data: bytes) -> Any:
    try:
        text = data.decode("utf-8")
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
    if _dump(value) != data:
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
        if not _keys_printable_ascii(value):
            for key, item in value.items():  # the slow way, to report the first bad key
                if type(key) is not str or not (key.isascii() and key.isprintable()):
                    raise CodecError(
                        Reason.JSON_KEY_NOT_ASCII, f"key {key!r} is not printable ASCII"
                    )
                _check_value(item, depth + 1)
            return
        _check_items(value.values(), depth + 1)
        return
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH:
            raise CodecError(Reason.JSON_TOO_DEEP, f"nested deeper than {MAX_DEPTH} levels")
        _check_items(value, depth + 1)
        return
    if isinstance(value, float):
        raise CodecError(Reason.JSON_FLOAT, "numbers must be integers")
    raise CodecError(Reason.SCHEMA, f"{kind.__name__} has no JSON encoding")


def _check_items(items: Any, depth: int) -> None:
    # Scalars inline: they are most values, and a call for each doubles the cost of a walk.
    for item in items:
        kind = type(item)
        if kind is str or kind is bool or item is None:
            continue
        if kind is int and -MAX_SAFE_INT <= item <= MAX_SAFE_INT:
            continue
        _check_value(item, depth)


def _keys_printable_ascii(obj: dict[Any, Any]) -> bool:
    try:
        joined = "".join(obj)
    except TypeError:  # a key that is not a string
        return False
    return joined.isascii() and joined.isprintable()


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
    if len(text) < 16:  # 15 digits, or a sign and 14: always within range
        return int(text)
    digits = text.lstrip("-")
    if len(digits) > _MAX_INT_DIGITS:  # before int(): a huge literal must not cost time
        raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
    value = int(text)
    if not -MAX_SAFE_INT <= value <= MAX_SAFE_INT:
        raise CodecError(Reason.JSON_INT_RANGE, "integers must lie within +-(2^53 - 1)")
    return value


#: Built once: json.loads with hooks builds a new decoder on every call.
_PLAIN_DECODER = json.JSONDecoder(
    parse_float=_refuse_float, parse_int=_bounded_int, parse_constant=_refuse_constant
)
