"""The shortcuts taken for speed decide exactly what the slow, obviously-correct ways decide.

`codec.decode` first tries a plain parse for printable-ASCII text and falls back to the strict
parser; `frozen.replace` stands in for `dataclasses.replace` on the core's state classes;
`shape.check_object` has a shortcut when the key sets match. Each is compared here with the
way it replaced, on generated input built to hit the corners (long integers, deep nesting,
duplicate and odd keys, escapes, floats, whitespace).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.core import codec, frozen, shape
from p2pdice.core.errors import RemoteError
from p2pdice.core.game import GameState
from p2pdice.core.table_state import Attempt, SeatInfo, TableState

KEY_CHARS = st.sampled_from(["a", "b", "\u00e9", "\x7f", "\n", " ", '"', "\\"])
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**60), max_value=2**60),
    st.sampled_from([2**53 - 1, 2**53, -(2**53) + 1, -(2**53), 10**15, 10**16 - 1]),
    st.text(alphabet=st.sampled_from("ab0\u00e9\x00\x7f\\\"\ud800'"), max_size=6),
    st.floats(allow_nan=False, allow_infinity=False),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(KEY_CHARS, max_size=3), inner, max_size=3),
    ),
    max_leaves=12,
)


def _texts(value: object) -> list[bytes]:
    """Several spellings of one value: canonical-looking, spaced, unsorted, escaped."""
    out = []
    for kwargs in (
        {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": False},
        {"separators": (",", ":"), "sort_keys": True, "ensure_ascii": True},
        {"separators": (", ", ": "), "sort_keys": False, "ensure_ascii": False},
    ):
        with contextlib.suppress(ValueError, UnicodeEncodeError):
            out.append(json.dumps(value, **kwargs).encode("utf-8", "surrogatepass"))
    return out


def _outcome(decode, data: bytes) -> tuple[str, object]:
    try:
        return "ok", decode(data)
    except codec.CodecError as err:
        return "error", err.reason


@settings(max_examples=600, deadline=None)
@given(VALUES)
def test_decode_agrees_with_the_strict_parser_on_generated_values(value) -> None:
    for data in _texts(value):
        assert _outcome(codec.decode, data) == _outcome(codec._decode_strict, data), data


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=40), st.binary(max_size=40))
def test_decode_agrees_with_the_strict_parser_on_mangled_bytes(head, tail) -> None:
    data = head + b'{"a":[1,{"b":"c"}],"d":-5}' + tail
    assert _outcome(codec.decode, data) == _outcome(codec._decode_strict, data)


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b'{"a":1,"a":1}', "JSON_DUPLICATE_KEY"),
        (b'{"a":9007199254740992}', "JSON_INT_RANGE"),
        (b"[-9007199254740992]", "JSON_INT_RANGE"),
        (b"9007199254740992", "JSON_INT_RANGE"),
        (b'{"a":1.0}', "JSON_FLOAT"),
        (b'{"a":1e2}', "JSON_FLOAT"),
        (b'{"a":NaN}', "JSON_SYNTAX"),
        (b'{"a\\u0001":1}', "JSON_KEY_NOT_ASCII"),
        (b'{"a\x7f":1}', "JSON_KEY_NOT_ASCII"),
        (b"[" * 33 + b"]" * 33, "JSON_TOO_DEEP"),
        (b'{"b":1,"a":2}', "JSON_NOT_CANONICAL"),
        (b'{"a": 1}', "JSON_NOT_CANONICAL"),
        (b'["\\u0061"]', "JSON_NOT_CANONICAL"),
        (b"-0", "JSON_NOT_CANONICAL"),
    ],
)
def test_plain_looking_text_that_is_not_canonical_is_refused(data: bytes, reason: str) -> None:
    with pytest.raises(codec.CodecError) as info:
        codec.decode(data)
    assert str(info.value.reason) == reason


def test_the_deepest_allowed_nesting_and_the_largest_integers_pass() -> None:
    assert codec.decode(b"[" * 32 + b"]" * 32) is not None
    assert codec.decode(b"[9007199254740991,-9007199254740991]") == [2**53 - 1, -(2**53) + 1]


STATE_CLASSES = [TableState, Attempt, SeatInfo, GameState]


@pytest.mark.parametrize("cls", STATE_CLASSES)
def test_state_classes_are_what_frozen_replace_supports(cls) -> None:
    # frozen.replace skips __init__: it is only right without __post_init__ or init=False.
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    assert not hasattr(cls, "__post_init__")
    assert all(f.init for f in dataclasses.fields(cls))


def test_frozen_replace_matches_dataclasses_replace_on_a_played_table() -> None:
    from p2pdice.bots.protosim import LocalTable
    from p2pdice.bots.registry import load_bot
    from p2pdice.core.rules import Rules

    table = LocalTable(
        Rules(seats=3), [load_bot("easy")] * 3, rng=random.Random(5), name="replace check"
    )
    table.seat_everyone()
    table.play()
    state = table.host.state
    assert state.game is not None
    for obj, changes in [
        (state, {"next_seq": 99, "phase": state.phase}),
        (state, {}),
        (state.game, {"turn": 1, "bids": ()}),
    ]:
        assert frozen.replace(obj, **changes) == dataclasses.replace(obj, **changes)
    with pytest.raises(TypeError, match="no field 'nope'"):
        frozen.replace(state, nope=1)


CHECKS = {"n": shape.uint, "h": shape.HEX16, "t": shape.one_of("x", "y")}


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["n", "h", "t", "z"]),
        st.one_of(st.integers(-3, 3), st.booleans(), st.sampled_from(["x", "y", "0" * 32, "q"])),
    )
)
def test_check_object_reports_what_the_full_check_reports(obj) -> None:
    def full(obj):  # the check without its shortcut, as it was written first
        extra = set(obj) - set(CHECKS)
        if extra:
            return f"unexpected field {sorted(extra)[0]!r}"
        for key, check in CHECKS.items():
            if key not in obj:
                return f"missing field {key!r}"
            if not check(obj[key]):
                return f"bad value for {key!r}"
        return None

    try:
        shape.check_object(obj, CHECKS, "thing")
        got = None
    except RemoteError as err:
        got = err.detail.removeprefix("thing: ")
    assert got == full(obj)


def test_message_bodies_cut_from_entry_lines_are_their_canonical_encoding() -> None:
    from p2pdice.bots.protosim import LocalTable
    from p2pdice.bots.registry import load_bot
    from p2pdice.core.rules import Rules
    from p2pdice.core.transcript import parse_entry

    table = LocalTable(
        Rules(seats=4, exact_call=True), [load_bot("medium")] * 4, rng=random.Random(9)
    )
    table.seat_everyone()
    table.play()
    cut = 0
    for line in table.host.lines():
        msg = parse_entry(line).msg
        if msg is not None:
            assert msg.body_bytes == codec.encode(msg.body)
            cut += 1
    assert cut > 50


@pytest.mark.parametrize(
    "msg",
    [
        {"body": {"type": "ack"}},  # no sig at all
        {"body": {"type": "ack"}, "sig": 7},
        {"body": {"type": "ack"}, "sig": "\u00e9"},
    ],
)
def test_a_message_entry_without_a_usable_sig_is_refused_by_shape(msg) -> None:
    from p2pdice.core.transcript import parse_entry

    line = codec.encode({"msg": msg, "prev": "00" * 32, "seq": 1, "sig": "00" * 64})
    with pytest.raises(RemoteError) as info:
        parse_entry(line)
    assert str(info.value.reason) == "SCHEMA"


def _played_lines(seed: int = 9) -> tuple[list[bytes], object]:
    from p2pdice.bots.protosim import LocalTable
    from p2pdice.bots.registry import load_bot
    from p2pdice.core.rules import Rules

    table = LocalTable(
        Rules(seats=4, exact_call=True), [load_bot("medium")] * 4, rng=random.Random(seed)
    )
    table.seat_everyone()
    table.play()
    return table.host.lines(), table.host


def test_a_message_given_its_frame_bytes_has_the_digest_body_and_entry_of_one_encoded() -> None:
    """The host cuts a player's message out of its canonical `send` frame; from those bytes
    it takes the digest, the signed body and the entry line, which must be what encoding the
    message gives."""
    from p2pdice.core.messages import parse_message
    from p2pdice.core.signing import SigningKey
    from p2pdice.core.transcript import build_entry, messages_in, parse_entry

    lines, host = _played_lines()
    key = SigningKey(bytes(range(32)))
    table = host.table_id
    checked = 0
    for line in lines:
        entry = parse_entry(line)
        for carried in messages_in(entry):
            obj = json.loads(codec.encode(carried.to_json()))
            fast = parse_message(obj, raw=codec.encode(obj))
            slow = parse_message(json.loads(codec.encode(carried.to_json())))
            assert fast.raw is not None and slow.raw is None
            assert fast.body_bytes == codec.encode(obj["body"])
            assert fast.digest() == slow.digest() == carried.digest()
            a = build_entry(key, entry.seq, entry.prev, msg=fast, table=table)
            b = build_entry(key, entry.seq, entry.prev, msg=slow, table=table)
            assert a.line == b.line and a.sig == b.sig and a.hash == b.hash
            assert a.line == codec.encode({**a.unsigned(), "sig": a.sig.hex()})
            checked += 1
    assert checked > 100


@pytest.mark.parametrize(
    "mangle",
    [
        lambda raw: raw.replace(b'{"body":', b'{"body" :', 1),  # not the canonical spelling
        lambda raw: raw[:-2] + b' "}',
        lambda raw: b"[" + raw + b"]",
    ],
)
def test_bytes_not_spelled_as_the_message_are_not_used(mangle) -> None:
    from p2pdice.core.messages import parse_message
    from p2pdice.core.transcript import parse_entry

    lines, _ = _played_lines()
    msg = next(parse_entry(line).msg for line in lines if parse_entry(line).msg is not None)
    obj = msg.to_json()
    got = parse_message(obj, raw=mangle(codec.encode(obj)))
    assert got.raw is None and got.body_bytes is None
    assert got.digest() == msg.digest()


def test_a_signature_verified_once_under_a_key_is_not_checked_again_under_it_only() -> None:
    from p2pdice.core.messages import parse_message
    from p2pdice.core.signing import signature_checker
    from p2pdice.core.transcript import parse_entry

    lines, host = _played_lines()
    entry = next(parse_entry(line) for line in lines[20:] if parse_entry(line).msg is not None)
    msg = parse_message(entry.msg.to_json())
    right = host.state.roster[msg.seat].key
    wrong = host.state.roster[(msg.seat + 1) % 4].key
    calls: list[bytes] = []

    def counting(public: bytes, data: bytes, sig: bytes) -> bool:
        from p2pdice.core.signing import ed25519_check

        calls.append(public)
        return ed25519_check(public, data, sig)

    with signature_checker(counting):
        assert msg.signature_ok(wrong) is False
        assert msg.signature_ok(wrong) is False  # a failure is checked again, every time
        assert msg.signature_ok(right) is True
        assert msg.signature_ok(right) is True
        assert msg.signature_ok(wrong) is False
    assert calls == [wrong, wrong, right, wrong]


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 70000])
def test_a_frame_written_at_once_is_the_websocket_message_aiohttp_sends(size) -> None:
    """TableServer writes a frame to a socket's transport itself (`ws_text_frame`) when
    nothing is queued for it; the bytes are those aiohttp's own writer puts on the wire for
    `send_str` on a server connection without compression."""
    import asyncio

    from aiohttp._websocket.writer import WebSocketWriter

    from p2pdice.net.server import ws_text_frame

    class Recording(asyncio.WriteTransport):
        def __init__(self) -> None:
            super().__init__()
            self.data = b""

        def write(self, data: bytes) -> None:
            self.data += bytes(data)

        def is_closing(self) -> bool:
            return False

    frame = '{"entry":"' + "\u00e9x"[: size % 2 + 1] * (size // 2) + '"}'
    transport = Recording()

    async def send() -> None:
        protocol = type("P", (), {"_paused": False})()
        writer = WebSocketWriter(protocol, transport, use_mask=False, compress=0)  # type: ignore[arg-type]
        await writer.send_frame(frame.encode("utf-8"), 0x1)

    asyncio.run(send())
    assert transport.data == ws_text_frame(frame)
