"""TLS 1.3 bound to the host's identity key (SPEC.md 10.1).

The host's certificate is self-signed by its Ed25519 identity key, the key that signs every
entry of its tables, and holds that key as its public key. Ed25519 signing is deterministic
and every field is fixed, so the certificate is a pure function of the key: the same after
every restart. No authority vouches for it; the client pins it instead: after the
handshake (in which the host proves it holds the certificate's key) the client hands the
certificate's public key to its core (`ClientConnection.connection_opened`), which compares
it with the host key it expects before anything that matters is sent. So a copied
advertisement, or anyone who repeats the table id and host key in a challenge, gets no
further than the handshake.
"""

from __future__ import annotations

import asyncio
import datetime
import hashlib
import os
import ssl
import tempfile
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.x509.oid import NameOID

from ..core.signing import SigningKey

#: The certificate's subject and issuer (it names no machine: the key is the identity).
CERT_NAME = "p2pdice host"
#: Fixed validity, so the certificate depends on the key alone (clients check the key).
_NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
_NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)


def host_certificate(key: SigningKey) -> x509.Certificate:
    """The host's self-signed certificate: its identity key, signed by itself."""
    private = key.private_key()
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, CERT_NAME)])
    serial = int.from_bytes(hashlib.sha256(key.public).digest()[:16], "big") >> 1 or 1
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(private.public_key())
        .serial_number(serial)
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_AFTER)
        .sign(private, algorithm=None)
    )


def server_context(key: SigningKey) -> ssl.SSLContext:
    """The host's TLS 1.3 context, serving `host_certificate(key)`. The key and certificate
    pass through a private temporary file (the ssl module loads chains from files only),
    removed before this returns."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    pem = key.private_key().private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ) + host_certificate(key).public_bytes(serialization.Encoding.PEM)
    descriptor, name = tempfile.mkstemp(prefix="p2pdice-tls-", suffix=".pem")  # mode 0600
    try:
        with os.fdopen(descriptor, "wb") as file:
            file.write(pem)
        context.load_cert_chain(Path(name))
    finally:
        os.unlink(name)
    return context


def client_context() -> ssl.SSLContext:
    """A client's TLS 1.3 context. It validates no chain (no authority signs a host's
    certificate): the host's key is pinned after the handshake instead (`peer_key`). The
    handshake itself still makes the host prove it holds the certificate's key."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


#: What `peer_key` gives for a TLS peer whose certificate holds no Ed25519 key: no host key
#: is empty, so it never equals the key a client expects, nor the one a challenge names.
NOT_A_HOST_KEY = b""


def peer_key(transport_info: Any) -> bytes | None:
    """The public key a connection's TLS peer proved it holds, from something with
    `get_extra_info` (an aiohttp WebSocket or transport); None on a connection without TLS."""
    ssl_object = transport_info.get_extra_info("ssl_object")
    if ssl_object is None:
        return None
    der = ssl_object.getpeercert(binary_form=True)
    if not der:
        return NOT_A_HOST_KEY
    try:
        public = x509.load_der_x509_certificate(der).public_key()
    except ValueError:
        return NOT_A_HOST_KEY
    if not isinstance(public, Ed25519PublicKey):
        return NOT_A_HOST_KEY
    return public.public_bytes_raw()


#: Seconds a closing TLS connection waits for the peer's close_notify before the socket is
#: dropped (asyncio waits 30 s): a peer gone off the network (its heartbeat failed) must
#: not hold its socket, and an honest peer answers in milliseconds.
SHUTDOWN_WAIT = 1.0


class TLSSite(web.TCPSite):
    """aiohttp's TCPSite, with the TLS handshake bounded (`handshake_timeout` seconds): a
    socket that sends no ClientHello is closed as soon as one that sends no request head
    (asyncio's default is 60 s, which lets a few hundred half-open sockets hold every file
    descriptor far longer), and the closing handshake too (`SHUTDOWN_WAIT`). TCPSite takes
    no such arguments, so `start` is its own."""

    __slots__ = ("_handshake_timeout",)

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        ssl_context: ssl.SSLContext,
        handshake_timeout: float,
    ) -> None:
        super().__init__(runner, host, port, ssl_context=ssl_context)
        self._handshake_timeout = handshake_timeout

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        self._server = await asyncio.get_running_loop().create_server(
            server,
            self._host,
            self._port,
            ssl=self._ssl_context,
            ssl_handshake_timeout=self._handshake_timeout,
            ssl_shutdown_timeout=SHUTDOWN_WAIT,
            backlog=self._backlog,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
        )
        sockets = self._server.sockets
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port
