"""Lobby churn cannot grow the permanent log past a fixed bound, whatever the number of
addresses and keys churning (SPEC.md 3.2, p2pdice/core/lobby_churn.py), and friends who drop
in and out a few times are never refused."""

from __future__ import annotations

import random
from pathlib import Path

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable
from p2pdice.core.host_outputs import Output, Rejected
from p2pdice.core.lobby_churn import (
    LOBBY_CHURN_WORDS,
    LOBBY_LEAVE_BUDGET,
    LOBBY_SETTLE,
    lobby_leave_cap,
)
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from tests.support.wire import join_message

#: Bytes a lobby can write at most, for any churn (SPEC.md 3.2 states the same figure).
SIX_SEAT_LOBBY_BOUND = 64 * 1024


def open_table(seats: int) -> HostTable:
    rng = random.Random(seats)
    return HostTable(
        key=SigningKey(rng.randbytes(32)), name="churn", rules=Rules(seats=seats),
        nonce=rng.randbytes(16), host_cpu=0, password=None, now=0.0,
    )  # fmt: skip


def join(host: HostTable, conn: int, key: SigningKey, source: str, name: str) -> list[Output]:
    """A stranger from `source` (not trusted) answers a challenge with a signed join."""
    challenge = host.challenge(conn, conn.to_bytes(16, "big"))
    message = join_message(key, challenge, head=host.head, name=name)
    return host.join(conn, message.to_json(), None, 0.0, source=source)


def refused(outputs: list[Output]) -> Rejected | None:
    return next((o for o in outputs if isinstance(o, Rejected)), None)


def kinds(host: HostTable) -> list[str]:
    return [e.kind for e in host.entries]


def test_friends_dropping_in_and_out_are_never_refused_and_the_game_starts() -> None:
    host = open_table(4)
    friends = [(SigningKey(bytes([i + 1]) * 32), f"10.0.0.{i + 1}") for i in range(4)]
    conn = 0
    for _ in range(5):  # three friends drop in and out five times each: 15 leaves
        for i, (key, source) in enumerate(friends[:3]):
            conn += 1
            assert refused(join(host, conn, key, source, f"friend {i}")) is None
            host.disconnected(conn, 0.0)
    for i, (key, source) in enumerate(friends):
        conn += 1
        assert refused(join(host, conn, key, source, f"friend {i}")) is None
    # Every seat is taken; the start waits until the last join has stayed LOBBY_SETTLE s.
    assert host.phase == TablePhase.LOBBY
    assert host.next_deadline(0.0) == LOBBY_SETTLE
    host.tick(LOBBY_SETTLE)
    assert host.phase != TablePhase.LOBBY
    assert kinds(host).count("event:leave") == 15 < LOBBY_LEAVE_BUDGET


def test_a_thousand_addresses_churning_write_a_fixed_bound_and_are_told_why() -> None:
    seats = 6
    host = open_table(seats)
    widest = "\U0001f600" * 24  # the longest name there is: 24 characters of 4 bytes
    reasons: list[Rejected] = []
    for n in range(1000):
        for again in range(2):  # each address joins, leaves, and tries again with a new key
            conn = 2 * n + again + 1
            source = f"10.1.{n // 250}.{n % 250}"
            refusal = refused(join(host, conn, SigningKey(random.randbytes(32)), source, widest))
            host.disconnected(conn, 0.0)
            if refusal is not None:
                reasons.append(refusal)
    leaves = kinds(host).count("event:leave")
    joins = kinds(host).count("msg:join")
    assert leaves == lobby_leave_cap(seats)
    assert joins == leaves
    assert host.phase == TablePhase.LOBBY
    assert {r.reason for r in reasons} == {Reason.LOBBY_CHURN}
    assert reasons[-1].detail == LOBBY_CHURN_WORDS
    size = sum(len(line) + 1 for line in host.lines())
    print(f"\n1000 addresses: {joins} joins, {leaves} leaves, log {size} bytes")
    assert size < SIX_SEAT_LOBBY_BOUND


def test_past_the_budget_a_leaver_is_refused_and_a_newcomer_still_joins() -> None:
    host = open_table(6)
    conn = 0
    for n in range(LOBBY_LEAVE_BUDGET):
        conn += 1
        assert refused(join(host, conn, SigningKey(bytes([n + 1]) * 32), "10.2.0.1", "x")) is None
        host.disconnected(conn, 0.0)
    conn += 1  # the same address with a new key
    returning = refused(join(host, conn, SigningKey(b"\xee" * 32), "10.2.0.1", "x"))
    assert returning is not None and returning.reason == Reason.LOBBY_CHURN
    conn += 1  # a key that left, from a new address
    returning = refused(join(host, conn, SigningKey(b"\x01" * 32), "10.2.0.9", "x"))
    assert returning is not None and returning.reason == Reason.LOBBY_CHURN
    conn += 1
    assert refused(join(host, conn, SigningKey(b"\xef" * 32), "10.2.0.2", "newcomer")) is None


def test_the_spec_states_the_budget_the_host_applies() -> None:
    spec = (Path(__file__).parents[2] / "protocol" / "SPEC.md").read_text(encoding="utf-8")
    assert f"reach {LOBBY_LEAVE_BUDGET} (`LOBBY_LEAVE_BUDGET`)" in spec
    assert f"past {LOBBY_LEAVE_BUDGET}, a join whose key" in spec
    assert f"stayed seated {LOBBY_SETTLE:g} s (`LOBBY_SETTLE`)" in spec


def test_joins_that_leave_at_once_never_start_a_game_with_phantoms() -> None:
    host = open_table(2)
    for conn in (1, 2):  # two phantoms take both seats at once, then go
        key = SigningKey(bytes([conn]) * 32)
        assert refused(join(host, conn, key, f"10.3.0.{conn}", f"ghost {conn}")) is None
    assert host.phase == TablePhase.LOBBY
    host.disconnected(1, 1.0)
    host.disconnected(2, 1.0)
    host.tick(LOBBY_SETTLE)
    assert host.phase == TablePhase.LOBBY
    assert "event:start" not in kinds(host)
