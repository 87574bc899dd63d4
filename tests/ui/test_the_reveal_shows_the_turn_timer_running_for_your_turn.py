"""On a table with a turn timer, a reveal read after the next round has begun on your turn
shows the time left (`[0:12 left]`), as the table's turn line does: the timer runs while you
read, and the client plays a careful move when it runs out. Before, the reveal said only
"press Enter", and the move was made for you with no warning on screen."""

from __future__ import annotations

from p2pdice.core.game import Deal, StartNextRound, apply
from p2pdice.ui.reveal import reveal_model

from .helpers import opened, revealed, snap_of


def test_the_reveal_counts_down_your_turn() -> None:
    state = apply(apply(revealed(), StartNextRound(2)), Deal())  # Cid lost, Cid opens round 2
    cid = reveal_model(snap_of(state, me=2, notes=opened(1, (0, 1, 2)), turn_left=11.2))
    assert cid.next_line == "Round 2 has started and it is your turn: press Enter.  [0:12 left]"
    untimed = reveal_model(snap_of(state, me=2, notes=opened(1, (0, 1, 2))))
    assert untimed.next_line == "Round 2 has started and it is your turn: press Enter."
