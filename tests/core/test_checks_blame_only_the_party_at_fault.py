"""Host-run seats and who may claim them, how a stopped or all-forfeit game ends, and whom the
checks blame: a moot commitment, a forged entry, our own malformed message."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.bids import Bid
from p2pdice.core.errors import Reason
from p2pdice.core.game import Challenge, Deal, Forfeit, Phase, PlaceBid, apply, new_game
from p2pdice.core.host import HostTable, Posted, Rejected
from p2pdice.core.peer import Alarm, Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import build_entry, parse_entry
from p2pdice.core.verify import verify_lines
from tests.support.cheats import Game


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
    challenge = host.challenge(conn, b"\x03" * 16)
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


def test_stopping_between_the_final_result_and_game_over_records_a_finished_game() -> None:
    table = LocalTable(
        Rules(seats=2, starting_dice=1), [load_bot("medium")] * 2, rng=random.Random(5)
    )
    table.seat_everyone()
    host = table.host
    for _ in range(200):  # stop right after the final result, before game over
        if host.state.game is not None and host.state.game.phase == Phase.GAME_OVER:
            break
        table.run_until_idle()
        table.advance_clock()
    if host.phase.value != "over":
        outputs = host.abandon(table.now)
        assert outputs and isinstance(outputs[0], Posted)
    report = verify_lines(host.lines())
    assert report.ok and report.ended == "finished"


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
    blamed = verify_lines(lines, mine=sent[victim])
    assert blamed.failure is not None and blamed.failure.reason == Reason.MESSAGE_DROPPED
    broken = verify_lines(lines, mine=[{"msg": {"body": 1}}])
    assert broken.failure is not None and broken.failure.reason == Reason.SCHEMA


def test_a_different_entry_without_the_hosts_signature_is_not_called_equivocation() -> None:
    g = Game(seed=2).start()
    peer = g.follower()
    held = parse_entry(g.host.lines()[3])
    stranger = SigningKey(b"\x09" * 32)
    forged = build_entry(stranger, held.seq, held.prev, event=held.event, msg=held.msg)
    alarms = [o for o in peer.receive_line(forged.line) if isinstance(o, Alarm)]
    assert alarms[0].reason == Reason.BAD_SIGNATURE
    signed = g.forge(seq=held.seq, prev=held.prev, event={"type": "leave", "seat": 0})
    peer2 = g.follower()
    alarms = [o for o in peer2.receive_line(signed.line) if isinstance(o, Alarm)]
    assert alarms[0].reason == Reason.EQUIVOCATION


def test_a_game_where_the_last_survivors_forfeit_together_ends_without_a_winner() -> None:
    state = apply(new_game(Rules(seats=2, first_starter="seat0")), Deal())
    state = apply(state, PlaceBid(0, Bid(1, 2)))
    state = apply(state, Challenge(1))
    state = apply(state, Forfeit((0, 1)))
    assert state.phase == Phase.GAME_OVER
    assert state.winner is None and state.ranking == (0, 1)


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
