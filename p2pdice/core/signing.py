"""Ed25519 signatures over a context prefix and canonical bytes (protocol/SPEC.md 2.4).

Keys come in as bytes; generating and storing them is the storage adapter's job.

OpenSSL verifies RFC 8032 signatures cofactorless and accepts keys of small order: with the
identity point as public key, the signature (R = identity, S = 0) verifies for *every*
message, so a seat joined with such a key could be signed for by anyone. Every key and every
signature's R is therefore refused first when it is a non-canonical encoding (y >= p, or x = 0
with the sign bit set) or a point of small order (the 8 points whose order divides 8, listed
below as the standard blocklist of libsodium does: a set lookup instead of a point
multiplication), and S when it is not below the group order L.

Ed25519 itself runs in libsodium (through PyNaCl): on this project's machine it verifies in
about half the time OpenSSL (through `cryptography`) takes, and a client checks one or two
signatures per entry on a bid's critical path (docs/benchmarks.md, "Which Ed25519"). Both
libraries verify cofactorless, and after the strict checks above they accept exactly the same
signatures (tests/core/test_ed25519_libraries_agree.py). `cryptography` still holds the key for
the host's TLS certificate: Ed25519 signing is deterministic, so both sign alike.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from nacl.bindings import crypto_sign, crypto_sign_open, crypto_sign_seed_keypair
from nacl.exceptions import BadSignatureError

from .codec import encode
from .hashing import Tag


def signed_bytes(context: Tag | str, body: Any) -> bytes:
    """context || 0x00 || canonical(body): exactly what a signature covers."""
    return context.encode("ascii") + b"\x00" + encode(body)


class SigningKey:
    """An Ed25519 private key given as 32 secret bytes."""

    __slots__ = ("_expanded", "_secret", "public")

    def __init__(self, secret: bytes) -> None:
        if len(secret) != 32:
            raise ValueError("an Ed25519 secret key is 32 bytes")
        self._secret = bytes(secret)
        self.public, self._expanded = crypto_sign_seed_keypair(self._secret)

    def sign(self, context: Tag | str, body: Any) -> bytes:
        return self.sign_raw(signed_bytes(context, body))

    def sign_raw(self, data: bytes) -> bytes:
        return crypto_sign(data, self._expanded)[:64]  # libsodium returns signature || data

    def private_key(self) -> Ed25519PrivateKey:
        """The key as `cryptography` holds it: for the host's TLS certificate and context
        (net/tls.py), which sign with it directly."""
        return Ed25519PrivateKey.from_private_bytes(self._secret)

    def __repr__(self) -> str:  # never print the secret
        return f"SigningKey(public={self.public.hex()[:16]}...)"


_P = 2**255 - 19  #: the field prime
_L = 2**252 + 27742317777372353535851937790883648493  #: the order of the base point

#: Canonical encodings of the 8 points of order 1, 2, 4 or 8 (protocol/vectors/v1/ed25519.json
#: derives them from the curve), and the two encodings of an x = 0 point with the sign bit set,
#: which RFC 8032 5.1.3 refuses to decode.
SMALL_ORDER_ENCODINGS: frozenset[bytes] = frozenset(
    bytes.fromhex(h)
    for h in (
        "0100000000000000000000000000000000000000000000000000000000000000",  # identity
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # order 2
        "0000000000000000000000000000000000000000000000000000000000000000",  # order 4
        "0000000000000000000000000000000000000000000000000000000000000080",  # order 4
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",  # order 8
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",  # order 8
    )
)
_X_ZERO_WITH_SIGN = frozenset(
    bytes.fromhex(h)
    for h in (
        "0100000000000000000000000000000000000000000000000000000000000080",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    )
)


def weak_point(encoding: bytes) -> bool:
    """Whether a 32-byte point encoding is non-canonical or of small order (refused)."""
    if len(encoding) != 32 or encoding in SMALL_ORDER_ENCODINGS or encoding in _X_ZERO_WITH_SIGN:
        return True
    return int.from_bytes(encoding, "little") & ((1 << 255) - 1) >= _P


def acceptable_public_key(public: bytes) -> bool:
    """A key that may hold a seat or sign entries: canonical and not of small order."""
    return not weak_point(bytes(public))


#: The expensive Ed25519 check, after the cheap strict checks passed: (public, data,
#: signature) -> bool. An adapter may set another (a replay that records the triples and has
#: worker processes check them); the strict checks always run here first, in the same order.
Checker = Callable[[bytes, bytes, bytes], bool]


def ed25519_check(public: bytes, data: bytes, signature: bytes) -> bool:
    """The Ed25519 verification itself (libsodium through PyNaCl)."""
    try:
        crypto_sign_open(bytes(signature) + bytes(data), bytes(public))  # signed-message form
    except (BadSignatureError, ValueError):
        return False
    return True


@lru_cache(maxsize=256)
def _openssl_key(public: bytes) -> Ed25519PublicKey | None:
    try:
        return Ed25519PublicKey.from_public_bytes(public)
    except ValueError:
        return None


def openssl_ed25519_check(public: bytes, data: bytes, signature: bytes) -> bool:
    """The same verification by OpenSSL through `cryptography`: the reference the libsodium
    path is tested equal to, and the other side of the benchmark that chose between them."""
    key = _openssl_key(bytes(public))
    if key is None:
        return False
    try:
        key.verify(bytes(signature), bytes(data))
    except InvalidSignature:
        return False
    return True


_CHECKER: ContextVar[Checker] = ContextVar("p2pdice_signature_checker", default=ed25519_check)


@contextmanager
def signature_checker(checker: Checker) -> Iterator[None]:
    """Within the block, signatures that pass the strict checks are judged by `checker`."""
    token = _CHECKER.set(checker)
    try:
        yield
    finally:
        _CHECKER.reset(token)


def strict_checks_pass(public: bytes, signature: bytes) -> bool:
    """The cheap checks every signature must pass before Ed25519 itself (module docstring)."""
    if len(public) != 32 or len(signature) != 64 or weak_point(bytes(public)):
        return False
    return not (weak_point(bytes(signature[:32])) or int.from_bytes(signature[32:], "little") >= _L)


def verify_raw(public: bytes, data: bytes, signature: bytes) -> bool:
    if not strict_checks_pass(public, signature):
        return False
    return _CHECKER.get()(bytes(public), bytes(data), bytes(signature))


def verify(public: bytes, context: Tag | str, body: Any, signature: bytes) -> bool:
    """Whether `signature` by `public` covers `body` under `context`."""
    return verify_raw(public, signed_bytes(context, body), signature)
