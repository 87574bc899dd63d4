"""What a core client refuses, and what it does when the host refuses it: a challenge from
another table or host key, a welcome without the password's proof, a taken name, a seat
the host no longer holds, names kept for CPU players, and which refusals are fatal."""

from __future__ import annotations

from typing import Any

import pytest

from p2pdice.core.client import FATAL, ClientConnection
from p2pdice.core.client_intents import (
    Fatal,
    ForgetSeat,
    OpenStore,
    Reconnect,
    SavedSeat,
    SendFrame,
    SendMessage,
    StartTimer,
    Timer,
)
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.version import PROTOCOL_VERSION
from tests.support.client_link import Link

PASSWORD = "open sesame"


def client(n: int = 0, **kwargs: Any) -> ClientConnection:
    kwargs.setdefault("name", f"P{n}")
    kwargs.setdefault("cpu", True)
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), **kwargs)


def refused_challenge(link: Link, conn: int, who: ClientConnection, detail: str) -> None:
    link.connect(conn, who)
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_CHALLENGE, who.fatal
    assert detail in who.fatal[1]
    assert link.intents[conn] == [Fatal(*who.fatal)]  # nothing sent, no records opened
    assert who.peer is None


def test_a_challenge_from_another_table_is_refused() -> None:
    link = Link.table(Rules(seats=2))
    refused_challenge(link, 1, client(expect_table=b"\x01" * 32), "another table")


def test_a_challenge_with_another_host_key_is_refused() -> None:
    link = Link.table(Rules(seats=2))
    who = client(expect_host=b"\x02" * 32)
    refused_challenge(link, 1, who, "host key changed")


def test_a_host_key_other_than_the_advertised_one_is_refused() -> None:
    link = Link.table(Rules(seats=2))
    refused_challenge(link, 1, client(expect_host_prefix="00" * 8), "advertised")


def test_a_log_of_another_table_than_the_challenge_named_halts_the_client() -> None:
    real, other = Link.table(Rules(seats=2)), Link.table(Rules(seats=3), seed=8)
    who = client()
    challenge = real.host.challenge(1, b"\x05" * 16)
    who.receive_frame(
        {"type": "challenge", "protocol": PROTOCOL_VERSION, "entries": 1, **challenge}, 0
    )
    asked = who.store_opened(None)  # it asks for the log; another table's comes back
    assert SendFrame("sync", {"from": 0}) in asked
    out = who.receive_entry_line(other.host.lines()[0], 0)
    assert Fatal(Reason.BAD_CHALLENGE, "the log does not belong to the table the host named") in out
    assert who.fatal == (
        Reason.BAD_CHALLENGE,
        "the log does not belong to the table the host named",
    )
    assert who.peer is not None and who.peer.halted
    assert not [i for i in out if isinstance(i, SendFrame) and i.kind == "join"]


def test_a_welcome_without_the_hosts_password_proof_is_an_impostor() -> None:
    link = Link.table(Rules(seats=2), password=PASSWORD)

    def strip_proof(conn: int, frame: dict[str, Any]) -> dict[str, Any]:
        return {**frame, "proof": None} if frame["type"] == "welcome" else frame

    link.rewrite = strip_proof
    who = client(password=PASSWORD)
    link.connect(1, who)
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_PASSWORD
    assert "impostor" in who.fatal[1]
    assert not who.connected and not who.resumed


def test_a_wrong_password_is_fatal() -> None:
    link = Link.table(Rules(seats=2), password=PASSWORD)
    who = client(password="guess")
    link.connect(1, who)
    assert who.fatal == (Reason.BAD_PASSWORD, "wrong password")
    assert not who.connected


def test_a_password_table_without_a_password_is_fatal_before_any_join() -> None:
    link = Link.table(Rules(seats=2), password=PASSWORD)
    who = client()
    link.connect(1, who)
    assert who.fatal == (Reason.BAD_PASSWORD, "this table needs a password")
    assert not link.sent(1, "join")


def test_a_challenge_asking_for_a_password_without_an_exchange_is_refused() -> None:
    link = Link.table(Rules(seats=2), password=PASSWORD)

    def no_exchange(conn: int, frame: dict[str, Any]) -> dict[str, Any]:
        return {**frame, "pake": None} if frame["type"] == "challenge" else frame

    link.rewrite = no_exchange
    who = client(password=PASSWORD)
    link.connect(1, who)
    assert who.fatal is not None and who.fatal[0] == Reason.BAD_CHALLENGE
    assert "no password exchange" in who.fatal[1]


