#!/usr/bin/env python3
"""Generate the p2pdice protocol test vectors (protocol/vectors/v1/*.json).

This script is an *independent* statement of protocol/SPEC.md: it deliberately imports
nothing from the ``p2pdice`` package and nothing from the rest of the repository. It uses the
Python standard library and ``cryptography`` (Ed25519, scrypt), plus ``spake2`` for the
password exchange's group arithmetic only, and re-implements from the prose of SPEC.md
everything a vector needs: framing and tagged hashes (§2.1, §2.2), the canonical JSON encoder
and strict decoder (§2.3), signatures with contexts (§2.4), the table id and the comparison
code (§3.1, §3.5), the password verifier and key confirmations (§3.4), commitments, the
commitment set, the
shared randomness R, dice and the random starter (§5), and the hash-chained transcript (§6.1).
If the package and this script disagree on a vector, one of them misreads SPEC.md.

Every secret is derived from a fixed label (``det(label)`` = SHA-256 of the label), so the
output is byte-identical on every run; CI can re-run this script and diff.

Usage: python protocol/gen_vectors.py [--out DIR]     (default: vectors/v1 next to this file)

The script checks itself before writing anything and fails loudly when a check does not hold:
the strict decoder agrees with every decode case, the encoder reproduces every canonical
output, the RFC 8032 test vectors are reproduced exactly, every signature marked valid verifies
and every one marked invalid does not, and every invalid chain is rejected at the stated index
with the stated reason.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import re
import sys
import unicodedata
from collections.abc import Callable
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

# ---------------------------------------------------------------------------------------------
# §2.1 / §2.2 framing and tagged hashes
# ---------------------------------------------------------------------------------------------

TAG_TABLE = "p2pdice/v1/table"
TAG_ENTRY = "p2pdice/v1/entry"
TAG_MESSAGE = "p2pdice/v1/message"
TAG_COMMIT_SEED = "p2pdice/v1/commit/seed"
TAG_COMMIT_CONTRIB = "p2pdice/v1/commit/contrib"
TAG_COMMITSET = "p2pdice/v1/commitset"
TAG_BEACON = "p2pdice/v1/beacon"
TAG_DICE = "p2pdice/v1/dice"
TAG_STARTER = "p2pdice/v1/starter"
TAG_COMPARE = "p2pdice/v1/compare"
TAG_PASSWORD_JOINER = "p2pdice/v1/password/joiner"
TAG_PASSWORD_HOST = "p2pdice/v1/password/host"
TAG_PASSWORD_CONFIRM_JOINER = "p2pdice/v1/password/confirm/joiner"
TAG_PASSWORD_CONFIRM_HOST = "p2pdice/v1/password/confirm/host"
TAG_PASSWORD_WORK = "p2pdice/v1/password/work"
CTX_MESSAGE = "p2pdice/v1/sig/message"
CTX_ENTRY = "p2pdice/v1/sig/entry"  #: prefix: an entry's context names its table


def ctx_entry(table_id: bytes) -> str:
    """The signature context of a table's entries: `p2pdice/v1/sig/entry/<table id hex>`."""
    return f"{CTX_ENTRY}/{table_id.hex()}"


Field = bytes | str | int


def field(value: Field) -> bytes:
    """§2.1: bytes are themselves, text is UTF-8, an unsigned integer is u64 big-endian."""
    if isinstance(value, bool):
        raise TypeError("booleans are not fields")
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, int):
        if not 0 <= value < 2**64:
            raise ValueError("u64 out of range")
        return value.to_bytes(8, "big")
    raise TypeError(type(value))


def u64(n: int) -> bytes:
    return field(n)


def frame(x: bytes) -> bytes:
    if len(x) >= 2**32:
        raise ValueError("field too long to frame")
    return len(x).to_bytes(4, "big") + x


def framed(tag: str, *fields: Field) -> bytes:
    out = frame(tag.encode("ascii"))
    for f in fields:
        out += frame(field(f))
    return out


def H(tag: str, *fields: Field) -> bytes:
    return hashlib.sha256(framed(tag, *fields)).digest()


def hmac_sha256(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def det(label: str, n: int = 32) -> bytes:
    """Deterministic "random" bytes for vectors: SHA-256 of a label (truncated to n bytes)."""
    digest = hashlib.sha256(("p2pdice-vectors/" + label).encode("utf-8")).digest()
    assert n <= 32
    return digest[:n]


# ---------------------------------------------------------------------------------------------
# §2.3 canonical JSON: encoder and strict decoder
# ---------------------------------------------------------------------------------------------

MAX_INT = 2**53 - 1
MAX_DEPTH = 32


class JsonError(Exception):
    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


_SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _enc_string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif o < 0x20:
            out.append(f"\\u{o:04x}")
        elif 0xD800 <= o <= 0xDFFF:
            raise ValueError("lone surrogate cannot be encoded")
        else:
            out.append(ch)  # U+007F and all non-ASCII literally
    out.append('"')
    return "".join(out)


def _enc(v: Any, depth: int) -> str:
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        if not -MAX_INT <= v <= MAX_INT:
            raise ValueError("integer out of range")
        return str(v)
    if isinstance(v, str):
        return _enc_string(v)
    if isinstance(v, (list, tuple)):
        if depth + 1 > MAX_DEPTH:
            raise ValueError("too deep")
        return "[" + ",".join(_enc(x, depth + 1) for x in v) + "]"
    if isinstance(v, dict):
        if depth + 1 > MAX_DEPTH:
            raise ValueError("too deep")
        for k in v:
            if not isinstance(k, str) or any(not 0x20 <= ord(c) <= 0x7E for c in k):
                raise ValueError(f"bad key {k!r}")
        keys = sorted(v, key=lambda k: k.encode("ascii"))
        return "{" + ",".join(_enc_string(k) + ":" + _enc(v[k], depth + 1) for k in keys) + "}"
    raise TypeError(type(v))


def canonical(v: Any) -> bytes:
    return _enc(v, 0).encode("utf-8")


_NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
_WS = " \t\n\r"


class _Parser:
    """RFC 8259 JSON parser that reports the §2.3 reason codes.

    Deliberate readings (see the comments in canonical_json.json):
    - a leading U+FEFF (BOM) is skipped, as RFC 8259 §8.1 allows a parser to, so a BOM-prefixed
      text is JSON that does not re-encode identically: JSON_NOT_CANONICAL;
    - "01" and "+1" are not JSON numbers under RFC 8259: JSON_SYNTAX; "-0" is a JSON number
      whose value re-encodes as "0": JSON_NOT_CANONICAL;
    - an unescaped control character inside a string is not JSON (RFC 8259 §7): JSON_SYNTAX;
    - any fraction or exponent is JSON_FLOAT, whatever its value ("1.0", "1e2", "1E2").
    """

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    def fail(self, reason: str, detail: str) -> JsonError:
        return JsonError(reason, f"{detail} at offset {self.i}")

    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in _WS:
            self.i += 1

    def parse(self) -> Any:
        if self.s.startswith("\ufeff"):
            self.i = 1
        self.ws()
        v = self.value(0)
        self.ws()
        if self.i != len(self.s):
            raise self.fail("JSON_SYNTAX", "trailing data")
        return v

    def peek(self) -> str:
        if self.i >= len(self.s):
            raise self.fail("JSON_SYNTAX", "unexpected end")
        return self.s[self.i]

    def value(self, depth: int) -> Any:
        c = self.peek()
        if c == "{":
            return self.obj(depth + 1)
        if c == "[":
            return self.arr(depth + 1)
        if c == '"':
            return self.string()
        if c == "-" or "0" <= c <= "9":
            return self.number()
        for lit, val in (("true", True), ("false", False), ("null", None)):
            if self.s.startswith(lit, self.i):
                self.i += len(lit)
                return val
        raise self.fail("JSON_SYNTAX", f"unexpected {c!r}")

    def obj(self, depth: int) -> dict:
        if depth > MAX_DEPTH:
            raise self.fail("JSON_TOO_DEEP", "nesting deeper than 32")
        self.i += 1
        out: dict = {}
        self.ws()
        if self.peek() == "}":
            self.i += 1
            return out
        while True:
            self.ws()
            if self.peek() != '"':
                raise self.fail("JSON_SYNTAX", "expected key")
            k = self.string()
            if any(not 0x20 <= ord(ch) <= 0x7E for ch in k):
                raise self.fail("JSON_KEY_NOT_ASCII", f"key {k!r}")
            if k in out:
                raise self.fail("JSON_DUPLICATE_KEY", f"key {k!r}")
            self.ws()
            if self.peek() != ":":
                raise self.fail("JSON_SYNTAX", "expected ':'")
            self.i += 1
            self.ws()
            out[k] = self.value(depth)
            self.ws()
            c = self.peek()
            self.i += 1
            if c == "}":
                return out
            if c != ",":
                raise self.fail("JSON_SYNTAX", "expected ',' or '}'")

    def arr(self, depth: int) -> list:
        if depth > MAX_DEPTH:
            raise self.fail("JSON_TOO_DEEP", "nesting deeper than 32")
        self.i += 1
        out: list = []
        self.ws()
        if self.peek() == "]":
            self.i += 1
            return out
        while True:
            self.ws()
            out.append(self.value(depth))
            self.ws()
            c = self.peek()
            self.i += 1
            if c == "]":
                return out
            if c != ",":
                raise self.fail("JSON_SYNTAX", "expected ',' or ']'")

    def hex4(self) -> int:
        h = self.s[self.i : self.i + 4]
        if len(h) != 4 or any(ch not in "0123456789abcdefABCDEF" for ch in h):
            raise self.fail("JSON_SYNTAX", "bad \\u escape")
        self.i += 4
        return int(h, 16)

    def string(self) -> str:
        self.i += 1  # opening quote
        out = []
        while True:
            c = self.peek()
            self.i += 1
            if c == '"':
                return "".join(out)
            if ord(c) < 0x20:
                raise self.fail("JSON_SYNTAX", "unescaped control character in string")
            if c != "\\":
                out.append(c)
                continue
            e = self.peek()
            self.i += 1
            simple = {
                '"': '"',
                "\\": "\\",
                "/": "/",
                "b": "\b",
                "f": "\f",
                "n": "\n",
                "r": "\r",
                "t": "\t",
            }
            if e in simple:
                out.append(simple[e])
                continue
            if e != "u":
                raise self.fail("JSON_SYNTAX", f"bad escape \\{e}")
            cp = self.hex4()
            if 0xDC00 <= cp <= 0xDFFF:
                raise self.fail("JSON_BAD_UTF8", "lone low surrogate escape")
            if 0xD800 <= cp <= 0xDBFF:
                if self.s.startswith("\\u", self.i):
                    save = self.i
                    self.i += 2
                    lo = self.hex4()
                    if 0xDC00 <= lo <= 0xDFFF:
                        out.append(chr(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00)))
                        continue
                    self.i = save
                raise self.fail("JSON_BAD_UTF8", "lone high surrogate escape")
            out.append(chr(cp))

    def number(self) -> int:
        m = _NUMBER.match(self.s, self.i)
        if not m:
            raise self.fail("JSON_SYNTAX", "bad number")
        self.i = m.end()
        if m.group(2) or m.group(3):
            raise self.fail("JSON_FLOAT", "fraction or exponent")
        digits = m.group(1)
        # Check the length first: Python refuses int() of > 4300 digits, and no in-range
        # integer has more than 16 digits.
        if len(digits) > 16:
            raise self.fail("JSON_INT_RANGE", "integer out of range")
        n = int(m.group(0))
        if not -MAX_INT <= n <= MAX_INT:
            raise self.fail("JSON_INT_RANGE", "integer out of range")
        return n


def decode_strict(data: bytes) -> Any:
    """§2.3 strict decode: valid UTF-8, JSON under the profile, re-encodes byte-identically."""
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:
        raise JsonError("JSON_BAD_UTF8", str(e)) from None
    value = _Parser(text).parse()
    if canonical(value) != data:
        raise JsonError("JSON_NOT_CANONICAL", "does not re-encode byte-identically")
    return value


# ---------------------------------------------------------------------------------------------
# §2.4 signatures
# ---------------------------------------------------------------------------------------------


def keypair(secret: bytes) -> tuple[Ed25519PrivateKey, bytes]:
    sk = Ed25519PrivateKey.from_private_bytes(secret)
    pk = sk.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return sk, pk


def signed_bytes(context: str, body: Any) -> bytes:
    return context.encode("ascii") + b"\x00" + canonical(body)


def sign(secret: bytes, context: str, body: Any) -> bytes:
    return keypair(secret)[0].sign(signed_bytes(context, body))


def openssl_accepts(public: bytes, sig: bytes, msg: bytes) -> bool:
    """What OpenSSL's cofactorless RFC 8032 check says (it accepts small-order keys)."""
    try:
        Ed25519PublicKey.from_public_bytes(public).verify(sig, msg)
        return True
    except (InvalidSignature, ValueError):
        return False


