"""A transcript where the host moved for absent seats, CPUs stood in and bids were taken
back: the coach says who made each move it lists, and counts only the player's own."""

from __future__ import annotations

from collections import Counter

from p2pdice.bots.protosim import Faults, simulate_protocol
from p2pdice.bots.registry import load_bot
from p2pdice.bots.review import HOST, STAND_IN, YOU, movers_from_notes, review_rounds, summarize
from p2pdice.core.rules import Rules
from p2pdice.core.table import Replayer
from p2pdice.core.transcript import parse_entry


def test_moves_made_for_the_seat_are_marked_and_not_counted_as_its_own() -> None:
    rules = Rules(seats=3, starting_dice=3, kind="practice", undo=True, turn_timer=30)
    saved: dict[int, list[bytes]] = {}
    simulate_protocol(
        rules,
        [load_bot("medium")] * 3,
        games=1,
        seed=5,  # a game with forced moves, stand-ins and bids taken back
        save=lambda number, lines: saved.update({number: lines}),
        faults=Faults.uniform(0.3),
    )
    replayer = Replayer()
    for line in saved[1]:
        replayer.feed(parse_entry(line))
    state = replayer.state
    assert state is not None and state.game is not None
    kinds = Counter(note.kind for note in replayer.notes)
    assert kinds["undo"] and kinds["stand_in"] and kinds["forced"]
    movers = movers_from_notes(replayer.notes)
    seen: Counter[str] = Counter()
    for seat in range(rules.seats):
        rounds = list(review_rounds(state.rules, state.game.results, seat, movers))
        for r in rounds:
            result = next(x for x in state.game.results if x.round == r.round)
            if r.hand is None:
                continue
            # One mover per move the finished round records: the undone bids are dropped.
            made = sum(b.seat == seat for b in result.bids) + (result.caller == seat)
            assert [d.by for d in r.decisions] == movers.get((r.round, seat), [])
            assert len(r.decisions) == made
            seen.update(d.by for d in r.decisions)
        own = sum(1 for r in rounds for d in r.decisions if d.by == YOU)
        assert summarize(rounds).decisions == own
    assert seen[HOST] and seen[STAND_IN] and seen[YOU]
