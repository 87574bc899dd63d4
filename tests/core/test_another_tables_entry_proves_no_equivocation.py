"""One host key signs the entries of every table its host runs: an entry of another table,
shown at this one, must never read as proof that this table's host equivocated (SPEC.md 2.4,
6.1). The entry signature names its table, so it fails the signature check here instead."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable
from p2pdice.core.peer import Alarm, Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import host_signature_ok, is_equivocation

HOST = SigningKey(b"\x11" * 32)


def _table(nonce: bytes) -> HostTable:
    return HostTable(key=HOST, name="Kitchen", rules=Rules(seats=2), nonce=nonce)


def test_the_first_entry_of_another_table_of_the_same_host_is_not_equivocation() -> None:
    ours, theirs = _table(b"\x01" * 16), _table(b"\x02" * 16)
    assert ours.table_id != theirs.table_id
    ours_0, theirs_0 = ours.entries[0], theirs.entries[0]
    assert ours_0.seq == theirs_0.seq == 0 and ours_0.line != theirs_0.line
    assert host_signature_ok(theirs_0, HOST.public, theirs.table_id)
    assert not host_signature_ok(theirs_0, HOST.public, ours.table_id)
    assert not is_equivocation(ours_0, theirs_0, HOST.public, ours.table_id)

    peer = Peer(key=SigningKey(b"\x22" * 32))
    assert not [o for o in peer.receive_line(ours_0.line) if isinstance(o, Alarm)]
    alarms = [o for o in peer.receive_line(theirs_0.line) if isinstance(o, Alarm)]
    assert [a.reason for a in alarms] == [Reason.BAD_SIGNATURE]
    assert Reason.EQUIVOCATION not in [a.reason for a in peer.alarms]