def test_a_taken_name_is_signed_again_with_the_next_free_one() -> None:
    """Two joiners called Hana answer their challenges before either join is posted: the
    second is refused NAME_TAKEN and signs again, on the same challenge, as "Hana 2"."""
    link = Link.table(Rules(seats=3))
    ann, bob = client(0, name="Hana"), client(1, name="Hana")
    link.holding = True  # both read the log before either join reaches the host
    link.connect(1, ann)
    link.connect(2, bob)
    link.release()  # the challenges, then (as each catches up) the joins
    assert ann.connected and bob.connected
    assert [ann.name, bob.name] == ["Hana", "Hana 2"]
    assert not [r for r, _ in bob.errors if r == Reason.NAME_TAKEN]  # a retry, not an error
    joins = [j.fields["msg"]["body"]["name"] for j in link.sent(2, "join")]  # type: ignore[union-attr]
    assert joins == ["Hana", "Hana 2"]
    assert bob.fatal is None and bob.seat == 1


def test_a_name_kept_for_cpu_players_is_refused_before_joining() -> None:
    link = Link.table(Rules(seats=2))
    who = client(name="CPU Bob", cpu=False)
    link.connect(1, who)
    assert who.fatal is not None and who.fatal[0] == Reason.NAME_RESERVED
    assert not link.sent(1, "join")


def test_a_seat_the_host_no_longer_holds_is_forgotten_and_joined_afresh() -> None:
    link = Link.table(Rules(seats=2))
    host = link.host.key.public.hex()
    link.saved = {1: SavedSeat(seat=0, seat_host=host), 2: SavedSeat(seat=0, seat_host=host)}
    who = client()
    link.connect(1, who)  # it authenticates for the saved seat: the host holds none for it
    assert link.sent(1, "auth") and not link.sent(1, "join")
    assert ForgetSeat() in link.intents[1] and Reconnect() in link.intents[1]
    assert who.reconnect_requested and who.fatal is None and who.seat is None
    link.drop(1)
    link.connect(2, who)
    assert link.sent(2, "join") and who.connected and who.seat == 0


def test_a_saved_seat_of_another_host_is_not_authenticated_for() -> None:
    link = Link.table(Rules(seats=2))
    link.saved = {1: SavedSeat(seat=1, seat_host="ab" * 32)}
    who = client()
    link.connect(1, who)
    assert not link.sent(1, "auth") and link.sent(1, "join")


@pytest.mark.parametrize("reason", sorted(FATAL))
def test_a_refusal_retrying_cannot_help_is_fatal(reason: Reason) -> None:
    who = joined()
    out = who.receive_frame(error(reason), 0)
    if reason == Reason.NOT_SEATED:  # only while authenticating is it the seat's loss
        assert out == [Fatal(reason, "no")]
    assert who.fatal == (reason, "no")


@pytest.mark.parametrize("reason", [Reason.WRONG_PHASE, Reason.NOT_YOUR_TURN, Reason.REPLAY])
def test_other_refusals_are_recorded_not_fatal(reason: Reason) -> None:
    who = joined()
    assert who.receive_frame(error(reason), 0) == []
    assert who.fatal is None and (reason, "no") in who.errors


def test_a_burst_of_rate_limit_refusals_arms_one_resend() -> None:
    who = joined()
    arms = [who.receive_frame(error(Reason.RATE_LIMITED), 0) for _ in range(5)]
    assert arms == [[StartTimer(Timer.RESEND, 1.0)], [], [], [], []]
    assert who.timer_fired(Timer.RESEND) == []  # nothing of ours is unconfirmed
    assert who.receive_frame(error(Reason.RATE_LIMITED), 2) == [StartTimer(Timer.RESEND, 1.0)]


def test_a_refused_message_is_dropped_from_pending_and_recorded() -> None:
    link = Link.table(Rules(seats=2, starting_dice=1))
    link.saved = {1: SavedSeat(), 2: SavedSeat()}
    link.holding = True
    link.connect(1, client(0))
    link.connect(2, client(1))
    link.release()
    who = link.clients[1]
    assert who.peer is not None and who.pending_kinds() == set()
    from p2pdice.core.game import Challenge

    sent = who.act(Challenge(who.seat or 0), 5.0)  # no bid to call: the host refuses it
    (message,) = [i.message for i in sent if isinstance(i, SendMessage)]
    ref = message.digest().hex()
    out = who.receive_frame({**error(Reason.NO_BID_TO_CHALLENGE), "ref": ref}, 6.0)
    assert [type(i).__name__ for i in out] == ["RecordRefused"]
    assert who.pending_kinds() == set() and who.fatal is None
    assert who.sent_log[-1] == {"at": 6000, "ref": ref, "rejected": "NO_BID_TO_CHALLENGE"}


