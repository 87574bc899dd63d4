"""A lobby leaver may join again with the same key and counter 0 (SPEC.md 4.1: a `leave` ends
the key's counter record at the table). One of the clarifications an independent implementer
of SPEC.md asked for; the rule itself is written in protocol/SPEC.md."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.core.verify import verify_lines

EASY = load_bot("easy")


def test_a_lobby_leaver_may_join_again_with_the_same_key_and_counter_zero() -> None:
    """SPEC.md 4.1: a `leave` ends the key's counter record at the table; its next join
    (counter 0) starts afresh."""
    rules = Rules(seats=2, starting_dice=1, first_starter="seat0")
    lt = LocalTable(rules, [EASY] * 2, rng=random.Random(2))
    conn = lt.add_player(EASY, name="Ann")
    lt.run_until_idle()
    peer = lt.seats[conn].peer
    lt.disconnect(conn)
    lt.run_until_idle()
    assert [e.event["type"] for e in lt.host.entries if e.event][-1] == "leave"
    # The same key joins again: counter 0 is accepted although 0 was used before the leave.
    lt.seats[conn].connected = True
    challenge = lt.host.challenge(conn, b"\x09" * 16)
    for line in lt.host.lines(len(peer.replayer.chain)):
        peer.receive_line(line)
    join = peer.make_join(challenge, name="Ann")
    assert join.counter == 0
    outputs = lt.host.join(conn, join.to_json(), None, lt.now, trusted=True)
    assert not [o for o in outputs if type(o).__name__ == "Rejected"], outputs
    joins = [e for e in lt.host.entries if e.msg is not None and e.msg.type == "join"]
    assert [j.msg.bytes_field("key") for j in joins] == [peer.key.public] * 2
    assert verify_lines(lt.host.lines(), partial=True).ok
