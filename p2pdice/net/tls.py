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
from asyncio import sslproto
from collections.abc import Callable
from pathlib import Path
from typing import Any

from aiohttp import web
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.x509.oid import NameOID

from ..core.signing import SigningKey
from .limits import address_limited

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


#: Sockets one source address may hold open on the port at once (TLS handshake, HTTP heads,
#: WebSockets of every table): twice a table's `per_address`, so a player's WebSocket, its
#: listings and the stale sockets of a few reconnects fit. Loopback is exempt by default.
SOCKETS_PER_ADDRESS = 16
#: Sockets the port holds open at once, all addresses together; past it a new one closes
#: the socket that has waited longest without becoming a WebSocket (in its TLS handshake or
#: its request head: an honest one takes milliseconds), or is itself closed when every
#: socket is a WebSocket.
MAX_SOCKETS = 1024
#: Bytes of the read buffer each TLS socket holds from its accept on.
TLS_READ_BUFFER = 32 * 1024


class SocketGate:
    """Counts the sockets open on the port, by source address, *before* their TLS state
    exists: asyncio gives every TLS connection a 256 KiB read buffer when it is accepted,
    so sockets that never send a ClientHello cost the host a quarter of a megabyte each for
    their whole handshake timeout, and one address could take the host's memory (SPEC.md
    10.1, "Limits of the reference host"). A socket is known by its peer's (address, port)."""

    def __init__(
        self,
        *,
        per_address: int = SOCKETS_PER_ADDRESS,
        total: int = MAX_SOCKETS,
        limit_loopback: bool = False,
    ) -> None:
        self.per_address, self.total, self.limit_loopback = per_address, total, limit_loopback
        self.by_address: dict[str, int] = {}
        self.count = 0
        #: Sockets not yet carrying a WebSocket, oldest first, with their raw transports.
        self._waiting: dict[Any, asyncio.Transport] = {}

    def admit(self, peer: Any, address: str | None, transport: asyncio.Transport) -> bool:
        """Whether a new socket may start its TLS handshake (False: close it unread). At the
        address's limit, the address's own oldest socket not carrying a WebSocket makes room
        (players behind one NAT address keep lobbies open, each holding a listing's
        keep-alive socket); at the port's, the oldest of anyone's."""
        full = address_limited(address, limit_loopback=self.limit_loopback) and (
            self.by_address.get(address or "", 0) >= self.per_address
        )
        if full:
            if not self._make_room(lambda waiting: _address_of(waiting) == address):
                return False
        # One newcomer closes one socket: the one just closed is still counted here.
        elif self.count >= self.total and not self._make_room(lambda waiting: True):
            return False
        self.count += 1
        if address is not None:
            self.by_address[address] = self.by_address.get(address, 0) + 1
        self._waiting[peer] = transport
        return True

    def _make_room(self, whose: Callable[[Any], bool]) -> bool:
        """Close the oldest socket not carrying a WebSocket that `whose` names (it is
        counted out when its connection_lost runs); False when there is none."""
        oldest = next((waiting for waiting in self._waiting if whose(waiting)), None)
        if oldest is None:
            return False
        self._waiting.pop(oldest).abort()
        return True

    def in_use(self, peer: Any) -> None:
        """The socket of `peer` asked for a WebSocket: never closed to make room."""
        self._waiting.pop(peer, None)

    def release(self, peer: Any, address: str | None) -> None:
        self._waiting.pop(peer, None)
        self.count -= 1
        if address is not None:
            left = self.by_address.get(address, 0) - 1
            if left > 0:
                self.by_address[address] = left
            else:
                self.by_address.pop(address, None)


def _address_of(peer: Any) -> str | None:
    return str(peer[0]) if isinstance(peer, tuple) and peer else None


class _CountedTLS(sslproto.SSLProtocol):
    """asyncio's TLS protocol, telling the gate when its socket closes, with a read buffer
    of 32 KiB instead of 256 (two TLS records: a frame of 64 KiB arrives in a few reads)."""

    max_size = TLS_READ_BUFFER

    def __init__(self, *args: Any, on_lost: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._on_lost: Callable[[], None] | None = on_lost

    def connection_lost(self, exc: BaseException | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            on_lost, self._on_lost = self._on_lost, None
            if on_lost is not None:
                on_lost()


class _Gatekeeper(asyncio.Protocol):
    """The first protocol of every accepted socket: counts it at the gate, then hands it to
    TLS (what asyncio does itself for `create_server(ssl=...)`), or closes it at once."""

    def __init__(self, site: TLSSite, app_factory: Callable[[], asyncio.BaseProtocol]) -> None:
        self._site, self._app_factory = site, app_factory

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        site, gate = self._site, self._site.gate
        peer = transport.get_extra_info("peername")
        address = _address_of(peer)
        if address is None:
            peer = object()  # no peer name (not a TCP socket): known by itself
        assert isinstance(transport, asyncio.Transport)
        if not gate.admit(peer, address, transport):
            transport.abort()
            return
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[None] = loop.create_future()
        tls = _CountedTLS(
            loop,
            self._app_factory(),
            site.tls_context,
            waiter,
            server_side=True,
            ssl_handshake_timeout=site.handshake_timeout,
            ssl_shutdown_timeout=SHUTDOWN_WAIT,
            on_lost=lambda: gate.release(peer, address),
        )
        waiter.add_done_callback(_read_outcome)
        transport.set_protocol(tls)
        tls.connection_made(transport)


def _read_outcome(waiter: asyncio.Future[None]) -> None:
    """A failed TLS handshake's error, read: its socket is closed already."""
    if not waiter.cancelled():
        waiter.exception()


class TLSSite(web.TCPSite):
    """aiohttp's TCPSite, with the TLS handshake bounded (`handshake_timeout` seconds): a
    socket that sends no ClientHello is closed as soon as one that sends no request head
    (asyncio's default is 60 s, which lets a few hundred half-open sockets hold every file
    descriptor far longer), and the closing handshake too (`SHUTDOWN_WAIT`); and the sockets
    open at once bounded per source address and in all (`SocketGate`) before any TLS state
    is made for them. TCPSite takes no such arguments, so `start` is its own."""

    __slots__ = ("gate", "handshake_timeout", "tls_context")

    def __init__(
        self,
        runner: web.BaseRunner,
        host: str,
        port: int,
        *,
        ssl_context: ssl.SSLContext,
        handshake_timeout: float,
        gate: SocketGate | None = None,
    ) -> None:
        super().__init__(runner, host, port, ssl_context=ssl_context)
        self.tls_context = ssl_context
        self.handshake_timeout = handshake_timeout
        self.gate = gate or SocketGate()

    async def start(self) -> None:
        await web.BaseSite.start(self)
        server = self._runner.server
        assert server is not None
        app_factory = server
        # Plain TCP here: each socket is counted at the gate before TLS starts on it.
        self._server = await asyncio.get_running_loop().create_server(
            lambda: _Gatekeeper(self, app_factory),
            self._host,
            self._port,
            backlog=self._backlog,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
        )
        sockets = self._server.sockets
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port