def test_a_welcome_nobody_asked_for_changes_nothing() -> None:
    who = client()
    assert who.receive_frame({"type": "welcome", "seat": 0, "proof": None}, 0) == []
    assert not who.connected and who.errors == [
        (Reason.BAD_CHALLENGE, "a welcome we did not ask for")
    ]


def test_an_unreadable_challenge_is_fatal() -> None:
    who = client()
    out = who.unreadable_frame('{"protocol":2,"type":"challenge"}', Reason.SCHEMA, "protocol")
    assert [type(i) for i in out] == [Fatal] and who.fatal is not None
    assert "another protocol version" in who.fatal[1]


def test_records_that_cannot_be_opened_stop_the_client_with_the_reason() -> None:
    link = Link.table(Rules(seats=2))
    who = client()
    link.clients[1] = who
    challenge = link.host.challenge(1, b"\x05" * 16)
    frame = {"type": "challenge", "protocol": PROTOCOL_VERSION, "entries": 1, **challenge}
    assert who.receive_frame(frame, 0) == [OpenStore(link.host.table_id)]
    out = who.store_unavailable("Not a directory")
    assert who.fatal == (Reason.INTERNAL, "could not answer the host's challenge: Not a directory")
    assert out == [Fatal(*who.fatal)]


def test_a_write_that_fails_stops_the_seat_for_good() -> None:
    who = joined()
    out = who.storage_failed("a sent message", "No space left on device")
    assert [type(i).__name__ for i in out] == ["Stopped"]
    assert who.stopped and who.fatal is not None and who.fatal[0] == Reason.INTERNAL
    assert who.receive_frame(error(Reason.RATE_LIMITED), 0) == []  # nothing more is done


# ---- helpers -----------------------------------------------------------------------------------


def joined() -> ClientConnection:
    link = Link.table(Rules(seats=3))
    who = client()
    link.connect(1, who)
    assert who.connected and who.resumed
    return who


def error(reason: Reason) -> dict[str, Any]:
    return {"type": "error", "reason": str(reason), "detail": "no", "ref": None}


def test_frames_of_each_kind_reach_their_handler() -> None:
    who = joined()
    status = {
        "type": "status",
        "phase": "lobby",
        "connected": [0],
        "turn": None,
        "deadline_ms": 1500,
        "bank_ms": None,
    }
    (shown,) = who.receive_frame(status, 0)
    assert shown.deadline_in == 1.5 and shown.connected == (0,)  # type: ignore[union-attr]
    assert who.receive_frame({"type": "accepted", "ref": "00" * 32, "seq": None}, 0) == []
    idle = {"type": "closing", "reason": "idle", "detail": "no sync for 120 s"}
    assert who.receive_frame(idle, 0) == []
    assert who.errors[-1] == (Reason.INTERNAL, "the host closed: no sync for 120 s")
    assert SendFrame("sync", {"from": 2}).text() == '{"from":2,"type":"sync"}'


def test_a_join_refused_with_how_long_to_wait_is_retried_after_that_long() -> None:
    """A lobby that refuses a join for its address's churn bound (RATE_LIMITED "retry in N s",
    SPEC.md 10.1) or a busy password table (PASSWORD_THROTTLED, 3.4): the client reconnects
    after N s, saying so in the host's words, instead of waiting for a welcome that will not
    come."""
    for reason, detail, busy in (
        ("RATE_LIMITED", "retry in 9 s: your address joined too often", "joined too often"),
        ("PASSWORD_THROTTLED", "retry in 4 s: the table is busy", "the table is busy"),
    ):
        link = Link.table(Rules(seats=2))

        def refuse(conn: int, frame: dict[str, Any], r: str = reason, d: str = detail) -> Any:
            if frame["type"] != "welcome":
                return frame
            return {"type": "error", "reason": r, "detail": d, "ref": None}

        link.rewrite = refuse
        who = client(0)
        link.connect(1, who)
        assert link.sent(1, "join"), link.intents[1]
        assert isinstance(link.intents[1][-1], Reconnect) and who.reconnect_requested
        wait = int(detail.split()[2])
        assert who.reconnect_delay == wait and who.fatal is None
        assert who.password_retry.notice is not None
        assert (
            busy in who.password_retry.notice
            and f"retrying in {wait} s" in who.password_retry.notice
        )
