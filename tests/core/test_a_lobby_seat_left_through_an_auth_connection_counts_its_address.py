"""A lobby leave is counted against the address it came from also when the seat's last
connection was an `auth` (a second connection of the same key, SPEC.md 10.2 "Several
connections for one seat"): its address was not recorded, so once the table's lobby budget
was spent (SPEC.md 3.2) a churner that left through such a connection could join again from
that address with a fresh key, where every other leaver's address is refused."""

from __future__ import annotations

from p2pdice.core.auth import sign_auth
from p2pdice.core.errors import Reason
from p2pdice.core.host_link import answer_challenge
from p2pdice.core.lobby_churn import LOBBY_LEAVE_BUDGET
from p2pdice.core.signing import SigningKey
from tests.core.test_lobby_churn_writes_a_fixed_bound_into_the_log import (
    join,
    open_table,
    refused,
)


def test_an_address_that_left_through_an_auth_is_refused_once_the_budget_is_spent() -> None:
    host = open_table(4)
    conn = 0
    for n in range(LOBBY_LEAVE_BUDGET - 1):  # others spend the budget but one leave
        conn += 1
        assert (
            refused(join(host, conn, SigningKey(bytes([n + 1]) * 32), f"10.2.0.{n}", "x")) is None
        )
        host.disconnected(conn, 0.0)
    churner, source = SigningKey(b"\x77" * 32), "10.9.9.9"
    conn += 1
    first = conn
    assert refused(join(host, first, churner, source, "ghost")) is None
    conn += 1  # the same key's second connection, which authenticates
    challenge = host.challenge(conn, conn.to_bytes(16, "big"), reserve=False)
    auth = sign_auth(
        churner,
        table=host.table_id,
        host=host.key.public,
        nonce=bytes.fromhex(challenge["nonce"]),
    )
    frame = {"type": "auth", "auth": auth}
    assert refused(answer_challenge(host, conn, frame, 0.0, source=source)) is None
    host.disconnected(first, 0.0)  # the join's connection goes: the seat stays (the auth holds it)
    host.disconnected(conn, 0.0)  # the last one goes: the seat is left, the budget spent
    assert [e.kind for e in host.entries].count("event:leave") == LOBBY_LEAVE_BUDGET
    conn += 1
    again = refused(join(host, conn, SigningKey(b"\x78" * 32), source, "ghost 2"))
    assert again is not None and again.reason == Reason.LOBBY_CHURN, again
    conn += 1  # a newcomer from a new address still joins
    assert refused(join(host, conn, SigningKey(b"\x79" * 32), "10.3.0.1", "friend")) is None
