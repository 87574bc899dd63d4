"""The host holds a `next_round` until the round's acknowledgements are in (SPEC.md 8) and
answers `accepted`; if the game then ends instead (the host stops, a void cap), the message
opened nothing: `verify --mine` must not call it MESSAGE_DROPPED (SPEC.md 9, step 5)."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines


def test_a_held_next_round_then_the_games_end_passes_verify_mine() -> None:
    table = LocalTable(
        Rules(seats=3, starting_dice=3), [load_bot("easy")] * 3, rng=random.Random(2)
    )
    # Nobody's acknowledgement arrives, so the host holds the starter's next_round.
    table.on_send = lambda conn, msg: None if msg.type == "ack" else msg  # type: ignore[assignment]
    table.seat_everyone()
    table.run_until_idle()
    held = table.host.waits.wait.next_round
    assert table.host.phase == TablePhase.RESULT and held is not None
    conn = next(c for c, s in table.seats.items() if s.peer.seat == held.seat)
    client = table.seats[conn].client
    client.receive_frame({"type": "accepted", "ref": held.digest().hex(), "seq": None}, table.now)
    table._host_outputs(table.host.abandon(table.now))
    table.run_until_idle()
    assert b'"game_over"' in table.host.lines()[-1]
    report = verify_lines(table.host.lines(), mine=client.sent_log)
    assert report.ok, report.failure
