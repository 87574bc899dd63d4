"""In-process hosts and raw WebSocket clients for wire-level tests (SPEC.md 10).

`hosted()` starts a HostService on 127.0.0.1 (no mDNS) with one table; `RawClient` speaks
frames by hand over a real socket, so tests can send what no honest client would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

from p2pdice.core.advert import socket_url
from p2pdice.core.auth import sign_auth
from p2pdice.core.codec import encode
from p2pdice.core.messages import Message, sign_message
from p2pdice.core.pake import (
    ENTROPY_BYTES,
    Binding,
    JoinerAnswer,
    joiner_answer,
    password_verifier,
)
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.net.hostapp import HostedTable, HostService, TableConfig
from p2pdice.net.server import Limits
from p2pdice.net.tls import client_context

#: What must never reach a peer in an error frame: a traceback or a path on the host.
LEAK = re.compile(r"Traceback|File \"|\.py\b|/home/|/tmp/|/work/|/usr/|site-packages|line \d+")


@contextlib.asynccontextmanager
async def hosted(
    home: Path,
    *,
    rules: Rules | None = None,
    cpu: list[str] | None = None,
    password: str | None = None,
    limits: Limits | None = None,
    name: str = "wire test",
    wait_cpu: float = 5.0,
) -> AsyncIterator[tuple[HostService, HostedTable]]:
    service = HostService(home=home, bind="127.0.0.1", advertise=False, limits=limits)
    await service.start()
    try:
        table = await service.open_table(
            TableConfig(name=name, rules=rules or Rules(seats=2), cpu=cpu or [], password=password)
        )
        # The host's CPUs sit down when the start is due, after the people (their seats are
        # kept till then); when it is due at once (every seat a CPU), they join over their
        # in-process links as soon as the loop runs.
        for _ in range(int(wait_cpu * 100)):
            if not table.host.start_due() or len(table.host.state.joins) >= len(cpu or []):
                break
            await asyncio.sleep(0.01)
        yield service, table
    finally:
        await service.stop()


def url_of(service: HostService, table: HostedTable) -> str:
    return socket_url(f"127.0.0.1:{service.port}", table.path)


class Closed(Exception):
    """The host closed the WebSocket."""


class RawClient:
    """One WebSocket to a table, driven frame by frame."""

    def __init__(self, http: aiohttp.ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
        self.http = http
        self.ws = ws
        self.received: list[dict[str, Any]] = []  #: every frame read, in order
        self.challenge: dict[str, Any] | None = None

    @classmethod
    async def connect(
        cls,
        url: str,
        *,
        read_challenge: bool = True,
        source: str | None = None,
        autoping: bool = True,
    ) -> RawClient:
        """`source`: the local address to connect from (any 127.x.y.z on loopback), to play
        another machine than 127.0.0.1; `autoping` off hands the test the host's pongs."""
        # TLS as every client speaks it; a raw client pins nothing (tests send what they like).
        local = {"local_addr": (source, 0)} if source else {}
        connector = aiohttp.TCPConnector(ssl=client_context(), **local)  # type: ignore[arg-type]
        http = aiohttp.ClientSession(connector=connector)
        try:
            ws = await http.ws_connect(url, max_msg_size=0, heartbeat=None, autoping=autoping)
        except BaseException:
            await http.close()
            raise
        client = cls(http, ws)
        if read_challenge:
            try:
                first = await client.recv()
                assert first["type"] == "challenge", first
            except BaseException:
                await client.close()  # refused before a challenge: no session left open
                raise
            client.challenge = first
        return client

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        await self.http.close()

    async def __aenter__(self) -> RawClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- sending -----------------------------------------------------------------------

    async def send(self, frame: dict[str, Any] | str | bytes) -> None:
        if isinstance(frame, dict):
            await self.ws.send_str(encode(frame).decode("utf-8"))
        elif isinstance(frame, str):
            await self.ws.send_str(frame)
        else:
            await self.ws.send_bytes(frame)

    # ---- receiving ---------------------------------------------------------------------

    async def recv(self, timeout: float = 5.0) -> dict[str, Any]:
        # A deadline, not receive(timeout=), whose timer aiohttp restarts on every ping or
        # pong: a host that chatters must not keep a test waiting for ever.
        async with asyncio.timeout(timeout):
            msg = await self.ws.receive()
        if msg.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            frame = json.loads(msg.data)
            self.received.append(frame)
            return frame
        raise Closed(f"{msg.type!r} {msg.data!r} {msg.extra!r}")

    async def recv_type(self, *kinds: str, timeout: float = 5.0) -> dict[str, Any]:
        """The next frame of one of `kinds`, skipping entries and status frames."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            frame = await self.recv(max(0.01, deadline - loop.time()))
            if frame["type"] in kinds:
                return frame

    async def error(self, timeout: float = 5.0) -> dict[str, Any]:
        return await self.recv_type("error", timeout=timeout)

    async def closed(self, timeout: float = 5.0) -> list[dict[str, Any]]:
        """Read until the host closes the socket; the frames read on the way."""
        frames: list[dict[str, Any]] = []
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            left = deadline - loop.time()
            if left <= 0:
                raise AssertionError(f"the host did not close the socket; read {frames}")
            try:
                frames.append(await self.recv(left))
            except Closed:
                return frames

    def errors(self) -> list[dict[str, Any]]:
        return [f for f in self.received if f["type"] == "error"]


# ---- frames an honest client would build --------------------------------------------------


def join_message(
    key: SigningKey,
    challenge: dict[str, Any],
    *,
    head: bytes,
    name: str = "raw",
    seat: int | None = None,
    cpu: bool = False,
) -> Message:
    return sign_message(
        key,
        kind="join",
        table=bytes.fromhex(challenge["table"]),
        seat=challenge["seat"] if seat is None else seat,
        counter=0,
        head=head,
        key=key.public.hex(),
        name=name,
        cpu=cpu,
        host_run=False,
        host=challenge["host"],
        nonce=challenge["nonce"],
    )


def unsigned_join(
    key: SigningKey, challenge: dict[str, Any], *, head: bytes, name: str, cpu: bool = False
) -> dict[str, Any]:
    """A join whose name the signer refuses to build (sign_message checks shapes): signed by hand."""
    from p2pdice.core.hashing import Tag

    body = {
        "type": "join",
        "table": challenge["table"],
        "seat": challenge["seat"],
        "counter": 0,
        "head": head.hex(),
        "key": key.public.hex(),
        "name": name,
        "cpu": cpu,
        "host_run": False,
        "host": challenge["host"],
        "nonce": challenge["nonce"],
    }
    return {"body": body, "sig": key.sign(Tag.SIG_MESSAGE, body).hex()}


def join_frame(
    key: SigningKey,
    challenge: dict[str, Any],
    *,
    head: bytes,
    name: str = "raw",
    password: str | None = None,
    proof: bytes | None = None,
    pake: bytes | None = None,
    work: int | None = None,
) -> dict[str, Any]:
    """A join frame; with `password`, the joiner's side of the challenge's password exchange
    (SPEC.md 3.4), otherwise the raw `pake` message, `proof` and proof of `work` given."""
    if password is not None:
        answer = answer_for(password, challenge, key)
        pake, proof, work = answer.message, answer.proof, answer.work
    msg = join_message(key, challenge, head=head, name=name)
    return {
        "type": "join",
        "msg": msg.to_json(),
        "pake": pake.hex() if pake else None,
        "proof": proof.hex() if proof else None,
        "work": work,
    }


def binding_for(challenge: dict[str, Any], key: SigningKey) -> Binding:
    """What a join by `key` answering `challenge` binds its password attempt to."""
    return Binding(
        bytes.fromhex(challenge["table"]),
        bytes.fromhex(challenge["host"]),
        bytes.fromhex(challenge["nonce"]),
        key.public,
    )


def answer_for(password: str, challenge: dict[str, Any], key: SigningKey) -> JoinerAnswer:
    """What an honest joiner answers to `challenge`'s password exchange."""
    table = bytes.fromhex(challenge["table"])
    return joiner_answer(
        password_verifier(password, table),
        secrets.token_bytes(ENTROPY_BYTES),
        bytes.fromhex(challenge["pake"]),
        binding_for(challenge, key),
    )


def auth_frame(key: SigningKey, challenge: dict[str, Any]) -> dict[str, Any]:
    auth = sign_auth(
        key,
        table=bytes.fromhex(challenge["table"]),
        host=bytes.fromhex(challenge["host"]),
        nonce=bytes.fromhex(challenge["nonce"]),
    )
    return {"type": "auth", "auth": auth}


def assert_no_leak(frames: list[dict[str, Any]]) -> None:
    """No error frame carries a traceback or a path of the host's machine."""
    for frame in frames:
        if frame.get("type") == "error":
            assert not LEAK.search(frame["detail"]), frame
