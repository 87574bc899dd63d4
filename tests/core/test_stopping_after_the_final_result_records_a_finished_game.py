"""A host stopped after a game's final result but before its game over records the game as
finished, not abandoned."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.game import Phase
from p2pdice.core.host import Posted
from p2pdice.core.rules import Rules
from p2pdice.core.verify import verify_lines


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
