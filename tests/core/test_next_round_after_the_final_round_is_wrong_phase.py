"""After the final round there is no next round: a `next_round` is WRONG_PHASE whoever sends
it, and the host (which holds a `next_round` until acknowledgements are in) answers the same
as the table every peer and `verify` run (SPEC.md 7)."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.events import Forced, ForcedMove
from p2pdice.core.game import Phase
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from tests.support.cheats import Game, kinds


def _final_result_waiting_for_acks() -> Game:
    g = Game(seed=3, rules=Rules(seats=2, starting_dice=1, turn_timer=30))
    g.hold(kinds("ack"))
    g.start()
    g.run_until(lambda: g.phase == TablePhase.RESULT)
    assert g.host.state.game is not None and g.host.state.game.phase == Phase.GAME_OVER
    return g


def test_the_host_answers_a_next_round_after_the_final_round_as_the_table_does() -> None:
    g = _final_result_waiting_for_acks()
    game = g.host.state.game
    assert game is not None and game.winner is not None
    for seat in (game.winner, 1 - game.winner):  # the winner, and the loser who is out
        msg = g.sign(seat, "next_round", round=game.round)
        g.refused_everywhere(seat, msg, Reason.WRONG_PHASE)


def test_a_forced_next_round_after_the_final_round_is_wrong_phase_for_peers_and_verify() -> None:
    g = _final_result_waiting_for_acks()
    game = g.host.state.game
    assert game is not None and game.winner is not None
    forced = Forced(
        round=game.round, seat=game.winner, reason="timer", action=ForcedMove(type="next_round")
    )
    line = g.forge(event=forced.to_json()).line
    g.refused_by_peer(line, Reason.WRONG_PHASE)
    g.refused_by_verify(line, Reason.WRONG_PHASE)
