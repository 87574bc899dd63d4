"""At a table we host, in this process, with a real `join --bot` process as the other player:
our player never moves, so the time bank runs out and the host moves for the seat (`absent`,
`stalled`) while our client stays connected. When the player is back and presses a move
key, the screen says the seat returns at the next round, and it does: the client
authenticated afresh (the host gives a seat back only then, SPEC.md 8), the host posted
`return`, and the player's own moves count again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from p2pdice.core.rules import TIME_BANK_FREE_PER_TURN, Rules
from p2pdice.core.table import TablePhase
from p2pdice.ui.viewmodel import table_model
from tests.support.procs import kill_all
from tests.ui.hosted_with_a_bot import fresh, host_with_a_bot
from tests.ui.test_lobby_actions import until


def _events(table, kind: str) -> list[dict]:  # type: ignore[no-untyped-def]
    return [e.event for e in table.host.entries if e.event is not None and e.event["type"] == kind]


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_a_move_key_pressed_after_running_out_of_time_takes_the_seat_back(
    tmp_path: Path,
) -> None:
    rules = Rules(seats=2, starting_dice=3, time_bank=1, first_starter="seat0")  # Zed opens
    hosted = await host_with_a_bot(
        tmp_path / "me", tmp_path, name="kitchen", rules=rules, seed=3, give_up=90
    )
    c, runtime, table, bot = hosted.c, hosted.runtime, hosted.table, hosted.bot
    try:
        await until(lambda: len(table.host.state.joins) == 2, 20)
        fresh(c).start_game()
        await until(lambda: _events(table, "absent"), TIME_BANK_FREE_PER_TURN + 20)
        [stalled] = _events(table, "absent")
        assert (stalled["seat"], stalled["reason"]) == (0, "stalled")
        assert table.host.seat_connected(0)  # out of time, not gone
        await until(lambda: 0 in fresh(c).snap().absent, 10)  # our client has it too
        fresh(c).liar()  # the player is back and presses a move key
        assert "your seat returns at the next round" in c.ui.message
        # Once the host knows (a fresh authentication), the hand line says so too.
        await until(lambda: table_model(fresh(c).snap()).hand_label.startswith("You are back"), 20)
        await until(lambda: _events(table, "return"), 60)
        assert _events(table, "return")[0]["seat"] == 0
        await until(lambda: 0 not in fresh(c).snap().absent, 20)
        await until(lambda: fresh(c).my_turn() or table.host.phase == TablePhase.OVER, 60)
    finally:
        if bot.poll() is None:
            os.kill(bot.pid, signal.SIGCONT)
        kill_all(bot)
        await runtime.close()
