"""A core host table and signed joins to it, for tests of who may sit down (SPEC.md 10.5)."""

from __future__ import annotations

import random

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable
from p2pdice.core.host_outputs import Output, Rejected
from p2pdice.core.peer import Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey


def names_table(seats: int, seed: int) -> tuple[HostTable, random.Random]:
    """An open table of `seats` seats, and the seeded source its joiners' keys come from."""
    rng = random.Random(seed)
    host = HostTable(
        key=SigningKey(rng.randbytes(32)), name="names", rules=Rules(seats=seats),
        nonce=rng.randbytes(16), host_cpu=0, password=None, now=0.0,
    )  # fmt: skip
    return host, rng


def join(
    host: HostTable, rng: random.Random, conn: int, name: str, *, cpu: bool = False
) -> list[Output]:
    """A new player, caught up on the log, answers a challenge with a signed join as `name`."""
    peer = Peer(key=SigningKey(rng.randbytes(32)))
    for line in host.lines():
        peer.receive_line(line)
    challenge = host.challenge(conn, rng.randbytes(16))
    signed = peer.make_join(challenge, name=name, cpu=cpu)
    return host.join(conn, signed.to_json(), None, 0.0, trusted=True)


def refusal(outputs: list[Output]) -> Reason | None:
    """The reason the join was refused for, or None when it was taken."""
    refused = [o.reason for o in outputs if isinstance(o, Rejected)]
    return refused[0] if refused else None
