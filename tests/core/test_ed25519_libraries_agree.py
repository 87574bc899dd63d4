"""libsodium (the Ed25519 the package uses) and OpenSSL (the one it used before) accept exactly
the same signatures once the strict checks of SPEC.md 2.4 have passed.

Changing the library must not change which entries a peer accepts: a peer on another library,
or an old saved game, would otherwise disagree. The cases that could differ are the ones the
two verifiers could treat differently: keys and R points with a small-order component (mixed
order), S at and above the group order, non-canonical encodings, and plain tampering.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path
from types import ModuleType

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pdice.core.signing import (
    SigningKey,
    ed25519_check,
    openssl_ed25519_check,
    strict_checks_pass,
    verify_raw,
)
from tests.support.start_reading import independent_reading

ROOT = Path(__file__).resolve().parents[2]


@cache
def curve() -> ModuleType:
    """protocol/gen_vectors.py holds the curve arithmetic written from RFC 8032 alone."""
    return independent_reading()


def _both_agree(public: bytes, data: bytes, signature: bytes) -> bool:
    """Both libraries' verdicts, after the strict checks as the package runs them."""
    strict = strict_checks_pass(public, signature)
    sodium = strict and ed25519_check(public, data, signature)
    openssl = strict and openssl_ed25519_check(public, data, signature)
    assert sodium == openssl, (public.hex(), signature.hex(), data.hex())
    assert verify_raw(public, data, signature) == sodium
    return sodium


def test_every_ed25519_vector_gets_the_same_verdict_from_both_libraries() -> None:
    vectors = json.loads((ROOT / "protocol/vectors/v1/ed25519.json").read_text())
    seen = 0
    for group in vectors["test_groups"]:
        for case in group["tests"]:
            if "message" not in case:
                continue
            public = bytes.fromhex(case["public"])
            ok = _both_agree(
                public, bytes.fromhex(case["message"]), bytes.fromhex(case["signature"])
            )
            assert ok == (case["result"] == "valid"), case["comment"]
            seen += 1
    assert seen >= 3


def test_libsodium_signs_as_openssl_does() -> None:
    """Ed25519 signing is deterministic: the new signer's bytes are the old signer's."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    for i in range(20):
        secret = hashlib.sha256(b"signer %d" % i).digest()
        data = hashlib.sha512(b"data %d" % i).digest() * i
        ours = SigningKey(secret)
        theirs = Ed25519PrivateKey.from_private_bytes(secret)
        assert ours.public == theirs.public_key().public_bytes_raw()
        assert ours.sign_raw(data) == theirs.sign(data)
        assert ours.private_key().sign(data) == ours.sign_raw(data)


def _torsion(index: int) -> tuple[int, int]:
    return curve().ed_decode(curve().small_order_points()[index % 8])


def _signature(a: int, r: int, public: bytes, data: bytes, extra_r: int = 0) -> bytes:
    """(R, S) for scalar `a` under the claimed key `public`, with R = [r]B + T[extra_r]."""
    c = curve()
    generator = c.ed_decode(bytes.fromhex(_BASE_POINT))
    point_r = c.ed_add(c.ed_mul(r, generator), _torsion(extra_r))
    r_enc = c.ed_encode(point_r)
    k = int.from_bytes(hashlib.sha512(r_enc + public + data).digest(), "little") % c.ED_L
    return r_enc + ((r + k * a) % c.ED_L).to_bytes(32, "little")


#: RFC 8032's base point B (y = 4/5).
_BASE_POINT = "5866666666666666666666666666666666666666666666666666666666666666"


@settings(max_examples=60, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    data=st.binary(max_size=64),
    torsion_key=st.integers(0, 7),
    torsion_r=st.integers(0, 7),
    nonce=st.integers(1, 2**252),
)
def test_mixed_order_keys_and_r_points_get_the_same_verdict(
    seed: bytes, data: bytes, torsion_key: int, torsion_r: int, nonce: int
) -> None:
    """A key or R with a small-order part added: the cofactorless equation decides, in both."""
    c = curve()
    a = c.secret_scalar(seed)
    honest = SigningKey(seed).public
    point_a = c.ed_add(c.ed_decode(honest), _torsion(torsion_key))
    public = c.ed_encode(point_a)
    signature = _signature(a, nonce, public, data, torsion_r)
    _both_agree(public, data, signature)
    # The honest key's own signature, and the same signature under the mixed key.
    real = SigningKey(seed).sign_raw(data)
    assert _both_agree(honest, data, real)
    _both_agree(public, data, real)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    data=st.binary(max_size=200),
    flip=st.integers(0, 64 * 8 - 1),
    s_shift=st.sampled_from([0, 1, 2, 7, 8]),
)
def test_tampered_signatures_get_the_same_verdict(
    seed: bytes, data: bytes, flip: int, s_shift: int
) -> None:
    """A flipped bit anywhere, and S moved up by multiples of the group order."""
    key = SigningKey(seed)
    good = key.sign_raw(data)
    flipped = bytearray(good)
    flipped[flip // 8] ^= 1 << (flip % 8)
    assert not _both_agree(key.public, data, bytes(flipped))
    s = int.from_bytes(good[32:], "little") + s_shift * curve().ED_L
    if s < 2**256:
        shifted = good[:32] + s.to_bytes(32, "little")
        assert _both_agree(key.public, data, shifted) == (s_shift == 0)
