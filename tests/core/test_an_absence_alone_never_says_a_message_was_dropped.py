"""An `absent` settles no step: the host may still hold the seat's message (a commitment or a
contribution it collects until the step ends), and the act that settles the step without the
message (`forced`, `abort`, `forfeit`) names the seat if the message is left out (SPEC.md 7.1).

A Wi-Fi outage: seat 1 commits (the host answers `accepted`), then drops; seat 2 drops before
it commits. After the grace period the host declares seat 1 absent and aborts the attempt
for seat 2's missing commitment. Seat 1's commitment was rightly unused (the attempt ended):
coming back, its client raised MESSAGE_DROPPED against an honest host."""

from __future__ import annotations

import json
import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules


def test_an_honest_abort_after_an_absence_over_a_held_commitment_accuses_nobody() -> None:
    table = LocalTable(
        Rules(seats=3, starting_dice=2), [load_bot("easy")] * 3, rng=random.Random(1)
    )

    def lose_seat_2s_commitment(conn: int, msg):  # type: ignore[no-untyped-def]
        return None if msg.type == "commit" and conn == 3 else msg

    table.on_send = lose_seat_2s_commitment
    table.seat_everyone()
    table.run_until_idle()
    client = table.seats[2].client
    held = [ref for ref, p in client.peer.pending.items() if p.message.type == "commit"]
    assert held, "seat 1 has a commitment on its way"
    for ref in held:  # the host read it: it holds it until every commitment is in
        client.receive_frame({"type": "accepted", "ref": ref.hex(), "seq": None}, table.now)
    table.now += 0.5
    table.disconnect(2)
    table.run_until_idle()
    table.now += 0.5
    table.disconnect(3)
    table.run_until_idle()
    for _ in range(10):
        if not table.advance_clock():
            break
        table.run_until_idle()
    events = [json.loads(line).get("event") or {} for line in table.host.lines()]
    assert any(e.get("type") == "absent" and e.get("seat") == 1 for e in events), events
    aborts = [e for e in events if e.get("type") == "abort"]
    assert aborts and all(e["missing"] == [2] for e in aborts), aborts  # seat 1's was in
    table.reconnect(2)
    table.run_until_idle()
    assert [a.reason for a in client.peer.alarms] == []
    assert all(conn != 2 for conn, _ in table.stats.alarms), table.stats.alarms  # seat 1's link
