"""Ed25519 signatures over a context prefix and canonical bytes (protocol/SPEC.md 2.4).

Keys come in as bytes; generating and storing them is the storage adapter's job.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from .codec import encode
from .hashing import Tag


def signed_bytes(context: Tag, body: Any) -> bytes:
    """context || 0x00 || canonical(body): exactly what a signature covers."""
    return context.encode("ascii") + b"\x00" + encode(body)


class SigningKey:
    """An Ed25519 private key given as 32 secret bytes."""

    __slots__ = ("_key", "public")

    def __init__(self, secret: bytes) -> None:
        if len(secret) != 32:
            raise ValueError("an Ed25519 secret key is 32 bytes")
        self._key = Ed25519PrivateKey.from_private_bytes(secret)
        self.public: bytes = self._key.public_key().public_bytes_raw()

    def sign(self, context: Tag, body: Any) -> bytes:
        return self._key.sign(signed_bytes(context, body))

    def sign_raw(self, data: bytes) -> bytes:
        return self._key.sign(data)

    def __repr__(self) -> str:  # never print the secret
        return f"SigningKey(public={self.public.hex()[:16]}...)"


@lru_cache(maxsize=256)
def _public_key(public: bytes) -> Ed25519PublicKey | None:
    try:
        return Ed25519PublicKey.from_public_bytes(public)
    except ValueError:
        return None


def verify_raw(public: bytes, data: bytes, signature: bytes) -> bool:
    key = _public_key(bytes(public)) if len(public) == 32 else None
    if key is None or len(signature) != 64:
        return False
    try:
        key.verify(signature, data)
    except InvalidSignature:
        return False
    return True


def verify(public: bytes, context: Tag, body: Any, signature: bytes) -> bool:
    """Whether `signature` by `public` covers `body` under `context`."""
    return verify_raw(public, signed_bytes(context, body), signature)
