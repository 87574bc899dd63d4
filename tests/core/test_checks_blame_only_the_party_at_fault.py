"""The checks blame only the party at fault: `verify --mine` does not blame a seat for a
commitment another seat's absence made moot, a different entry without the host's signature is
a bad signature (not the host's equivocation), and a malformed message we sign ourselves is our
own bug (a LocalError), never a peer's."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.messages import parse_message
from p2pdice.core.peer import Alarm
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import build_entry, parse_entry
from p2pdice.core.verify import verify_lines
from tests.support.cheats import Game


def test_verify_mine_does_not_blame_a_seat_for_an_attempt_another_seat_aborted() -> None:
    g = Game(seed=3)
    victim, bystander = 2, 0
    g.hold(lambda s, m: s == victim and m.type == "commit" and m.body["attempt"] == 1)
    sent: dict[int, list] = {victim: [], bystander: []}
    original = g.table.on_send

    def record(conn, msg):
        seat = next(s.peer.seat for c, s in g.table.seats.items() if c == conn)
        sent.setdefault(seat, []).append({"at": 0, "msg": msg.to_json()})
        return original(conn, msg) if original else msg

    g.table.on_send = record
    g.start()
    g.tick_to_deadline()
    g.stop_holding()
    g.release()
    g.play()
    lines = g.host.lines()
    assert verify_lines(lines, mine=sent[bystander]).ok  # its attempt-1 commitment was moot
    # The victim's was not moot: the host aborted the attempt blaming its seat. Had the host
    # shown it read it (the record's `read`), the host dropped it; else it never arrived.
    (dropped,) = [
        r["msg"]
        for r in sent[victim]
        if r["msg"]["body"]["type"] == "commit" and r["msg"]["body"]["attempt"] == 1
    ]
    ref = parse_message(dropped).digest().hex()
    blamed = verify_lines(lines, mine=[*sent[victim], {"at": 0, "read": ref}])
    assert blamed.failure is not None and blamed.failure.reason == Reason.MESSAGE_DROPPED
    unheard = verify_lines(lines, mine=sent[victim])
    assert unheard.ok and [u.kind for u in unheard.mine_undelivered] == ["commit"]
    broken = verify_lines(lines, mine=[{"msg": {"body": 1}}])
    assert broken.failure is not None and broken.failure.reason == Reason.SCHEMA


def test_a_different_entry_without_the_hosts_signature_is_not_called_equivocation() -> None:
    g = Game(seed=2).start()
    peer = g.follower()
    held = parse_entry(g.host.lines()[3])
    stranger = SigningKey(b"\x09" * 32)
    forged = build_entry(
        stranger, held.seq, held.prev, event=held.event, msg=held.msg, table=g.host.table_id
    )
    alarms = [o for o in peer.receive_line(forged.line) if isinstance(o, Alarm)]
    assert alarms[0].reason == Reason.BAD_SIGNATURE
    signed = g.forge(seq=held.seq, prev=held.prev, event={"type": "leave", "seat": 0})
    peer2 = g.follower()
    alarms = [o for o in peer2.receive_line(signed.line) if isinstance(o, Alarm)]
    assert alarms[0].reason == Reason.EQUIVOCATION


def test_signing_a_malformed_message_is_reported_as_our_own_bug() -> None:
    """sign_message checks its own output; a bad field is a LocalError (our bug), not the
    RemoteError a peer's bad message would get."""
    import pytest

    from p2pdice.core.errors import LocalError
    from p2pdice.core.messages import sign_message

    with pytest.raises(LocalError) as info:
        sign_message(
            SigningKey(bytes(32)),
            kind="bid",
            table=bytes(32),
            seat=0,
            counter=1,
            head=bytes(32),
            round=1,
            quantity=99,
            face=3,
        )
    assert info.value.reason == Reason.SCHEMA
