"""The host's TLS certificate holds its Ed25519 identity key and is a function of that key
alone (the same after every restart), and what a client reads from a real handshake is that
key (SPEC.md 10.1)."""

from __future__ import annotations

import asyncio
import ssl
from pathlib import Path

import aiohttp
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding

from p2pdice.core.signing import SigningKey
from p2pdice.net.tls import client_context, host_certificate, peer_key
from tests.support.wire import hosted, url_of

pytestmark = pytest.mark.usefixtures("private_network")


def test_the_certificate_is_a_function_of_the_key() -> None:
    key = SigningKey(b"\x42" * 32)
    first, again = host_certificate(key), host_certificate(SigningKey(b"\x42" * 32))
    assert first.public_bytes(Encoding.DER) == again.public_bytes(Encoding.DER)
    public = first.public_key()
    assert isinstance(public, Ed25519PublicKey) and public.public_bytes_raw() == key.public
    other = host_certificate(SigningKey(b"\x43" * 32))
    assert other.public_bytes(Encoding.DER) != first.public_bytes(Encoding.DER)


async def test_a_client_reads_the_hosts_identity_key_from_the_handshake(tmp_path: Path) -> None:
    async with (
        hosted(tmp_path / "h") as (service, table),
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(ssl=client_context())) as http,
        http.ws_connect(url_of(service, table)) as ws,
    ):
        assert peer_key(ws) == service.key.public
        ssl_object = ws.get_extra_info("ssl_object")
        assert ssl_object.version() == "TLSv1.3"


async def test_a_plain_connection_to_the_host_gets_nothing(tmp_path: Path) -> None:
    """The port speaks TLS only: nothing is served in the clear."""
    async with hosted(tmp_path / "h") as (service, table):
        reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
        writer.write(f"GET {table.path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(4096), 15)
        writer.close()
        assert b"HTTP/1.1 101" not in answer and b"challenge" not in answer


async def test_tls_below_1_3_is_refused(tmp_path: Path) -> None:
    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.check_hostname, old.verify_mode = False, ssl.CERT_NONE
    old.maximum_version = ssl.TLSVersion.TLSv1_2
    async with hosted(tmp_path / "h") as (service, _):
        with pytest.raises((ssl.SSLError, ConnectionError)):
            await asyncio.wait_for(asyncio.open_connection("127.0.0.1", service.port, ssl=old), 15)
