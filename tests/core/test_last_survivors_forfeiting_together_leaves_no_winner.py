"""When the last survivors of a game forfeit together, the game is over without a winner and
ranks them all (RULES.md R6)."""

from __future__ import annotations

from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Deal, Forfeit, Phase, PlaceBid, apply, new_game
from p2pdice.core.rules import Rules


def test_a_game_where_the_last_survivors_forfeit_together_ends_without_a_winner() -> None:
    state = apply(new_game(Rules(seats=2, first_starter="seat0")), Deal())
    state = apply(state, PlaceBid(0, Bid(1, 2)))
    state = apply(state, Challenge(1))
    state = apply(state, Forfeit((0, 1)))
    assert state.phase == Phase.GAME_OVER
    assert state.winner is None and state.ranking == (0, 1)
