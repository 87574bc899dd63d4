"""The host's side of the handshake (core/host_link.py), which the socket server, the
in-memory tables and the core tests' link all drive: its frames and its refusals."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable, Rejected, Seated
from p2pdice.core.host_link import answer_challenge, challenge_frame, welcome_frame
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.version import PROTOCOL_VERSION


def _host() -> HostTable:
    return HostTable(key=SigningKey(b"\x01" * 32), name="t", rules=Rules(), nonce=b"\x02" * 16)


def test_the_challenge_names_the_protocol_the_log_and_the_offered_seat() -> None:
    host = _host()
    frame = challenge_frame(host, 1, b"\x03" * 16)
    assert (frame["type"], frame["protocol"], frame["entries"]) == (
        "challenge",
        PROTOCOL_VERSION,
        len(host.entries),
    )
    assert (frame["seat"], frame["nonce"], frame["table"]) == (0, "03" * 16, host.table_id.hex())
    watcher = challenge_frame(host, 2, b"\x04" * 16, reserve=False)
    assert watcher["seat"] is None


def test_a_watcher_is_welcomed_without_a_seat() -> None:
    host = _host()
    challenge_frame(host, 1, b"\x03" * 16, reserve=False)
    (seated,) = answer_challenge(host, 1, {"type": "spectate"}, 0.0)
    assert isinstance(seated, Seated)
    assert welcome_frame(seated) == {"type": "welcome", "seat": None, "proof": None}


def test_anything_but_an_answer_to_the_challenge_is_refused_and_changes_nothing() -> None:
    host = _host()
    challenge_frame(host, 1, b"\x03" * 16)
    (refused,) = answer_challenge(host, 1, {"type": "send", "msg": {}}, 0.0)
    assert isinstance(refused, Rejected)
    assert (refused.conn, refused.reason, refused.ref) == (1, Reason.WRONG_PHASE, None)
    assert host.free_seat() == 1  # seat 0 is still offered to the connection
