"""The host keeps seats for the CPU players it runs itself: remote joiners cannot take them nor
claim to be host-run, and the table starts once the host's own players have sat down."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.host import HostTable, Posted, Rejected
from p2pdice.core.peer import Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.verify import verify_lines


def _host(host_cpu: int, seats: int = 3) -> HostTable:
    return HostTable(
        key=SigningKey(b"\x01" * 32),
        name="t",
        rules=Rules(seats=seats),
        nonce=b"\x02" * 16,
        host_cpu=host_cpu,
    )


def _join(host: HostTable, conn: str, key: bytes, *, host_run: bool, trusted: bool) -> list:
    peer = Peer(key=SigningKey(key))
    for line in host.lines():
        peer.receive_line(line)
    # Only the host's own in-process CPUs are challenged as host-run (TableServer.open).
    challenge = host.challenge(conn, b"\x03" * 16, host_run=host_run and trusted)
    if challenge["seat"] is None:
        return [Rejected(conn, Reason.TABLE_FULL, "no seat")]
    msg = peer.make_join(challenge, name=conn, cpu=host_run, host_run=host_run)
    return host.join(conn, msg.to_json(), None, 0.0, trusted=trusted)


def test_a_remote_join_cannot_claim_to_be_run_by_the_host() -> None:
    host = _host(host_cpu=1)
    outputs = _join(host, "remote", b"\x04" * 32, host_run=True, trusted=False)
    assert [o.reason for o in outputs if isinstance(o, Rejected)] == [Reason.BAD_CHALLENGE]
    assert len(host.entries) == 1


def test_seats_are_kept_for_the_hosts_cpu_players_and_the_table_starts() -> None:
    host = _host(host_cpu=1, seats=2)
    first = _join(host, "p1", b"\x05" * 32, host_run=False, trusted=False)
    assert any(isinstance(o, Posted) for o in first)
    second = _join(host, "p2", b"\x06" * 32, host_run=False, trusted=False)
    assert [o.reason for o in second if isinstance(o, Rejected)] == [Reason.TABLE_FULL]
    cpu = _join(host, "cpu", b"\x07" * 32, host_run=True, trusted=True)
    assert any(isinstance(o, Posted) for o in cpu)
    assert host.state.roster and host.state.phase != "lobby"  # started, nothing lost
    assert verify_lines(host.lines(), partial=True).ok
