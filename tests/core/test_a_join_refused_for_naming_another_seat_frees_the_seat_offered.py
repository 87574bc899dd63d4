"""SPEC.md 10.2, "A refused answer": after `TABLE_FULL`, `SEAT_TAKEN` or `LOBBY_CHURN` the
seat offered to a connection is no longer reserved for it, whichever check refused the join:
a join naming another seat than the one its challenge offered (refused before the table
machine sees it) frees the offer as a seat taken meanwhile does, so the next connection is
offered that seat at once instead of after the refused connection's handshake ends."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable, Rejected
from p2pdice.core.host_link import answer_challenge, challenge_frame
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from tests.support.wire import join_message


def test_a_join_naming_another_seat_frees_the_seat_offered() -> None:
    host = HostTable(key=SigningKey(b"\x01" * 32), name="t", rules=Rules(seats=2), nonce=b"n" * 16)
    offer = challenge_frame(host, "a", b"\x02" * 16)
    assert offer["seat"] == 0
    joiner = SigningKey(b"\x03" * 32)
    wrong = join_message(joiner, offer, head=host.head, seat=1)
    frame = {"type": "join", "msg": wrong.to_json(), "pake": None, "proof": None, "work": None}
    (refused,) = answer_challenge(host, "a", frame, 0.0)
    assert isinstance(refused, Rejected) and refused.reason == Reason.SEAT_TAKEN
    assert challenge_frame(host, "b", b"\x04" * 16)["seat"] == 0  # offered again at once
    # The refused connection holds no seat now: answering again gets TABLE_FULL.
    right = join_message(joiner, offer, head=host.head)
    frame = {"type": "join", "msg": right.to_json(), "pake": None, "proof": None, "work": None}
    (refused,) = answer_challenge(host, "a", frame, 0.0)
    assert isinstance(refused, Rejected) and refused.reason == Reason.TABLE_FULL
