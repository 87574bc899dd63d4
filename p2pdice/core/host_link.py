"""The host's side of a client's handshake (protocol/SPEC.md 10.2), sans-I/O: the frames a
connection is sent and the host calls its answers make, whatever carries them.

A connection is sent `challenge_frame`; until it is welcomed, each frame it sends goes to
`answer_challenge` (join, auth or spectate; anything else is refused), whose outputs include
`Seated` when it gets in, which `welcome_frame` turns into the welcome. The socket server
(net/server.py), the in-memory tables of `simulate --protocol` (bots/protosim.py) and the
core tests' link (tests/support/client_link.py) all drive these, so a host of any kind speaks
the same handshake.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import Reason
from .host import HostTable
from .host_outputs import Conn, Output, Rejected, Seated
from .version import PROTOCOL_VERSION


def challenge_frame(
    host: HostTable,
    conn: Conn,
    nonce: bytes,
    *,
    reserve: bool = True,
    pake_entropy: bytes = b"",
    host_run: bool = False,
) -> dict[str, Any]:
    """The frame a new connection is sent first (see HostTable.challenge for `reserve`,
    `pake_entropy` and `host_run`): the host's challenge, the protocol it speaks and the
    log's length."""
    challenge = host.challenge(
        conn, nonce, reserve=reserve, pake_entropy=pake_entropy, host_run=host_run
    )
    return {
        "type": "challenge",
        "protocol": PROTOCOL_VERSION,
        "entries": len(host.entries),
        **challenge,
    }


def _hex(value: str | None) -> bytes | None:
    return None if value is None else bytes.fromhex(value)


def answer_challenge(
    host: HostTable,
    conn: Conn,
    frame: Mapping[str, Any],
    now: float,
    *,
    source: str = "",
    trusted: bool = False,
) -> list[Output]:
    """A frame from a connection that has not been welcomed yet, already shape-checked (the
    wire's `TO_HOST` shapes): what the host does with it. `source` and `trusted` are as for
    HostTable.join (the peer's address; an in-process connection)."""
    kind = frame["type"]
    if kind == "join":
        return host.join(
            conn,
            frame["msg"],
            _hex(frame["proof"]),
            now,
            pake=_hex(frame["pake"]),
            work=frame["work"],
            source=source,
            trusted=trusted,
        )
    if kind == "auth":
        return host.authenticate(conn, frame["auth"], now, source=source)
    if kind == "spectate":
        return host.spectate(conn)
    return [
        Rejected(conn, Reason.WRONG_PHASE, "answer the challenge first (join, auth or spectate)")
    ]


def welcome_frame(seated: Seated) -> dict[str, Any]:
    """The frame that lets a connection in: its seat (None: it watches) and, at a table with
    a password, the host's confirmation of the exchange."""
    proof = None if seated.proof is None else seated.proof.hex()
    return {"type": "welcome", "seat": seated.seat, "proof": proof}