# Curve arithmetic in affine coordinates (slow and simple: only the generator uses it), to
# derive the small-order points rather than copy a list (§2.4).
ED_P = 2**255 - 19
ED_L = 2**252 + 27742317777372353535851937790883648493
ED_D = (-121665 * pow(121666, ED_P - 2, ED_P)) % ED_P
Point = tuple[int, int]


def ed_add(a: Point, b: Point) -> Point:
    (x1, y1), (x2, y2) = a, b
    t = ED_D * x1 * x2 * y1 * y2 % ED_P
    x = (x1 * y2 + x2 * y1) * pow(1 + t, ED_P - 2, ED_P) % ED_P
    y = (y1 * y2 + x1 * x2) * pow(1 - t, ED_P - 2, ED_P) % ED_P
    return x, y


def ed_mul(n: int, a: Point) -> Point:
    out: Point = (0, 1)
    while n:
        if n & 1:
            out = ed_add(out, a)
        a, n = ed_add(a, a), n >> 1
    return out


def ed_decode(enc: bytes) -> Point | None:
    """RFC 8032 5.1.3, strict: None for y >= p, a y with no x, or x = 0 with the sign bit."""
    n = int.from_bytes(enc, "little")
    y, sign = n & ((1 << 255) - 1), n >> 255
    if y >= ED_P:
        return None
    x2 = (y * y - 1) * pow(ED_D * y * y + 1, ED_P - 2, ED_P) % ED_P
    if x2 == 0:
        return None if sign else (0, y)
    x = pow(x2, (ED_P + 3) // 8, ED_P)
    if (x * x - x2) % ED_P:
        x = x * pow(2, (ED_P - 1) // 4, ED_P) % ED_P
    if (x * x - x2) % ED_P:
        return None
    return (ED_P - x if x & 1 != sign else x), y


def ed_encode(a: Point) -> bytes:
    return (a[1] | ((a[0] & 1) << 255)).to_bytes(32, "little")


def small_order_points() -> list[bytes]:
    """The 8 points whose order divides 8: the multiples of a torsion point of order 8,
    found as [L]P for a curve point P."""
    for y in range(2, 1000):
        base = ed_decode(y.to_bytes(32, "little"))
        if base is None:
            continue
        torsion = ed_mul(ED_L, base)
        points = [ed_mul(i, torsion) for i in range(8)]
        if len(set(points)) == 8:
            return [ed_encode(q) for q in points]
    raise AssertionError("no point of order 8 found")


def strong_point(enc: bytes) -> bool:
    """Canonical, on the curve, and not of small order: what §2.4 accepts as a key or R."""
    a = ed_decode(enc)
    return a is not None and ed_mul(8, a) != (0, 1)


def verify_raw(public: bytes, sig: bytes, msg: bytes) -> bool:
    """§2.4: A and R strong points, S < L, then the cofactorless RFC 8032 equation."""
    if not strong_point(public) or not strong_point(sig[:32]):
        return False
    if int.from_bytes(sig[32:], "little") >= ED_L:
        return False
    return openssl_accepts(public, sig, msg)


def secret_scalar(secret: bytes) -> int:
    """RFC 8032 5.1.5: the clamped scalar a of a 32-byte private key."""
    h = bytearray(hashlib.sha512(secret).digest()[:32])
    h[0] &= 248
    h[31] &= 127
    h[31] |= 64
    return int.from_bytes(h, "little")


def forge_with_r(secret: bytes, public: bytes, r_enc: bytes, msg: bytes) -> bytes:
    """A signature (R, S) with a chosen R whose discrete log is 0 (an identity encoding), by
    the key's owner: S = k * a, so [S]B = [k]A = R + [k]A for a verifier that decodes R loosely."""
    k = int.from_bytes(hashlib.sha512(r_enc + public + msg).digest(), "little") % ED_L
    return r_enc + (k * secret_scalar(secret) % ED_L).to_bytes(32, "little")


# ---------------------------------------------------------------------------------------------
# §3 and §5 derivations
# ---------------------------------------------------------------------------------------------


def table_id_of(genesis_event: dict) -> bytes:
    return H(TAG_TABLE, canonical(genesis_event))


def comparison_code(start_entry_hash: bytes) -> str:
    n = int.from_bytes(H(TAG_COMPARE, start_entry_hash)[:8], "big")
    d = f"{n:020d}"
    return "-".join(d[i : i + 5] for i in range(0, 20, 5))


def password_verifier(password: str, table_id: bytes) -> bytes:
    """§3.4: scrypt(N = 2^15, r = 8, p = 1, 32 bytes) of UTF-8(NFC(password)), salt = table id."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    data = unicodedata.normalize("NFC", password).encode("utf-8")
    return Scrypt(salt=table_id, length=32, n=2**15, r=8, p=1).derive(data)


def password_confirmations(
    shared: bytes, table_id: bytes, host_key: bytes, nonce: bytes, player_key: bytes
) -> tuple[bytes, bytes]:
    """§3.4: (joiner's, host's) confirmation: HMAC-SHA256(shared key, framed(tag, ...))."""
    fields = (table_id, host_key, nonce, player_key)
    return (
        hmac_sha256(shared, framed(TAG_PASSWORD_CONFIRM_JOINER, *fields)),
        hmac_sha256(shared, framed(TAG_PASSWORD_CONFIRM_HOST, *fields)),
    )


def password_work(
    table_id: bytes, host_key: bytes, nonce: bytes, player_key: bytes, joiner_message: bytes
) -> tuple[int, bytes]:
    """§3.4: the smallest counter whose scrypt(N = 2^10, r = 8, p = 1, 32 bytes) of
    framed(work tag, table_id, host_key, nonce, player_key, joiner message), salt = the counter
    as 8 bytes big-endian, starts with 5 zero bits; and that hash."""
    from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

    data = framed(TAG_PASSWORD_WORK, table_id, host_key, nonce, player_key, joiner_message)
    for counter in range(4096):
        digest = Scrypt(salt=u64(counter), length=32, n=2**10, r=8, p=1).derive(data)
        if digest[0] >> 3 == 0:
            return counter, digest
    raise SystemExit("no proof of work found")


def spake2_pair(
    host_verifier: bytes, joiner_verifier: bytes, host_entropy: bytes, joiner_entropy: bytes
) -> tuple[bytes, bytes, bytes, bytes]:
    """(host message, joiner message, host's shared key, joiner's shared key). The group
    arithmetic is python-spake2's (Ed25519, its M and N; §3.4 names every input)."""
    from spake2 import SPAKE2_A, SPAKE2_B

    def once(data: bytes) -> Callable[[int], bytes]:
        return lambda n: data if n == len(data) else b""

    ids = {"idA": TAG_PASSWORD_JOINER.encode(), "idB": TAG_PASSWORD_HOST.encode()}
    host = SPAKE2_B(host_verifier, entropy_f=once(host_entropy), **ids)
    joiner = SPAKE2_A(joiner_verifier, entropy_f=once(joiner_entropy), **ids)
    host_msg, joiner_msg = host.start(), joiner.start()
    return host_msg, joiner_msg, host.finish(joiner_msg), joiner.finish(host_msg)


def seed_commit(
    table_id: bytes,
    r: int,
    a: int,
    seat: int,
    key: bytes,
    dice: int,
    salt: bytes,
    seed: bytes,
    tag: str = TAG_COMMIT_SEED,
) -> bytes:
    return H(tag, table_id, u64(r), u64(a), u64(seat), key, u64(dice), salt, seed)


def contrib_commit(
    table_id: bytes,
    r: int,
    a: int,
    seat: int,
    key: bytes,
    dice: int,
    t: bytes,
    tag: str = TAG_COMMIT_CONTRIB,
) -> bytes:
    return H(tag, table_id, u64(r), u64(a), u64(seat), key, u64(dice), t)


def commit_set_hash(
    table_id: bytes, r: int, a: int, commits: list[tuple[int, bytes, bytes]]
) -> bytes:
    seats = [s for s, _, _ in commits]
    assert seats == sorted(seats) and len(set(seats)) == len(seats)
    fields: list[Field] = [table_id, u64(r), u64(a)]
    for seat, sc, cc in commits:
        fields += [u64(seat), sc, cc]
    return H(TAG_COMMITSET, *fields)


def beacon(table_id: bytes, r: int, a: int, cset: bytes, contributions: list[bytes]) -> bytes:
    return H(TAG_BEACON, table_id, u64(r), u64(a), cset, *contributions)


def dice_block(
    seed: bytes, table_id: bytes, r: int, a: int, seat: int, R: bytes, counter: int
) -> bytes:
    msg = (
        frame(TAG_DICE.encode("ascii"))
        + frame(table_id)
        + frame(u64(r))
        + frame(u64(a))
        + frame(u64(seat))
        + frame(R)
        + frame(u64(counter))
    )
    return hmac_sha256(seed, msg)


def derive_dice(
    seed: bytes, table_id: bytes, r: int, a: int, seat: int, R: bytes, n: int
) -> tuple[list[int], list[bytes], list[int]]:
    """Returns (dice, blocks consumed, absolute byte indices that were rejected)."""
    dice: list[int] = []
    blocks: list[bytes] = []
    rejected: list[int] = []
    counter = 0
    while len(dice) < n:
        block = dice_block(seed, table_id, r, a, seat, R, counter)
        blocks.append(block)
        for j, b in enumerate(block):
            if b < 252:
                dice.append(1 + b % 6)
                if len(dice) == n:
                    break
            else:
                rejected.append(32 * counter + j)
        counter += 1
    return dice, blocks, rejected


def starter_block(R: bytes, table_id: bytes, counter: int) -> bytes:
    msg = frame(TAG_STARTER.encode("ascii")) + frame(table_id) + frame(u64(counter))
    return hmac_sha256(R, msg)


def random_starter(R: bytes, table_id: bytes, seats: list[int]) -> tuple[int, list[int]]:
    """Returns (starter seat, rejected byte values before it)."""
    assert seats == sorted(seats) and len(seats) >= 2
    k = len(seats)
    limit = 256 - (256 % k)
    rejected = []
    counter = 0
    while True:
        for b in starter_block(R, table_id, counter):
            if b < limit:
                return seats[b % k], rejected
            rejected.append(b)
        counter += 1


# ---------------------------------------------------------------------------------------------
# §6.1 the transcript
# ---------------------------------------------------------------------------------------------

ZERO32 = bytes(32)


def make_entry(
    host_secret: bytes,
    table: bytes,
    seq: int,
    prev: bytes,
    *,
    event: dict | None = None,
    msg: dict | None = None,
) -> dict:
    unsigned: dict = {"prev": prev.hex(), "seq": seq}
    if event is not None:
        unsigned["event"] = event
    else:
        unsigned["msg"] = msg
    sig = sign(host_secret, ctx_entry(table), unsigned)
    return dict(unsigned, sig=sig.hex())


def entry_hash(entry: dict) -> bytes:
    return H(TAG_ENTRY, canonical(entry))


def make_message(player_secret: bytes, body: dict) -> dict:
    return {"body": body, "sig": sign(player_secret, CTX_MESSAGE, body).hex()}


def line_of(entry: dict) -> str:
    return canonical(entry).decode("utf-8")


class ChainError(Exception):
    def __init__(self, reason: str, index: int) -> None:
        super().__init__(f"{reason} at line {index}")
        self.reason = reason
        self.index = index


def check_chain(lines: list[str]) -> list[bytes]:
    """The §6.1 chain checks in the order canonical, seq, prev, host signature, then the
    player's message signature (by the key holding the seat: for a join, its own `key`).
    Returns the entry hashes. Only what the chain vectors need; not a full §9 verifier."""
    hashes: list[bytes] = []
    host: bytes | None = None
    table: bytes | None = None
    seat_keys: dict[int, bytes] = {}
    for i, line in enumerate(lines):
        try:
            entry = decode_strict(line.encode("utf-8"))
        except JsonError as e:
            raise ChainError(e.reason, i) from None
        if entry.get("seq") != i:
            raise ChainError("BAD_SEQ", i)
        expected_prev = ZERO32 if i == 0 else hashes[-1]
        if entry.get("prev") != expected_prev.hex():
            raise ChainError("CHAIN_BROKEN", i)
        if i == 0:
            host = bytes.fromhex(entry["event"]["host"])
            table = table_id_of(entry["event"])
        assert host is not None and table is not None
        unsigned = {k: v for k, v in entry.items() if k != "sig"}
        context = ctx_entry(table)
        if not verify_raw(host, bytes.fromhex(entry["sig"]), signed_bytes(context, unsigned)):
            raise ChainError("BAD_SIGNATURE", i)
        if "msg" in entry:
            body = entry["msg"]["body"]
            key = bytes.fromhex(body["key"]) if body["type"] == "join" else seat_keys[body["seat"]]
            if not verify_raw(
                key, bytes.fromhex(entry["msg"]["sig"]), signed_bytes(CTX_MESSAGE, body)
            ):
                raise ChainError("BAD_SIGNATURE", i)
            if body["type"] == "join":
                seat_keys[body["seat"]] = key
        hashes.append(entry_hash(entry))
    return hashes


# ---------------------------------------------------------------------------------------------
# output helpers
# ---------------------------------------------------------------------------------------------


class Failure(Exception):
    pass


def require(cond: bool, what: str) -> None:
    if not cond:
        raise Failure("self-check failed: " + what)


def envelope(name: str, spec: str, groups: list[dict]) -> dict:
    n = 0
    for g in groups:
        for t in g["tests"]:
            n += 1
            t["tc_id"] = n
            t.setdefault("result", "valid")
            t.setdefault("reason", None)
    # tc_id first for readability
    groups = [
        dict(
            g,
            tests=[
                dict({"tc_id": t["tc_id"]}, **{k: v for k, v in t.items() if k != "tc_id"})
                for t in g["tests"]
            ],
        )
        for g in groups
    ]
    return {"schema": f"{name}_v1", "spec": spec, "number_of_tests": n, "test_groups": groups}


def group(gtype: str, comment: str, tests: list[dict]) -> dict:
    return {"type": gtype, "comment": comment, "tests": tests}


# ---------------------------------------------------------------------------------------------
# 1. framing
# ---------------------------------------------------------------------------------------------


def gen_framing() -> dict:
    t_abc = "p2pdice/v1/test"

    def case(comment: str, tag: str, fields: list[Field]) -> dict:
        fb = [field(f) for f in fields]
        fr = framed(tag, *fb)
        return {
            "comment": comment,
            "tag": tag,
            "fields": [f.hex() for f in fb],
            "framed": fr.hex(),
            "hash": hashlib.sha256(fr).hexdigest(),
        }

    a = case('fields ("abc", "d")', t_abc, ["abc", "d"])
    b = case(
        'fields ("ab", "cd"): same concatenation as ("abc", "d"), different hash',
        t_abc,
        ["ab", "cd"],
    )
    require(a["hash"] != b["hash"], "framing separates abc|d and ab|cd")
    require("".join(a["fields"]) == "".join(b["fields"]), "same concatenated field bytes")
    tests = [
        a,
        b,
        case("no fields: the hash of the framed tag alone", t_abc, []),
        case("one empty field: framed as four zero length bytes", t_abc, [b""]),
        case("two empty fields differ from one", t_abc, [b"", b""]),
        case("u64 integer field 1 (8 bytes big-endian 0000000000000001)", t_abc, [1]),
        case("u64 integer field 2^64-1", t_abc, [2**64 - 1]),
        case(
            "u64 integer 258 (0x0102) followed by a text field: byte order is big-endian",
            t_abc,
            [258, "x"],
        ),
        case('non-ASCII text field: UTF-8 bytes of "é🎲"', t_abc, ["é🎲"]),
        case("a registry tag with a 32-byte field", TAG_TABLE, [det("framing/32")]),
        case(
            "a 300-byte field: the length prefix is 0000012c",
            TAG_ENTRY,
            [bytes(range(256)) + bytes(44)],
        ),
    ]
    return envelope(
        "framing",
        "SPEC.md §2.1, §2.2",
        [
            group(
                "tagged_hash",
                "frame(tag) || frame(f1) || ... and its SHA-256; "
                "fields are given already encoded (bytes, UTF-8 text, u64)",
                tests,
            )
        ],
    )


# ---------------------------------------------------------------------------------------------
# 2. commitments
# ---------------------------------------------------------------------------------------------


def gen_commitments() -> dict:
    tid = det("commit/table")
    tid2 = det("commit/other-table")
    _, key0 = keypair(det("commit/key0"))
    _, key1 = keypair(det("commit/key1"))
    salt0, seed0, t0 = det("commit/salt0"), det("commit/seed0"), det("commit/t0")
    salt1, seed1, t1 = det("commit/salt1"), det("commit/seed1"), det("commit/t1")
    base = dict(table_id=tid, r=1, a=1, seat=0, key=key0, dice=5)

    def seed_case(
        comment: str,
        ctx: dict,
        salt: bytes,
        seed: bytes,
        commitment: bytes,
        reason: str | None = None,
    ) -> dict:
        return {
            "comment": comment,
            "kind": "seed",
            "table_id": ctx["table_id"].hex(),
            "round": ctx["r"],
            "attempt": ctx["a"],
            "seat": ctx["seat"],
            "key": ctx["key"].hex(),
            "dice": ctx["dice"],
            "salt": salt.hex(),
            "secret": seed.hex(),
            "commitment": commitment.hex(),
            "result": "invalid" if reason else "valid",
            "reason": reason,
        }

    def contrib_case(
        comment: str, ctx: dict, t: bytes, commitment: bytes, reason: str | None = None
    ) -> dict:
        return {
            "comment": comment,
            "kind": "contrib",
            "table_id": ctx["table_id"].hex(),
            "round": ctx["r"],
            "attempt": ctx["a"],
            "seat": ctx["seat"],
            "key": ctx["key"].hex(),
            "dice": ctx["dice"],
            "secret": t.hex(),
            "commitment": commitment.hex(),
            "result": "invalid" if reason else "valid",
            "reason": reason,
        }

    def sc(ctx: dict, salt: bytes, seed: bytes, tag: str = TAG_COMMIT_SEED) -> bytes:
        return seed_commit(
            ctx["table_id"],
            ctx["r"],
            ctx["a"],
            ctx["seat"],
            ctx["key"],
            ctx["dice"],
            salt,
            seed,
            tag,
        )

    def cc(ctx: dict, t: bytes, tag: str = TAG_COMMIT_CONTRIB) -> bytes:
        return contrib_commit(
            ctx["table_id"], ctx["r"], ctx["a"], ctx["seat"], ctx["key"], ctx["dice"], t, tag
        )

    seat1 = dict(base, seat=1, key=key1, dice=4)
    later = dict(base, r=258, a=3, seat=5, dice=1)
    valid = [
        seed_case(
            "seed commitment, round 1, attempt 1, seat 0, 5 dice",
            base,
            salt0,
            seed0,
            sc(base, salt0, seed0),
        ),
        contrib_case("contribution commitment, same context", base, t0, cc(base, t0)),
        seed_case(
            "seed commitment, seat 1 with 4 dice", seat1, salt1, seed1, sc(seat1, salt1, seed1)
        ),
        contrib_case("contribution commitment, seat 1 with 4 dice", seat1, t1, cc(seat1, t1)),
        seed_case(
            "seed commitment, round 258 (u64 0000000000000102), attempt 3, seat 5, 1 die",
            later,
            salt0,
            seed0,
            sc(later, salt0, seed0),
        ),
        contrib_case(
            "contribution commitment, round 258, attempt 3, seat 5, 1 die", later, t0, cc(later, t0)
        ),
    ]
    M = "OPENING_MISMATCH"
    other = det("commit/altered")
    inv_seed = [
        seed_case(
            "commitment made with a different seed", base, salt0, seed0, sc(base, salt0, other), M
        ),
        seed_case(
            "commitment made with a different salt", base, salt0, seed0, sc(base, other, seed0), M
        ),
        seed_case(
            "salt and seed swapped in the opening", base, seed0, salt0, sc(base, salt0, seed0), M
        ),
        seed_case(
            "commitment made for seat 1 (opened as seat 0)",
            base,
            salt0,
            seed0,
            sc(dict(base, seat=1), salt0, seed0),
            M,
        ),
        seed_case(
            "commitment made for round 2", base, salt0, seed0, sc(dict(base, r=2), salt0, seed0), M
        ),
        seed_case(
            "commitment made for attempt 2",
            base,
            salt0,
            seed0,
            sc(dict(base, a=2), salt0, seed0),
            M,
        ),
        seed_case(
            "commitment made for another table",
            base,
            salt0,
            seed0,
            sc(dict(base, table_id=tid2), salt0, seed0),
            M,
        ),
        seed_case(
            "commitment made with another key",
            base,
            salt0,
            seed0,
            sc(dict(base, key=key1), salt0, seed0),
            M,
        ),
        seed_case(
            "commitment made for 4 dice (opened with 5)",
            base,
            salt0,
            seed0,
            sc(dict(base, dice=4), salt0, seed0),
            M,
        ),
        seed_case(
            "seat 1 copies seat 0's seed commitment and opens its own salt and seed",
            seat1,
            salt1,
            seed1,
            sc(base, salt0, seed0),
            M,
        ),
        seed_case(
            "seat 1 copies seat 0's seed commitment and replays seat 0's opening",
            seat1,
            salt0,
            seed0,
            sc(base, salt0, seed0),
            M,
        ),
        seed_case(
            "tag swap: seed commitment computed with the contrib tag",
            base,
            salt0,
            seed0,
            sc(base, salt0, seed0, TAG_COMMIT_CONTRIB),
            M,
        ),
    ]
    inv_contrib = [
        contrib_case("commitment made with a different contribution", base, t0, cc(base, other), M),
        contrib_case(
            "commitment made for seat 1 (opened as seat 0)", base, t0, cc(dict(base, seat=1), t0), M
        ),
        contrib_case("commitment made for round 2", base, t0, cc(dict(base, r=2), t0), M),
        contrib_case("commitment made for attempt 2", base, t0, cc(dict(base, a=2), t0), M),
        contrib_case(
            "commitment made for another table", base, t0, cc(dict(base, table_id=tid2), t0), M
        ),
        contrib_case("commitment made with another key", base, t0, cc(dict(base, key=key1), t0), M),
        contrib_case(
            "commitment made for 4 dice (opened with 5)", base, t0, cc(dict(base, dice=4), t0), M
        ),
        contrib_case(
            "seat 1 copies seat 0's contribution commitment and sends its own t",
            seat1,
            t1,
            cc(base, t0),
            M,
        ),
        contrib_case(
            "seat 1 copies seat 0's contribution commitment and replays seat 0's t",
            seat1,
            t0,
            cc(base, t0),
            M,
        ),
        contrib_case(
            "tag swap: contribution commitment computed with the seed tag",
            base,
            t0,
            cc(base, t0, TAG_COMMIT_SEED),
            M,
        ),
        contrib_case(
            "seed commitment checked as a contribution commitment (secret = the seed)",
            base,
            seed0,
            sc(base, salt0, seed0),
            M,
        ),
    ]
    # self-check: invalid ones really do not match their recomputed commitment
    for t in inv_seed + inv_contrib:
        ctx = dict(
            table_id=bytes.fromhex(t["table_id"]),
            r=t["round"],
            a=t["attempt"],
            seat=t["seat"],
            key=bytes.fromhex(t["key"]),
            dice=t["dice"],
        )
        if t["kind"] == "seed":
            again = sc(ctx, bytes.fromhex(t["salt"]), bytes.fromhex(t["secret"]))
        else:
            again = cc(ctx, bytes.fromhex(t["secret"]))
        require(again.hex() != t["commitment"], "invalid commitment must not match")
    return envelope(
        "commitments",
        "SPEC.md §5.2",
        [
            group(
                "valid",
                "commitment = H(tag, table_id, u64(round), u64(attempt), u64(seat), key, "
                "u64(dice), salt, seed) for kind seed, or (..., t) for kind contrib; secret is the "
                "seed or t",
                valid,
            ),
            group(
                "seed_mismatch",
                "the commitment was made with one input altered; the given "
                "opening does not match it",
                inv_seed,
            ),
            group(
                "contrib_mismatch",
                "the commitment was made with one input altered; the given "
                "contribution does not match it",
                inv_contrib,
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------
# 3. commitment set and beacon
# ---------------------------------------------------------------------------------------------


def _round_material(
    label: str,
    seats: list[tuple[int, int]],
    table_id: bytes,
    r: int,
    a: int,
    override: dict[int, bytes] | None = None,
) -> dict:
    commits = []
    contributions = []
    for seat, dice in seats:
        _, key = keypair(det(f"{label}/key{seat}"))
        salt, seed = det(f"{label}/salt{seat}"), det(f"{label}/seed{seat}")
        t = (override or {}).get(seat, det(f"{label}/t{seat}"))
        commits.append(
            (
                seat,
                seed_commit(table_id, r, a, seat, key, dice, salt, seed),
                contrib_commit(table_id, r, a, seat, key, dice, t),
            )
        )
        contributions.append(t)
    cset = commit_set_hash(table_id, r, a, commits)
    R = beacon(table_id, r, a, cset, contributions)
    return {
        "table_id": table_id.hex(),
        "round": r,
        "attempt": a,
        "commits": [
            {"seat": s, "seed_commit": x.hex(), "contrib_commit": y.hex()} for s, x, y in commits
        ],
        "commit_set": cset.hex(),
        "contributions": [t.hex() for t in contributions],
        "beacon": R.hex(),
    }


def gen_commit_set() -> dict:
    tid = det("cs/table")
    base_seats = [(0, 5), (2, 3), (5, 1)]
    valid = [
        dict(
            {"comment": "two seats 0 and 1, round 1 attempt 1"},
            **_round_material("cs/a", [(0, 5), (1, 5)], tid, 1, 1),
        ),
        dict(
            {"comment": "three seats 0, 2, 5 (seats 1, 3, 4 eliminated), round 4 attempt 2"},
            **_round_material("cs/b", base_seats, tid, 4, 2),
        ),
        dict(
            {"comment": "six seats, round 1 attempt 1"},
            **_round_material("cs/c", [(s, 5) for s in range(6)], tid, 1, 1),
        ),
    ]
    base = valid[1]
    changed = []
    beacons = {base["beacon"]}
    for seat, _ in base_seats:
        t_new = det(f"cs/b/t{seat}/changed")
        m = _round_material("cs/b", base_seats, tid, 4, 2, {seat: t_new})
        require(m["beacon"] not in beacons, "changing one contribution changes R")
        beacons.add(m["beacon"])
        changed.append(
            dict(
                {
                    "comment": f"as tc_id 2 (three seats 0, 2, 5) but seat {seat} "
                    "drew another contribution t (its contrib_commit and so the "
                    "commitment set change with it): R differs from tc_id 2 and from "
                    "every other case of this group"
                },
                **m,
            )
        )
    return envelope(
        "commit_set",
        "SPEC.md §5.3, §5.4",
        [
            group(
                "valid",
                "commit_set = H(commitset tag, table_id, u64(r), u64(a), then per seat "
                "ascending u64(seat), seed_commit, contrib_commit); beacon R = H(beacon tag, "
                "table_id, u64(r), u64(a), commit_set, t in seat order)",
                valid,
            ),
            group(
                "one_contribution_changed",
                "each case changes exactly one seat's contribution "
                "of tc_id 2; every beacon in this file is distinct",
                changed,
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------
# 4. dice
# ---------------------------------------------------------------------------------------------


def gen_dice() -> dict:
    tid = det("dice/table")

    def ctx(label: str) -> dict:
        return dict(
            seed=det(f"{label}/seed"), table_id=tid, r=1, a=1, seat=0, R=det(f"{label}/beacon")
        )

    def case(comment: str, c: dict, n: int) -> tuple[dict, list[int]]:
        dice, blocks, rejected = derive_dice(
            c["seed"], c["table_id"], c["r"], c["a"], c["seat"], c["R"], n
        )
        require(len(dice) == n and all(1 <= d <= 6 for d in dice), "dice count")
        return (
            {
                "comment": comment,
                "seed": c["seed"].hex(),
                "table_id": c["table_id"].hex(),
                "round": c["r"],
                "attempt": c["a"],
                "seat": c["seat"],
                "beacon": c["R"].hex(),
                "count": n,
                "blocks": [b.hex() for b in blocks],
                "dice": dice,
            },
            rejected,
        )

    def search(
        prefix: str, n: int, pred: Callable[[list[int], list[bytes]], bool], **over: Any
    ) -> tuple[str, dict]:
        for i in range(100000):
            label = f"{prefix}/{i}"
            c = dict(ctx(label), **over)
            _dice, blocks, rejected = derive_dice(
                c["seed"], c["table_id"], c["r"], c["a"], c["seat"], c["R"], n
            )
            if pred(rejected, blocks):
                return label, c
        raise Failure("search failed: " + prefix)

    tests = []
    _, c = search("dice/ordinary", 5, lambda rej, bl: not rej)
    t, _ = case("an ordinary 5-die hand: the first five bytes of block 0 are all < 252", c, 5)
    tests.append(t)

    _, c = search("dice/reject", 5, lambda rej, bl: len(rej) == 1)
    t, rej = case("", c, 5)
    b = bytes.fromhex(t["blocks"][0])[rej[0]]
    t["comment"] = (
        f"5 dice where byte index {rej[0]} of block 0 (value {b} = 0x{b:02x}) is "
        f">= 252 and skipped; the hand uses bytes 0..5 except index {rej[0]}"
    )
    tests.append(t)

    _, c = search("dice/reject2", 5, lambda rej, bl: len(rej) >= 1 and rej[0] == 0)
    t, rej = case("", c, 5)
    b = bytes.fromhex(t["blocks"][0])[0]
    t["comment"] = (
        f"5 dice where the very first byte (index 0, value {b}) is >= 252 and "
        f"skipped; rejected indices {rej}"
    )
    tests.append(t)

    _, c = search("dice/forty", 40, lambda rej, bl: True, r=3, a=2, seat=4)
    t, rej = case("", c, 40)
    t["comment"] = (
        f"40 dice (round 3, attempt 2, seat 4): block 0 gives at most 32, so block "
        f"counter 1 is needed; rejected byte indices, 0-based over the "
        f"concatenated blocks (32 = block 1 byte 0): {rej or 'none'}"
    )
    require(len(t["blocks"]) >= 2, "40 dice need block 1")
    tests.append(t)

    _, c = search("dice/32-one-block", 32, lambda rej, bl: not rej and len(bl) == 1)
    t, _ = case(
        "32 dice with no byte >= 252 in block 0: exactly one block, block 1 is not computed", c, 32
    )
    tests.append(t)

    _, c = search("dice/32-two-blocks", 32, lambda rej, bl: len(rej) >= 1 and len(bl) == 2)
    t, rej = case("", c, 32)
    t["comment"] = (
        f"32 dice, but byte(s) at index {rej} of block 0 are >= 252, so block 1 is "
        f"needed for the last die(s)"
    )
    tests.append(t)

    t, rej = case("", ctx("dice/one"), 1)
    t["comment"] = (
        "count 1: one die from byte 0 of block 0"
        if not rej
        else f"count 1: bytes {rej} rejected, the die comes from byte {len(rej)}"
    )
    tests.append(t)
    t, _ = case("count 0: an empty hand, no block is computed", ctx("dice/zero"), 0)
    require(t["blocks"] == [] and t["dice"] == [], "count 0")
    tests.append(t)

    c = ctx("dice/seat-sep")
    t1, _ = case(
        "seat 2 with a seed and R: the same as the next case except the seat", dict(c, seat=2), 5
    )
    t2, _ = case(
        "seat 3 with the same seed and R as the previous case: a different hand (blocks differ)",
        dict(c, seat=3),
        5,
    )
    require(t1["blocks"] != t2["blocks"], "seat separation")
    tests += [t1, t2]

    # mapping self-check
    for t in tests:
        stream = b"".join(bytes.fromhex(x) for x in t["blocks"])
        expect = [1 + x % 6 for x in stream if x < 252][: t["count"]]
        require(expect == t["dice"], "dice mapping")
    return envelope(
        "dice",
        "SPEC.md §5.5",
        [
            group(
                "dice",
                "block_c = HMAC-SHA256(key=seed, frame(dice tag) || frame(table_id) || "
                "frame(u64(round)) || frame(u64(attempt)) || frame(u64(seat)) || frame(beacon) || "
                "frame(u64(c))); bytes b < 252 give 1 + b mod 6, others are skipped; "
                "blocks lists every block computed, in counter order",
                tests,
            )
        ],
    )


# ---------------------------------------------------------------------------------------------
# 5. starter
# ---------------------------------------------------------------------------------------------


def gen_starter() -> dict:
    tid = det("starter/table")
    tests = []
    seat_sets = {
        2: [0, 1],
        3: [0, 1, 2],
        4: [0, 1, 2, 3],
        5: [0, 1, 2, 3, 4],
        6: [0, 1, 2, 3, 4, 5],
    }

    def case(comment: str, R: bytes, seats: list[int]) -> dict:
        s, rejected = random_starter(R, tid, seats)
        first = starter_block(R, tid, 0)[0]
        k = len(seats)
        limit = 256 - 256 % k
        if rejected:
            how = (
                f"bytes {rejected} are >= {limit} = 256 - (256 mod {k}) and rejected; the "
                f"next byte selects"
            )
        else:
            how = f"first byte {first}; {first} mod {k} = {first % k} selects"
            if first >= 252:
                how = (
                    f"first byte {first} (not rejected: 256 mod {k} = {256 % k}); "
                    f"{first} mod {k} = {first % k} selects"
                )
        return {
            "comment": f"{comment}: k = {k}, {how} seat {s}",
            "beacon": R.hex(),
            "table_id": tid.hex(),
            "seats": seats,
            "starter": s,
        }

    for k, seats in seat_sets.items():
        tests.append(case("all seats", det(f"starter/R/{k}"), seats))
    tests.append(case("seats 1, 3, 4 survive", det("starter/R/subset"), [1, 3, 4]))
    tests.append(case("seats 2 and 5", det("starter/R/pair"), [2, 5]))

    for k in (6, 3, 5):
        limit = 256 - 256 % k
        for i in range(1000000):
            R = det(f"starter/reject{k}/{i}")
            if starter_block(R, tid, 0)[0] >= limit:
                break
        else:
            raise Failure("starter search")
        tests.append(case("first byte rejected", R, seat_sets[k]))
    return envelope(
        "starter",
        "SPEC.md §5.6",
        [
            group(
                "starter",
                "block_c = HMAC-SHA256(key=beacon, frame(starter tag) || frame(table_id) || "
                "frame(u64(c))); the first byte b < 256 - (256 mod k) selects seats[b mod k]",
                tests,
            )
        ],
    )


# ---------------------------------------------------------------------------------------------
# 6. canonical JSON
# ---------------------------------------------------------------------------------------------


def gen_canonical_json() -> dict:
    enc_cases: list[tuple[str, Any]] = [
        (
            "keys sorted by byte value (uppercase before lowercase, shorter prefix first)",
            {"b": 1, "a": 2, "B": 3, "aa": 4, "_": 5, "A": 6},
        ),
        (
            "nested objects and arrays, keys sorted at every level",
            {"z": [3, {"y": None, "x": [True, False]}], "a": {"d": {}, "c": []}},
        ),
        ("quote and backslash", 'say "hi" \\ bye'),
        ("the five short escapes \\b \\t \\n \\f \\r", "\b\t\n\f\r"),
        ("other controls as \\u00xx with lowercase hex", "\x00\x01\x0b\x0e\x1f"),
        ("U+007F (DEL) written literally, '/' not escaped", "\x7f/"),
        ("non-ASCII written literally in UTF-8", "Ünïcödé – ½ 中文"),
        ("emoji (outside the BMP) written literally as 4 UTF-8 bytes", "🎲"),
        ("maximum safe integer 2^53-1", 2**53 - 1),
        ("minimum safe integer -(2^53-1)", -(2**53 - 1)),
        ("zero and negative integers in an array", [0, -1, 10, -100]),
        ("empty object", {}),
        ("empty array", []),
        ("true", True),
        ("false", False),
        ("null", None),
        ("empty string", ""),
        ("empty key", {"": 0}),
        (
            "keys using every class of ASCII (space, punctuation, digits) sorted by byte value",
            {"~": 1, " ": 2, "0": 3, "!": 4, "a b": 5},
        ),
        ("hex byte string as carried in bodies", {"seed": det("cj/seed").hex()}),
        ("32 nested arrays (maximum depth)", json.loads("[" * 32 + "]" * 32)),
    ]
    enc_tests = []
    for comment, v in enc_cases:
        c = canonical(v)
        require(decode_strict(c) == v, "round trip " + comment)
        enc_tests.append({"comment": comment, "value": v, "canonical": c.hex()})
    # a second opinion: for these values (ASCII keys, no lone surrogates, safe integers) the
    # stdlib's compact sorted output coincides with the canonical profile
    for t in enc_tests:
        std = json.dumps(t["value"], sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        require(
            std.encode("utf-8") == bytes.fromhex(t["canonical"]),
            "encoder agrees with json.dumps on " + t["comment"],
        )

    deep32 = b"[" * 32 + b"]" * 32
    deep33 = b"[" * 33 + b"]" * 33
    dec: list[tuple[str, bytes, str | None]] = [
        ("valid: object with nested array", b'{"a":[1,"x",null],"b":true}', None),
        ("valid: top-level integer (a scalar is depth 0)", b"42", None),
        ("valid: top-level string with an escape", b'"a\\"b"', None),
        ("valid: non-ASCII and emoji literal", '"é🎲"'.encode(), None),
        ("valid: \\u001f lowercase control escape", b'"\\u001f"', None),
        ("valid: max safe integer", b"9007199254740991", None),
        ("valid: min safe integer", b"-9007199254740991", None),
        ("valid: 32 nested arrays", deep32, None),
        (
            "valid: 32 levels mixing objects and arrays",
            b'{"a":' * 16 + b"[" * 16 + b"]" * 16 + b"}" * 16,
            None,
        ),
        ("valid: empty object", b"{}", None),
        ("valid: literal U+007F in a string", b'"\x7f"', None),
        # JSON_BAD_UTF8
        ("invalid UTF-8: lone continuation byte 0x80", b'"\x80"', "JSON_BAD_UTF8"),
        ("invalid UTF-8: truncated 2-byte sequence", b'"\xc3"', "JSON_BAD_UTF8"),
        ("invalid UTF-8: overlong encoding of '/' (c0 af)", b'"\xc0\xaf"', "JSON_BAD_UTF8"),
        (
            "invalid UTF-8: a surrogate encoded in UTF-8 (ed a0 80)",
            b'"\xed\xa0\x80"',
            "JSON_BAD_UTF8",
        ),
        ("invalid UTF-8: byte 0xff", b'"\xff"', "JSON_BAD_UTF8"),
        ("lone high surrogate escape \\ud800", b'"\\ud800"', "JSON_BAD_UTF8"),
        ("lone low surrogate escape \\udc00", b'"\\udc00"', "JSON_BAD_UTF8"),
        (
            "high surrogate escape followed by a non-surrogate escape \\ud800\\u0061",
            b'"\\ud800\\u0061"',
            "JSON_BAD_UTF8",
        ),
        # JSON_SYNTAX
        ("truncated object", b'{"a":1', "JSON_SYNTAX"),
        ("truncated string", b'"abc', "JSON_SYNTAX"),
        ("empty input", b"", "JSON_SYNTAX"),
        ("NaN is not JSON", b"NaN", "JSON_SYNTAX"),
        ("Infinity is not JSON", b"Infinity", "JSON_SYNTAX"),
        ("-Infinity is not JSON", b"-Infinity", "JSON_SYNTAX"),
        ("trailing comma in an array", b"[1,2,]", "JSON_SYNTAX"),
        ("trailing comma in an object", b'{"a":1,}', "JSON_SYNTAX"),
        ("two top-level values", b"[]{}", "JSON_SYNTAX"),
        ("single quotes", b"'a'", "JSON_SYNTAX"),
        ("unknown escape \\x", b'"\\x41"', "JSON_SYNTAX"),
        (
            'leading zero "01": RFC 8259\'s grammar has no leading zeros, so this is not JSON '
            '(JSON_SYNTAX), unlike "-0", which is JSON but not canonical',
            b"01",
            "JSON_SYNTAX",
        ),
        ('leading plus "+1" is not JSON', b"+1", "JSON_SYNTAX"),
        (
            "raw (unescaped) control character U+0001 inside a string is not JSON (RFC 8259 §7)",
            b'"\x01"',
            "JSON_SYNTAX",
        ),
        ("raw line feed inside a string is not JSON", b'"a\nb"', "JSON_SYNTAX"),
        ("literal in wrong case", b"True", "JSON_SYNTAX"),
        ("unquoted key", b"{a:1}", "JSON_SYNTAX"),
        # JSON_FLOAT
        ("fraction 1.5", b"1.5", "JSON_FLOAT"),
        ("exponent 1e2 (an integer value, but written with an exponent)", b"1e2", "JSON_FLOAT"),
        (
            "exponent 1E2 with a capital E: SPEC.md §2.3 makes every exponent JSON_FLOAT, "
            "whatever its case or value",
            b"1E2",
            "JSON_FLOAT",
        ),
        ("fraction 1.0 (an integer value, but written with a fraction)", b"1.0", "JSON_FLOAT"),
        ("exponent that would overflow a double, 1e400", b"1e400", "JSON_FLOAT"),
        ("negative fraction in an object", b'{"a":-0.5}', "JSON_FLOAT"),
        # JSON_INT_RANGE
        ("2^53 is one above the maximum", b"9007199254740992", "JSON_INT_RANGE"),
        ("-(2^53) is one below the minimum", b"-9007199254740992", "JSON_INT_RANGE"),
        (
            "a 5000-digit integer (parsers with a digit limit must still say JSON_INT_RANGE)",
            b"1" + b"0" * 4999,
            "JSON_INT_RANGE",
        ),
        ("2^64 inside an array", b"[18446744073709551616]", "JSON_INT_RANGE"),
        # JSON_DUPLICATE_KEY
        ("duplicate key", b'{"a":1,"a":2}', "JSON_DUPLICATE_KEY"),
        ("duplicate key with equal values", b'{"a":1,"a":1}', "JSON_DUPLICATE_KEY"),
        ("duplicate key in a nested object", b'{"x":{"b":1,"b":2}}', "JSON_DUPLICATE_KEY"),
        # JSON_KEY_NOT_ASCII
        ('key "é" (non-ASCII, literal UTF-8)', '{"é":1}'.encode(), "JSON_KEY_NOT_ASCII"),
        (
            'key "\\u0001": a control character, canonically escaped',
            b'{"\\u0001":1}',
            "JSON_KEY_NOT_ASCII",
        ),
        ('key "\\n": a control character, canonically escaped', b'{"\\n":1}', "JSON_KEY_NOT_ASCII"),
        ("key U+007F (DEL, outside 0x20..0x7E), literal", b'{"\x7f":1}', "JSON_KEY_NOT_ASCII"),
        ("key with an emoji", '{"🎲":1}'.encode(), "JSON_KEY_NOT_ASCII"),
        # JSON_TOO_DEEP
        ("33 nested arrays", deep33, "JSON_TOO_DEEP"),
        ("33 levels of objects", b'{"a":' * 33 + b"1" + b"}" * 33, "JSON_TOO_DEEP"),
        # JSON_NOT_CANONICAL
        ("space after a colon", b'{"a": 1}', "JSON_NOT_CANONICAL"),
        ("space after a comma", b"[1, 2]", "JSON_NOT_CANONICAL"),
        ("leading space", b" 1", "JSON_NOT_CANONICAL"),
        ("trailing newline", b'{"a":1}\n', "JSON_NOT_CANONICAL"),
        ("CRLF after the value", b"[]\r\n", "JSON_NOT_CANONICAL"),
        ("unsorted keys", b'{"b":1,"a":2}', "JSON_NOT_CANONICAL"),
        ("unsorted keys: lowercase before uppercase", b'{"a":1,"B":2}', "JSON_NOT_CANONICAL"),
        ("escape \\u0041 of a printable character", b'"\\u0041"', "JSON_NOT_CANONICAL"),
        ("escape \\/ of a solidus", b'"\\/"', "JSON_NOT_CANONICAL"),
        ("uppercase hex escape \\u001F", b'"\\u001F"', "JSON_NOT_CANONICAL"),
        ("\\u0009 instead of \\t", b'"\\u0009"', "JSON_NOT_CANONICAL"),
        ("\\u007f instead of a literal U+007F", b'"\\u007f"', "JSON_NOT_CANONICAL"),
        ("\\u00e9 instead of a literal é", b'"\\u00e9"', "JSON_NOT_CANONICAL"),
        (
            "escaped surrogate pair \\ud83c\\udfb2 instead of a literal 🎲",
            b'"\\ud83c\\udfb2"',
            "JSON_NOT_CANONICAL",
        ),
        (
            'escaped key \\u0061 (the key is "a", ASCII, but not written canonically)',
            b'{"\\u0061":1}',
            "JSON_NOT_CANONICAL",
        ),
        ('-0: JSON, but the integer 0 is written "0"', b"-0", "JSON_NOT_CANONICAL"),
        (
            "UTF-8 byte order mark before the value (RFC 8259 §8.1 lets a parser skip it; it "
            "does not re-encode)",
            b"\xef\xbb\xbf{}",
            "JSON_NOT_CANONICAL",
        ),
    ]
    dec_tests = []
    for comment, data, reason in dec:
        try:
            decode_strict(data)
            got = None
        except JsonError as e:
            got = e.reason
        require(got == reason, f"decoder on {comment!r}: got {got}, want {reason}")
        dec_tests.append(
            {
                "comment": comment,
                "input": data.hex(),
                "result": "invalid" if reason else "valid",
                "reason": reason,
            }
        )
    return envelope(
        "canonical_json",
        "SPEC.md §2.3",
        [
            group(
                "encode",
                "canonical is the hex of the UTF-8 bytes of canonical(value); value is "
                "the JSON value as it appears in this file",
                enc_tests,
            ),
            group(
                "decode",
                "strict decoding of input (hex of raw bytes); each invalid input has "
                "exactly one violation; valid inputs re-encode to themselves",
                dec_tests,
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------
# 7. Ed25519
# ---------------------------------------------------------------------------------------------

RFC8032 = [
    (
        "RFC 8032 §7.1 TEST 1 (empty message)",
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "RFC 8032 §7.1 TEST 2 (one byte)",
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "RFC 8032 §7.1 TEST 3 (two bytes)",
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


def gen_ed25519() -> dict:
    rfc = []
    for comment, sk_hex, pk_hex, msg_hex, sig_hex in RFC8032:
        sk, pk = keypair(bytes.fromhex(sk_hex))
        sig = sk.sign(bytes.fromhex(msg_hex))
        require(pk.hex() == pk_hex, comment + ": public key differs from RFC 8032")
        require(sig.hex() == sig_hex, comment + ": signature differs from RFC 8032")
        require(verify_raw(pk, sig, bytes.fromhex(msg_hex)), comment + ": verify")
        rfc.append(
            {
                "comment": comment,
                "secret": sk_hex,
                "public": pk_hex,
                "message": msg_hex,
                "signature": sig_hex,
            }
        )

    a_secret = det("ed/alice")
    b_secret = det("ed/bob")
    a_sk, a_pk = keypair(a_secret)
    b_sk, _ = keypair(b_secret)
    tid = det("ed/table").hex()
    entry_ctx = ctx_entry(bytes.fromhex(tid))
    bid = {
        "counter": 7,
        "face": 4,
        "head": det("ed/head").hex(),
        "quantity": 3,
        "round": 2,
        "seat": 1,
        "table": tid,
        "type": "bid",
    }
    entry_unsigned = {
        "event": {"round": 2, "type": "example"},
        "prev": det("ed/prev").hex(),
        "seq": 12,
    }

    def case(
        comment: str,
        context: str,
        body: Any,
        sig: bytes,
        reason: str | None = None,
        public: bytes = a_pk,
        secret: bytes = a_secret,
    ) -> dict:
        sb = signed_bytes(context, body)
        ok = verify_raw(public, sig, sb)
        require(ok == (reason is None), f"{comment}: verify gives {ok}")
        return {
            "comment": comment,
            "secret": secret.hex(),
            "public": public.hex(),
            "context": context,
            "body": body,
            "signed_bytes": sb.hex(),
            "signature": sig.hex(),
            "result": "invalid" if reason else "valid",
            "reason": reason,
        }

    B = "BAD_SIGNATURE"
    good = a_sk.sign(signed_bytes(CTX_MESSAGE, bid))
    flipped = bytearray(good)
    flipped[0] ^= 0x01
    flipped_s = bytearray(good)
    flipped_s[40] ^= 0x80
    noncanon = json.dumps(bid, sort_keys=True).encode()  # with spaces after ':' and ','
    require(noncanon != canonical(bid), "re-encoding differs")
    ctx = [
        case("player message (a bid body) under p2pdice/v1/sig/message", CTX_MESSAGE, bid, good),
        case(
            "host entry (entry without its sig key) under p2pdice/v1/sig/entry/<table id hex>",
            entry_ctx,
            entry_unsigned,
            a_sk.sign(signed_bytes(entry_ctx, entry_unsigned)),
        ),
        case(
            "host entry signed for another table (its id's last bit flipped), checked under "
            "this table's entry context",
            entry_ctx,
            entry_unsigned,
            a_sk.sign(signed_bytes(ctx_entry(flip_last_bit(bytes.fromhex(tid))), entry_unsigned)),
            B,
        ),
        case(
            "body is a JSON scalar string with non-ASCII text",
            CTX_MESSAGE,
            "héllo 🎲",
            a_sk.sign(signed_bytes(CTX_MESSAGE, "héllo 🎲")),
        ),
        case(
            "signature over canonical(body) alone, without context and 0x00",
            CTX_MESSAGE,
            bid,
            a_sk.sign(canonical(bid)),
            B,
        ),
        case(
            "signature over context || canonical(body) without the 0x00 separator",
            CTX_MESSAGE,
            bid,
            a_sk.sign(CTX_MESSAGE.encode() + canonical(bid)),
            B,
        ),
        case(
            "player message signed under the entry context, checked as a message",
            CTX_MESSAGE,
            bid,
            a_sk.sign(signed_bytes(entry_ctx, bid)),
            B,
        ),
        case(
            "entry signed under the message context, checked as an entry",
            entry_ctx,
            entry_unsigned,
            a_sk.sign(signed_bytes(CTX_MESSAGE, entry_unsigned)),
            B,
        ),
        case(
            "signed by another key (secret/public are the claimed signer; the signature is "
            "by a different key)",
            CTX_MESSAGE,
            bid,
            b_sk.sign(signed_bytes(CTX_MESSAGE, bid)),
            B,
        ),
        case(
            "valid signature with bit 0 of byte 0 flipped (in R)",
            CTX_MESSAGE,
            bid,
            bytes(flipped),
            B,
        ),
        case(
            "valid signature with bit 7 of byte 40 flipped (in S)",
            CTX_MESSAGE,
            bid,
            bytes(flipped_s),
            B,
        ),
        case(
            "signature over context || 0x00 || a non-canonical encoding of the body (spaces); "
            "signed_bytes are the canonical bytes a verifier must use",
            CTX_MESSAGE,
            bid,
            a_sk.sign(CTX_MESSAGE.encode() + b"\x00" + noncanon),
            B,
        ),
    ]
    weak = weak_key_cases(a_secret, a_pk, bid, good)
    return envelope(
        "ed25519",
        "SPEC.md §2.4",
        [
            group(
                "rfc8032",
                "pure Ed25519 test vectors from RFC 8032 §7.1; secret is the 32-byte "
                "private key (seed); message and signature in hex",
                rfc,
            ),
            group(
                "context",
                "signature over context || 0x00 || canonical(body); the verifier checks "
                "signature over signed_bytes with public",
                ctx,
            ),
            group(
                "weak",
                "keys and signatures §2.4 refuses before the RFC 8032 equation: a public key "
                "or R that is a non-canonical encoding (y >= p, or x = 0 with the sign bit) or "
                "a point of small order (kind small_order_key lists all 8), and S >= L; "
                "openssl_accepts says whether a cofactorless verifier without these checks "
                "(OpenSSL) would accept the signature",
                weak,
            ),
        ],
    )


def weak_key_cases(secret: bytes, public: bytes, body: Any, good: bytes) -> list[dict]:
    sb = signed_bytes(CTX_MESSAGE, body)
    identity = (1).to_bytes(32, "little")
    small = small_order_points()
    require(small[0] == identity, "the first multiple is the identity")
    cases = []

    def case(kind: str, comment: str, key: bytes, sig: bytes) -> None:
        require(not verify_raw(key, sig, sb), f"{comment}: must be refused")
        cases.append(
            {
                "comment": comment,
                "kind": kind,
                "public": key.hex(),
                "context": CTX_MESSAGE,
                "body": body,
                "signed_bytes": sb.hex(),
                "signature": sig.hex(),
                "openssl_accepts": openssl_accepts(key, sig, sb),
                "result": "invalid",
                "reason": "BAD_SIGNATURE",
            }
        )

    zero = (0).to_bytes(32, "little")
    for i, key in enumerate(small):
        order = next(n for n in (1, 2, 4, 8) if ed_mul(n, ed_decode(key) or (0, 1)) == (0, 1))
        # A small-order R with S = 0 that OpenSSL accepts for this key and message, if any.
        sig = next((r + zero for r in small if openssl_accepts(key, r + zero, sb)), identity + zero)
        case(
            "small_order_key",
            f"public key [{i}]T, a point of order {order} (T of order 8); signature R = a "
            "small-order point, S = 0"
            + (" (with the identity key this verifies for every message)" if i == 0 else ""),
            key,
            sig,
        )
    for y in range(19):
        if ed_decode(y.to_bytes(32, "little")) is None:
            continue
        key = (y + ED_P).to_bytes(32, "little")
        case(
            "non_canonical_key",
            f"public key encoding y = p + {y} (>= p), a non-canonical name of the point with "
            f"y = {y}; signature R = identity, S = 0",
            key,
            identity + zero,
        )
    for y in (1, ED_P - 1):
        key = (y | (1 << 255)).to_bytes(32, "little")
        case(
            "non_canonical_key",
            f"public key y = {'1' if y == 1 else 'p - 1'} with the sign bit set although x = 0; "
            "signature R = identity, S = 0",
            key,
            identity + zero,
        )
    s_plus_l = int.from_bytes(good[32:], "little") + ED_L
    require(s_plus_l < 2**256, "S + L fits in 32 bytes")
    case(
        "non_canonical_s",
        "the valid signature of the context group's first case with S + L in place of S",
        public,
        good[:32] + s_plus_l.to_bytes(32, "little"),
    )
    for r_enc, what in (
        ((1 + ED_P).to_bytes(32, "little"), "y = p + 1, a non-canonical name of the identity"),
        ((1 | (1 << 255)).to_bytes(32, "little"), "y = 1 with the sign bit set although x = 0"),
    ):
        case(
            "non_canonical_r",
            f"an honest key's owner signs with R = {what} and S = k * a (a verifier that "
            "reduces R modulo p would accept it)",
            public,
            forge_with_r(secret, public, r_enc, sb),
        )
    case(
        "small_order_r",
        "an honest key's owner signs with R = the identity and S = k * a: the RFC 8032 "
        "equation holds, but an honest signer's R = [r]B is never of small order",
        public,
        forge_with_r(secret, public, identity, sb),
    )
    return cases


# ---------------------------------------------------------------------------------------------
# 8. chain and 9. comparison code
# ---------------------------------------------------------------------------------------------

RULES = {
    "challenge_penalty": "one",
    "exact_call": False,
    "exact_reward": "regain",
    "first_starter": "seat0",
    "grace_period": 30,
    "kind": "standard",
    "ones": "wild",
    "palifico": "off",
    "palifico_kind": "both",
    "seats": 2,
    "starting_dice": 5,
    "time_bank": 180,
    "turn_timer": 0,
    "undo": False,
}


def build_chain(
    host_secret: bytes,
    *,
    players: list[tuple[bytes, str]] | None = None,
    start_roster_names: list[str] | None = None,
) -> dict:
    """Builds the 4-entry transcript: genesis, two joins, start. Returns all pieces."""
    _, host_pk = keypair(host_secret)
    genesis = {
        "host": host_pk.hex(),
        "host_cpu": 0,
        "name": "Kitchen table",
        "nonce": det("chain/genesis-nonce", 16).hex(),
        "protocol": 1,
        "rules": RULES,
        "type": "genesis",
    }
    tid = table_id_of(genesis)
    entries = [make_entry(host_secret, tid, 0, ZERO32, event=genesis)]
    players = players or [(det("chain/player0"), "Alice"), (det("chain/player1"), "Bob")]
    roster = []
    for seat, (psecret, name) in enumerate(players):
        _, ppk = keypair(psecret)
        body = {
            "counter": 0,
            "cpu": False,
            "head": entry_hash(entries[-1]).hex(),
            "host": host_pk.hex(),
            "host_run": False,
            "key": ppk.hex(),
            "name": name,
            "nonce": det(f"chain/challenge-nonce{seat}", 16).hex(),
            "seat": seat,
            "table": tid.hex(),
            "type": "join",
        }
        msg = make_message(psecret, body)
        entries.append(make_entry(host_secret, tid, len(entries), entry_hash(entries[-1]), msg=msg))
        roster.append(
            {"cpu": False, "host_run": False, "key": ppk.hex(), "name": name, "seat": seat}
        )
    start = {"roster": roster, "type": "start"}
    entries.append(make_entry(host_secret, tid, len(entries), entry_hash(entries[-1]), event=start))
    return {
        "host_pk": host_pk,
        "genesis": genesis,
        "table_id": tid,
        "entries": entries,
        "players": players,
    }


def flip_last_bit(data: bytes) -> bytes:
    return data[:-1] + bytes([data[-1] ^ 0x01])


def resign(host_secret: bytes, table: bytes, e: dict, context: str | None = None) -> dict:
    """`e` signed again for `table` (under `context` instead, when given)."""
    unsigned = {k: v for k, v in e.items() if k != "sig"}
    return dict(unsigned, sig=sign(host_secret, context or ctx_entry(table), unsigned).hex())


def rechain(host_secret: bytes, table: bytes, entries: list[dict], start: int) -> list[dict]:
    """Fix prev and re-sign every entry from index start on (keeps seq as it is)."""
    out = list(entries[:start])
    for e in entries[start:]:
        e = dict(e, prev=(entry_hash(out[-1]) if out else ZERO32).hex())
        out.append(resign(host_secret, table, e))
    return out


def gen_chain() -> tuple[dict, dict]:
    host_secret = det("chain/host")
    ch = build_chain(host_secret)
    tid: bytes = ch["table_id"]
    entries: list[dict] = ch["entries"]
    lines = [line_of(e) for e in entries]
    hashes = check_chain(lines)
    require(hashes == [entry_hash(e) for e in entries], "chain hashes")
    code = comparison_code(hashes[3])
    valid = [
        {
            "comment": "genesis (seats 2, host_cpu 0), join seat 0, join seat 1, start; a "
            "partial transcript (no game_over). Each join's head is the hash of the entry "
            "just before it; the start roster lists both joins in seat order",
            "host_secret": host_secret.hex(),
            "host_public": ch["host_pk"].hex(),
            "lines": lines,
            "entry_hashes": [h.hex() for h in hashes],
            "table_id": ch["table_id"].hex(),
            "comparison_code": code,
        }
    ]

    other_secret = det("chain/forger")
    invalid: list[tuple[str, list[str], str, int]] = []

    def add(comment: str, new_lines: list[str], reason: str, index: int) -> None:
        invalid.append((comment, new_lines, reason, index))

    E = [dict(e) for e in entries]
    add("entry 1 dropped: line 1 carries seq 2", [lines[0], lines[2], lines[3]], "BAD_SEQ", 1)
    add(
        "entries 1 and 2 swapped: line 1 carries seq 2",
        [lines[0], lines[2], lines[1], lines[3]],
        "BAD_SEQ",
        1,
    )
    add(
        "entry 3 renumbered to seq 4 and re-signed by the host",
        [*lines[:3], line_of(resign(host_secret, tid, dict(E[3], seq=4)))],
        "BAD_SEQ",
        3,
    )
    add(
        "genesis carries seq 1 and is re-signed",
        [line_of(resign(host_secret, tid, dict(E[0], seq=1))), *lines[1:]],
        "BAD_SEQ",
        0,
    )
    # drop entry 1, renumber and re-sign the rest but keep their prev values
    renum = [E[0]] + [resign(host_secret, tid, dict(e, seq=i + 1)) for i, e in enumerate(E[2:])]
    add(
        "entry 1 dropped, later entries renumbered and re-signed by the host, prev unchanged: "
        "line 1's prev is the hash of the dropped entry",
        [line_of(e) for e in renum],
        "CHAIN_BROKEN",
        1,
    )
    swapped = [
        E[0],
        resign(host_secret, tid, dict(E[2], seq=1)),
        resign(host_secret, tid, dict(E[1], seq=2)),
        E[3],
    ]
    add(
        "entries 1 and 2 swapped, renumbered and re-signed by the host, prev unchanged",
        [line_of(e) for e in swapped],
        "CHAIN_BROKEN",
        1,
    )
    bad_prev = bytearray(bytes.fromhex(E[2]["prev"]))
    bad_prev[31] ^= 0x01
    add(
        "entry 2's prev altered (last bit flipped) and re-signed by the host",
        [
            *lines[:2],
            line_of(resign(host_secret, tid, dict(E[2], prev=bytes(bad_prev).hex()))),
            *lines[3:],
        ],
        "CHAIN_BROKEN",
        2,
    )
    add(
        "genesis prev is not 32 zero bytes (it is 00..01), re-signed by the host",
        [
            line_of(resign(host_secret, tid, dict(E[0], prev=(bytes(31) + b"\x01").hex()))),
            *lines[1:],
        ],
        "CHAIN_BROKEN",
        0,
    )
    add(
        "entry 2 signed by another key (forged host signature)",
        [*lines[:2], line_of(resign(other_secret, tid, E[2])), *lines[3:]],
        "BAD_SIGNATURE",
        2,
    )
    s = bytearray(bytes.fromhex(E[1]["sig"]))
    s[0] ^= 0x01
    add(
        "entry 1's host signature with one bit flipped",
        [lines[0], line_of(dict(E[1], sig=bytes(s).hex())), *lines[2:]],
        "BAD_SIGNATURE",
        1,
    )
    add(
        "entry 3 signed by the host under the message context instead of the entry context",
        [*lines[:3], line_of(resign(host_secret, tid, E[3], CTX_MESSAGE))],
        "BAD_SIGNATURE",
        3,
    )
    add(
        "entry 2 signed by the host under another table's entry context (the table id with "
        "its last bit flipped)",
        [
            *lines[:2],
            line_of(resign(host_secret, tid, E[2], ctx_entry(flip_last_bit(tid)))),
            *lines[3:],
        ],
        "BAD_SIGNATURE",
        2,
    )
    add(
        "entry 3 signed by the host under the bare prefix p2pdice/v1/sig/entry (no table id)",
        [*lines[:3], line_of(resign(host_secret, tid, E[3], CTX_ENTRY))],
        "BAD_SIGNATURE",
        3,
    )
    add(
        "entry 0 (genesis) host signature replaced by entry 1's signature",
        [line_of(dict(E[0], sig=E[1]["sig"])), *lines[1:]],
        "BAD_SIGNATURE",
        0,
    )
    spaced = lines[2].replace('"seq":', '"seq": ', 1)
    require(spaced != lines[2], "space inserted")
    add(
        "line 2 re-encoded with a space after a colon (otherwise unchanged)",
        [*lines[:2], spaced, *lines[3:]],
        "JSON_NOT_CANONICAL",
        2,
    )
    unsorted = lines[1].replace('{"msg":', '{"seq":1,"msg":', 1).replace(',"seq":1,', ",", 1)
    require(unsorted != lines[1] and json.loads(unsorted) == json.loads(lines[1]), "reorder")
    add(
        "line 1 with its keys out of order (seq first)",
        [lines[0], unsorted, *lines[2:]],
        "JSON_NOT_CANONICAL",
        1,
    )
    add(
        "line 3 followed by a trailing space", [*lines[:3], lines[3] + " "], "JSON_NOT_CANONICAL", 3
    )
    # player msg body altered, host re-signs and re-chains everything after it
    m = E[2]["msg"]
    altered_msg = {"body": dict(m["body"], name="Mallory"), "sig": m["sig"]}
    E2 = [
        E[0],
        E[1],
        dict(E[2], msg=altered_msg),
        dict(
            E[3],
            event={
                "roster": [
                    E[3]["event"]["roster"][0],
                    dict(E[3]["event"]["roster"][1], name="Mallory"),
                ],
                "type": "start",
            },
        ),
    ]
    add(
        'join of seat 1 with its name changed to "Mallory" after the player signed it; the '
        "host re-signed entry 2, re-chained entry 3 and put the new name in the roster, so only "
        "the player's message signature fails",
        [line_of(e) for e in rechain(host_secret, tid, E2, 2)],
        "BAD_SIGNATURE",
        2,
    )
    wrong_signer = {
        "body": m["body"],
        "sig": sign(det("chain/player0"), CTX_MESSAGE, m["body"]).hex(),
    }
    E3 = [E[0], E[1], dict(E[2], msg=wrong_signer), E[3]]
    add(
        "join of seat 1 signed by seat 0's key instead of the key it names; host re-signed and "
        "re-chained",
        [line_of(e) for e in rechain(host_secret, tid, E3, 2)],
        "BAD_SIGNATURE",
        2,
    )

    inv_tests = []
    for comment, new_lines, reason, index in invalid:
        try:
            check_chain(new_lines)
            got = None
        except ChainError as e:
            got = (e.reason, e.index)
        require(got == (reason, index), f"chain {comment!r}: got {got}, want {(reason, index)}")
        inv_tests.append(
            {
                "comment": comment,
                "lines": new_lines,
                "result": "invalid",
                "reason": reason,
                "index": index,
            }
        )

    # equivocation: a second, different entry 1 (another player's join), validly host-signed
    mallory_secret = det("chain/mallory")
    _, mpk = keypair(mallory_secret)
    body = dict(E[1]["msg"]["body"], key=mpk.hex(), name="Mallory")
    alt1 = make_entry(host_secret, tid, 1, entry_hash(E[0]), msg=make_message(mallory_secret, body))
    alt3 = make_entry(
        host_secret,
        tid,
        3,
        entry_hash(E[2]),
        event={"roster": list(reversed(E[3]["event"]["roster"])), "type": "start"},
    )
    for alt in (alt1, alt3):
        unsigned = {k: v for k, v in alt.items() if k != "sig"}
        require(
            verify_raw(
                ch["host_pk"], bytes.fromhex(alt["sig"]), signed_bytes(ctx_entry(tid), unsigned)
            ),
            "equivocation sig valid",
        )
    # the first entry of another table of the same host: validly signed, but for that table
    other_genesis = dict(ch["genesis"], nonce=det("chain/other-table-nonce", 16).hex())
    other_tid = table_id_of(other_genesis)
    other0 = make_entry(host_secret, other_tid, 0, ZERO32, event=other_genesis)
    require(check_chain([line_of(other0)]) == [entry_hash(other0)], "other table valid")
    equiv = [
        {
            "comment": "seq 1: the valid chain's join of Alice vs a join of Mallory for the same "
            "seat, both with the genesis hash as prev and a valid host signature",
            "host_public": ch["host_pk"].hex(),
            "entry_a": lines[1],
            "entry_b": line_of(alt1),
            "result": "invalid",
            "reason": "EQUIVOCATION",
        },
        {
            "comment": "seq 3: two different start events (roster order differs) with the same "
            "prev, both validly host-signed",
            "host_public": ch["host_pk"].hex(),
            "entry_a": lines[3],
            "entry_b": line_of(alt3),
            "result": "invalid",
            "reason": "EQUIVOCATION",
        },
        {
            "comment": "not equivocation: the same entry received twice (byte-identical)",
            "host_public": ch["host_pk"].hex(),
            "entry_a": lines[2],
            "entry_b": lines[2],
            "result": "valid",
            "reason": None,
        },
        {
            "comment": "not equivocation: entry 0 of another table (its genesis differs only "
            "in its nonce) signed by the same host key, which signs for that table's id: at "
            "this table its signature does not verify",
            "host_public": ch["host_pk"].hex(),
            "entry_a": lines[0],
            "entry_b": line_of(other0),
            "result": "valid",
            "reason": None,
        },
    ]
    for case_ in equiv:
        case_["table_id"] = tid.hex()
    chain = envelope(
        "chain",
        "SPEC.md §3.1, §3.3, §3.5, §4.1, §6.1",
        [
            group(
                "valid",
                "a valid transcript; lines are the JSON Lines without their line feeds",
                valid,
            ),
            group(
                "invalid",
                "mutated copies of the valid lines. Checks per line, in this order, "
                "give the reason: canonical encoding (JSON_NOT_CANONICAL), seq = line index "
                "(BAD_SEQ), prev = hash of the previous line's entry or 32 zero bytes "
                "(CHAIN_BROKEN), host signature (BAD_SIGNATURE); a mutation these pass breaks "
                "only the player message signature (BAD_SIGNATURE), which SPEC.md 7 checks "
                "last (its step 4), after every other check of the entry; index is the first "
                "failing line",
                inv_tests,
            ),
            group(
                "equivocation",
                "two entries with the same seq, both with a valid signature by "
                "host_public for the table table_id (context p2pdice/v1/sig/entry/<table_id>): "
                "if not byte-identical they prove equivocation",
                equiv,
            ),
        ],
    )

    # comparison code vectors
    cc_tests = [
        {
            "comment": "the start entry of chain.json tc_id 1",
            "start_entry_hash": hashes[3].hex(),
            "code": code,
        }
    ]
    for i in range(3):
        h = det(f"compare/{i}")
        cc_tests.append(
            {
                "comment": f"an arbitrary 32-byte entry hash (label {i})",
                "start_entry_hash": h.hex(),
                "code": comparison_code(h),
            }
        )
    found = 0
    for want_zero_bytes in (1, 2):
        for i in range(10_000_000):
            h = det(f"compare/leading-zeros/{want_zero_bytes}/{i}")
            d = H(TAG_COMPARE, h)
            if d[:want_zero_bytes] == bytes(want_zero_bytes):
                c = comparison_code(h)
                cc_tests.append(
                    {
                        "comment": f"the first {want_zero_bytes} byte(s) of the compare "
                        f"hash are zero (first 8 bytes {d[:8].hex()}): the code keeps "
                        f"its leading zeros",
                        "start_entry_hash": h.hex(),
                        "code": c,
                    }
                )
                found += 1
                break
    require(found == 2, "leading-zero search")
    for t in cc_tests:
        require(re.fullmatch(r"\d{5}-\d{5}-\d{5}-\d{5}", t["code"]) is not None, "code format")
    # The code of head H: the same function of whichever entry the players compare at (the
    # latest result, the game-over entry), so the start's code is the code of the start entry.
    head_tests = [
        {
            "comment": "the head of chain.json tc_id 1, entry 3: it is the start entry, so "
            "its code is the start's comparison code",
            "seq": len(hashes) - 1,
            "head_entry_hash": hashes[-1].hex(),
            "code": comparison_code(hashes[-1]),
        }
    ]
    for seq in (13, 57):
        h = det(f"compare/head/{seq}")
        head_tests.append(
            {
                "comment": f"an arbitrary 32-byte hash read as the head at entry {seq} "
                "(the code depends on the entry hash alone; the seq is said beside it)",
                "seq": seq,
                "head_entry_hash": h.hex(),
                "code": comparison_code(h),
            }
        )
    require(head_tests[0]["code"] == code, "the head code of a start head is the start code")
    cmp = envelope(
        "comparison_code",
        "SPEC.md §3.5",
        [
            group(
                "comparison_code",
                "code = first 8 bytes of H(compare tag, start_entry_hash) as a "
                "big-endian u64, 20 decimal digits with leading zeros, grouped in fives",
                cc_tests,
            ),
            group(
                "head_code",
                "the code of head H: the same computation over entry_hash(H), shown with "
                "H's seq; two players who read the same code at one seq hold the same log "
                "up to it",
                head_tests,
            ),
        ],
    )
    return chain, cmp


# ---------------------------------------------------------------------------------------------
# 9b. start: the seats that play (SPEC.md 3.3)
# ---------------------------------------------------------------------------------------------


ABSENT = object()  #: a lobby case's start without `host_seat`


def start_refusal(
    genesis: dict, joins: dict[int, dict], roster: list[dict], start: dict | None = None
) -> str | None:
    """SPEC.md 3.3 read on its own: the reason code a start with `roster` (the whole start
    event: `start`) gets when the lobby holds `joins` (seat -> roster item), or None when it
    is accepted. The shapes (the roster's 2..6 items, `host_seat` a seat number when present)
    are the schema's (SCHEMA), checked first like every shape."""
    if not 2 <= len(roster) <= 6:
        return "SCHEMA"
    start = start if start is not None else {"roster": roster, "type": "start"}
    host_seat = start.get("host_seat")
    # A seat number: an integer (a JSON true is not one), 0..5.
    if "host_seat" in start and not (type(host_seat) is int and 0 <= host_seat <= 5):
        return "SCHEMA"
    n = len(joins)
    if n < 2 or sorted(joins) != list(range(n)):
        return "BAD_EVENT"
    host_run = sum(1 for j in joins.values() if j["host_run"])
    if genesis.get("cpu_fill", False):
        if n != genesis["rules"]["seats"] or host_run < genesis["host_cpu"]:
            return "BAD_EVENT"
    elif host_run != genesis["host_cpu"]:
        return "BAD_EVENT"
    named = genesis["rules"]["first_starter"]
    if named.startswith("seat") and int(named.removeprefix("seat")) >= n:
        return "BAD_EVENT"  # round 1's named starter must be a seat that plays
    if named == "host":
        # The host names its own seat: one that plays, and played by a person, not a CPU.
        if host_seat is None or host_seat not in joins or joins[host_seat]["cpu"]:
            return "BAD_EVENT"
    elif "host_seat" in start:
        return "BAD_EVENT"  # named only when round 1 is the host's to open
    if roster != [joins[s] for s in sorted(joins)]:
        return "BAD_EVENT"
    return None


def round1_starter(genesis: dict, start: dict) -> int | None:
    """SPEC.md 5.6 read on its own: who opens round 1 once `start` is accepted; None when it
    is drawn from round 1's R."""
    named = genesis["rules"]["first_starter"]
    if named == "host":
        return start["host_seat"]
    return None if named == "random" else int(named.removeprefix("seat"))


def lobby_case(
    label: str,
    *,
    seats: int,
    host_cpu: int = 0,
    cpu_fill: bool = False,
    first_starter: str = "random",
    steps: list[tuple],
    roster: list[dict] | None = None,
    host_seat: Any = ABSENT,
) -> dict:
    """A lobby transcript: genesis, then `steps` (("join", seat, name, host_run) or
    ("leave", seat)), then a start carrying `roster` (default: the joins in seat order) and,
    unless ABSENT, `host_seat` (None: spelled null)."""
    host_secret = det(f"start/{label}/host")
    _, host_pk = keypair(host_secret)
    genesis = {
        "host": host_pk.hex(),
        "host_cpu": host_cpu,
        "name": "Kitchen table",
        "nonce": det(f"start/{label}/nonce", 16).hex(),
        "protocol": 1,
        "rules": dict(RULES, seats=seats, first_starter=first_starter),
        "type": "genesis",
    }
    if cpu_fill:
        genesis["cpu_fill"] = True  # present only when true (SPEC.md 3.1)
    tid = table_id_of(genesis)
    entries = [make_entry(host_secret, tid, 0, ZERO32, event=genesis)]
    joins: dict[int, dict] = {}
    for index, step in enumerate(steps):
        if step[0] == "leave":
            event = {"seat": step[1], "type": "leave"}
            entries.append(
                make_entry(host_secret, tid, len(entries), entry_hash(entries[-1]), event=event)
            )
            del joins[step[1]]
            continue
        _, seat, name, host_run = step
        psecret = det(f"start/{label}/player{index}")
        _, ppk = keypair(psecret)
        body = {
            "counter": 0,
            "cpu": host_run,
            "head": entry_hash(entries[-1]).hex(),
            "host": host_pk.hex(),
            "host_run": host_run,
            "key": ppk.hex(),
            "name": name,
            "nonce": det(f"start/{label}/challenge{index}", 16).hex(),
            "seat": seat,
            "table": tid.hex(),
            "type": "join",
        }
        msg = make_message(psecret, body)
        entries.append(make_entry(host_secret, tid, len(entries), entry_hash(entries[-1]), msg=msg))
        joins[seat] = {
            "cpu": host_run,
            "host_run": host_run,
            "key": ppk.hex(),
            "name": name,
            "seat": seat,
        }
    if roster is None:
        roster = [joins[s] for s in sorted(joins)]
    start = {"roster": roster, "type": "start"}
    if host_seat is not ABSENT:
        start["host_seat"] = host_seat
    entries.append(make_entry(host_secret, tid, len(entries), entry_hash(entries[-1]), event=start))
    reason = start_refusal(genesis, joins, roster, start)
    out = {"lines": [line_of(e) for e in entries], "index": len(entries) - 1}
    if reason is None:
        out["seats_after_start"] = len(roster)
        out["host_run_seats"] = [r["seat"] for r in roster if r["host_run"]]
        out["round1_starter"] = round1_starter(genesis, start)
    else:
        out.update(result="invalid", reason=reason)
    return out


def gen_start() -> dict:
    ann, bea, cid = ("join", 0, "Ann", False), ("join", 1, "Bea", False), ("join", 2, "Cid", False)
    valid = [
        dict(
            comment="a table for up to 6 started with the 2 seats taken: the game has 2 seats",
            **lobby_case("two-of-six", seats=6, steps=[ann, bea]),
        ),
        dict(
            comment="cpu_fill, up to 4 seats: 2 players, then 2 host-run CPUs join seats 2 and "
            "3 before the start; the roster names all 4, the fill seats host_run",
            **lobby_case(
                "fill",
                seats=4,
                cpu_fill=True,
                steps=[ann, bea, ("join", 2, "CPU easy 1", True), ("join", 3, "CPU hard 2", True)],
            ),
        ),
        dict(
            comment="host_cpu 1 without cpu_fill, up to 5 seats: one player, then the host's "
            "CPU, which joins at the start after the people; 3 empty seats left out",
            **lobby_case(
                "host-cpu",
                seats=5,
                host_cpu=1,
                steps=[("join", 0, "Ann", False), ("join", 1, "CPU medium 1", True)],
            ),
        ),
        dict(
            comment="first_starter seat2, started with 3 seats: seat 2 plays and opens round 1",
            **lobby_case("named-starter-ok", seats=5, first_starter="seat2", steps=[ann, bea, cid]),
        ),
        dict(
            comment="first_starter host: the start names seat 1 as the seat the host plays "
            "itself (host_seat), and seat 1 opens round 1",
            **lobby_case(
                "host-starter", seats=4, first_starter="host", steps=[ann, bea], host_seat=1
            ),
        ),
        dict(
            comment="first_starter host with the host's CPU: Ann (the host, seat 0), Bea, then "
            "the host's CPU; host_seat 0 opens round 1",
            **lobby_case(
                "host-starter-cpu",
                seats=6,
                host_cpu=1,
                first_starter="host",
                steps=[ann, bea, ("join", 2, "CPU hard 1", True)],
                host_seat=0,
            ),
        ),
        dict(
            comment="seat 1 left and was taken again before the start: seats 0..2 are taken",
            **lobby_case(
                "refilled", seats=4, steps=[ann, bea, cid, ("leave", 1), ("join", 1, "Dan", False)]
            ),
        ),
    ]
    invalid = [
        dict(
            comment="one seat taken: the roster has 1 item (the schema's minimum is 2)",
            **lobby_case("alone", seats=4, steps=[ann]),
        ),
        dict(
            comment="seat 1 left: seats 0 and 2 are taken, not 0..1, and a start cannot close "
            "the hole",
            **lobby_case("hole", seats=4, steps=[ann, bea, cid, ("leave", 1)]),
        ),
        dict(
            comment="cpu_fill with 2 of 4 seats taken: the host must fill seats 2 and 3 first",
            **lobby_case("fill-short", seats=4, cpu_fill=True, steps=[ann, bea]),
        ),
        dict(
            comment="host_cpu 1 without cpu_fill, but no host-run seat joined",
            **lobby_case("cpu-missing", seats=4, host_cpu=1, steps=[ann, bea]),
        ),
        dict(
            comment="without cpu_fill a second host-run seat joined (the join is refused by "
            "TABLE_FULL before the start is reached: index is the join's)",
            **lobby_case(
                "extra-cpu",
                seats=4,
                host_cpu=1,
                steps=[("join", 0, "CPU easy 1", True), ("join", 1, "CPU easy 2", True)],
            ),
        ),
        dict(
            comment="first_starter seat2 on a table for up to 4, started with 2 seats: round "
            "1's named starter would not play",
            **lobby_case("named-starter", seats=4, first_starter="seat2", steps=[ann, bea]),
        ),
        dict(
            comment="first_starter host, and the start names no host_seat",
            **lobby_case("host-seat-missing", seats=4, first_starter="host", steps=[ann, bea]),
        ),
        dict(
            comment="first_starter host, and host_seat names seat 2, which nobody took",
            **lobby_case(
                "host-seat-empty", seats=4, first_starter="host", steps=[ann, bea], host_seat=2
            ),
        ),
        dict(
            comment="first_starter host, and host_seat names the host's CPU: the host plays "
            "its own seat, a CPU is not the host",
            **lobby_case(
                "host-seat-cpu",
                seats=3,
                host_cpu=1,
                first_starter="host",
                steps=[ann, ("join", 1, "CPU easy 1", True)],
                host_seat=1,
            ),
        ),
        dict(
            comment="host_seat named while first_starter is random: only a host start names it",
            **lobby_case("host-seat-random", seats=4, steps=[ann, bea], host_seat=0),
        ),
        dict(
            comment="host_seat null: when present it is a seat number (schema)",
            **lobby_case(
                "host-seat-null", seats=4, first_starter="host", steps=[ann, bea], host_seat=None
            ),
        ),
    ]
    # The extra host-run join is refused at the join itself (SPEC.md 7, msg:join).
    extra = invalid[4]
    require(extra["comment"].startswith("without cpu_fill a second"), "the extra-cpu case")
    extra.update(reason="TABLE_FULL", index=2)
    # The reversed roster: built from the real joins, reversed.
    rev = lobby_case("reversed", seats=3, steps=[ann, bea])
    roster = list(reversed(json.loads(rev["lines"][-1])["event"]["roster"]))
    invalid.append(
        dict(
            comment="the roster lists the joins in reverse seat order",
            **lobby_case("reversed", seats=3, steps=[ann, bea], roster=roster),
        )
    )
    genesis_false = lobby_case("false-flag", seats=3, steps=[ann, bea])
    first = json.loads(genesis_false["lines"][0])
    first["event"]["cpu_fill"] = False
    host_secret = det("start/false-flag/host")
    invalid.append(
        {
            "comment": "a genesis spelling cpu_fill false: the field is present only when true",
            "lines": [line_of(resign(host_secret, table_id_of(first["event"]), first))],
            "index": 0,
            "result": "invalid",
            "reason": "SCHEMA",
        }
    )
    for t in invalid:
        require(t.get("result") == "invalid", f"start vector {t['comment']!r} is invalid")
    return envelope(
        "start",
        "SPEC.md §3.3, §7 (LOBBY event:start)",
        [
            group(
                "valid",
                "lobby transcripts whose last entry is an accepted start: the game is then "
                "played by `seats_after_start` seats; `host_run_seats` are the seats the host "
                "runs (its own and fill CPUs)",
                valid,
            ),
            group(
                "invalid",
                "lobby transcripts refused at line `index` with `reason` (every earlier line "
                "is accepted)",
                invalid,
            ),
        ],
    )


# ---------------------------------------------------------------------------------------------
# 10. password
# ---------------------------------------------------------------------------------------------


def gen_password() -> dict:
    tid = det("pw/table")
    _, host = keypair(det("pw/host"))
    _, player = keypair(det("pw/player"))
    nonce = det("pw/nonce", 16)
    host_entropy = det("pw/host-entropy/1") + det("pw/host-entropy/2")
    joiner_entropy = det("pw/joiner-entropy/1") + det("pw/joiner-entropy/2")
    same = [
        ("ASCII password", "correct horse battery staple"),
        ("empty password (scrypt of no bytes)", ""),
        ("non-ASCII password (NFC, precomposed é U+00E9)", "caf\u00e9"),
        (
            "the same word in NFD (e + U+0301): normalised to NFC first, so the same verifier",
            "cafe\u0301",
        ),
        ("emoji password", "🎲🎲🎲"),
        ("password with a space and a trailing space kept as is", "open sesame "),
    ]
    cases = [(c, pw, pw, nonce) for c, pw in same]
    cases.append(
        (
            "ASCII password with another nonce: the same messages, other confirmations",
            same[0][1],
            same[0][1],
            det("pw/nonce2", 16),
        )
    )
    cases.append(
        (
            "the joiner's password is wrong: the keys differ and the host refuses (BAD_PASSWORD)",
            same[0][1],
            "correct horse battery stapler",
            nonce,
        )
    )
    tests = []
    for comment, host_pw, joiner_pw, n in cases:
        host_verifier = password_verifier(host_pw, tid)
        joiner_verifier = password_verifier(joiner_pw, tid)
        host_msg, joiner_msg, host_shared, joiner_shared = spake2_pair(
            host_verifier, joiner_verifier, host_entropy, joiner_entropy
        )
        joiner_proof, host_expected = password_confirmations(joiner_shared, tid, host, n, player)
        want, host_answer = password_confirmations(host_shared, tid, host, n, player)
        valid = hmac.compare_digest(want, joiner_proof)
        require(valid == (host_pw == joiner_pw), f"password case {comment!r}")
        require(valid == (host_expected == host_answer), "the joiner checks the host's answer")
        work, work_hash = password_work(tid, host, n, player, joiner_msg)
        tests.append(
            {
                "comment": comment,
                "host_password": host_pw,
                "joiner_password": joiner_pw,
                "table_id": tid.hex(),
                "host_key": host.hex(),
                "nonce": n.hex(),
                "player_key": player.hex(),
                "host_entropy": host_entropy.hex(),
                "joiner_entropy": joiner_entropy.hex(),
                "verifier": host_verifier.hex(),
                "host_message": host_msg.hex(),
                "joiner_message": joiner_msg.hex(),
                "joiner_proof": joiner_proof.hex(),
                "work": work,
                "work_hash": work_hash.hex(),
                "host_proof": host_answer.hex() if valid else None,
                "result": "valid" if valid else "invalid",
                "reason": None if valid else "BAD_PASSWORD",
            }
        )
    require(tests[2]["verifier"] == tests[3]["verifier"], "NFC and NFD give one verifier")
    require(tests[2]["joiner_proof"] == tests[3]["joiner_proof"], "NFC and NFD: one exchange")
    require(len({t["verifier"] for t in tests[:6]}) == 5, "distinct verifiers but NFC/NFD")
    require(tests[6]["joiner_message"] == tests[0]["joiner_message"], "nonce is not in messages")
    require(tests[6]["joiner_proof"] != tests[0]["joiner_proof"], "nonce is in confirmations")
    return envelope(
        "password",
        "SPEC.md §3.4",
        [
            group(
                "password",
                "verifier = scrypt(UTF-8(NFC(password)), salt = table_id, N = 2^15, r = 8, p = 1, "
                "32 bytes); SPAKE2 over Ed25519 (joiner = side A, host = side B, identities "
                "p2pdice/v1/password/joiner and p2pdice/v1/password/host, each side's scalar = "
                "its 64 entropy bytes big-endian mod L); confirmation = HMAC-SHA256(shared key, "
                "framed(confirm tag, table_id, host_key, nonce, player_key)); work = the "
                "smallest counter whose scrypt(framed(work tag, table_id, host_key, nonce, "
                "player_key, joiner_message), salt = counter as 8 bytes big-endian, N = 2^10, "
                "r = 8, p = 1, 32 bytes) starts with 5 zero bits",
                tests,
            )
        ],
    )


# ---------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "vectors", "v1")
    )
    args = ap.parse_args(argv)
    try:
        chain, cmp = gen_chain()
        files = {
            "framing": gen_framing(),
            "commitments": gen_commitments(),
            "commit_set": gen_commit_set(),
            "dice": gen_dice(),
            "starter": gen_starter(),
            "canonical_json": gen_canonical_json(),
            "ed25519": gen_ed25519(),
            "chain": chain,
            "comparison_code": cmp,
            "start": gen_start(),
            "password": gen_password(),
        }
    except Failure as e:
        print(f"gen_vectors: {e}", file=sys.stderr)
        return 1
    os.makedirs(args.out, exist_ok=True)
    for name, obj in files.items():
        path = os.path.join(args.out, name + ".json")
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(json.dumps(obj, indent=1, ensure_ascii=False) + "\n")
        print(f"{path}: {obj['number_of_tests']} tests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
