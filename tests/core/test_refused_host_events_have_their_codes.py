"""Every host event the table refuses has its named code, and verify stops exactly at the
forged entry (SPEC.md 7, the transitions table; SPEC.md 11: `BAD_EVENT` is every refusal of a
host event whose check names no other code). One of the clarifications an independent
implementer of SPEC.md asked for; the rule itself is written in protocol/SPEC.md."""

from __future__ import annotations

import pytest

from p2pdice.bots.protosim import LocalTable
from p2pdice.core.errors import Reason
from p2pdice.core.events import make_event
from p2pdice.core.table import Replayer, TableError, TablePhase, TableState, advance
from p2pdice.core.verify import verify_lines
from tests.support.played import honest_game


def _refused_instead_of(lt: LocalTable, kind: str, change, reason: Reason, nth: int = 0) -> None:
    """Verify fails exactly at the nth entry of `kind` when the host posted `change(event)`."""
    from p2pdice.core.transcript import build_entry

    entries = lt.host.entries
    index = [i for i, e in enumerate(entries) if (e.event or {}).get("type") == kind][nth]
    forged = build_entry(
        lt.host.key,
        index,
        entries[index].prev,
        event=change(entries[index].event),
        table=lt.host.table_id,
    )
    report = verify_lines([*lt.host.lines()[:index], forged.line], partial=True)
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (index, reason), report.failure


CASES = {
    "round event with the wrong dice": (
        "round",
        lambda e: {**e, "dice": [1, 1, 1]},
        Reason.BAD_EVENT,
    ),
    "beacon without one seat's contribution": (
        "beacon",
        lambda e: {**e, "contributions": e["contributions"][:-1]},
        Reason.BAD_EVENT,
    ),
    "commitment set without one seat's commitment": (
        "commit_set",
        lambda e: {**e, "commits": e["commits"][:-1]},
        Reason.COMMIT_SET_MISMATCH,
    ),
    "abort naming a seat outside the attempt": (
        "commit_set",
        lambda e: make_event(
            "abort", round=e["round"], attempt=e["attempt"], missing=[5], reason="commit_timeout"
        ),
        Reason.BAD_EVENT,
    ),
    "abort naming no seat": (
        "commit_set",
        lambda e: make_event(
            "abort", round=e["round"], attempt=e["attempt"], missing=[], reason="commit_timeout"
        ),
        Reason.BAD_EVENT,
    ),
    "start whose roster differs from the joins": (
        "start",
        lambda e: {**e, "roster": [{**e["roster"][0], "name": "Eve"}, *e["roster"][1:]]},
        Reason.BAD_EVENT,
    ),
    "return of a seat that is not absent": (
        "round",
        lambda e: make_event("return", round=e["round"], seat=0),
        Reason.BAD_EVENT,
    ),
    "stand-in for a seat that is not absent": (
        "round",
        lambda e: make_event("stand_in", round=e["round"], seat=0, key=b"\x44" * 32),
        Reason.BAD_EVENT,
    ),
    "absence of a seat that is out or unknown": (
        "round",
        lambda e: make_event("absent", round=e["round"], seat=5, reason="no_reply"),
        Reason.BAD_EVENT,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_refused_host_event_has_its_named_code(case: str) -> None:
    kind, change, reason = CASES[case]
    _refused_instead_of(honest_game(), kind, change, reason)


def test_a_leave_of_a_free_seat_is_a_bad_event() -> None:
    """In the lobby, after seat 0's join: a leave of seat 2, never taken."""
    from p2pdice.core.transcript import build_entry

    lt = honest_game()
    entries = lt.host.entries
    first_join = next(i for i, e in enumerate(entries) if e.msg is not None)
    forged = build_entry(
        lt.host.key,
        first_join + 1,
        entries[first_join].hash,
        event={"type": "leave", "seat": 2},
        table=lt.host.table_id,
    )
    report = verify_lines([*lt.host.lines()[: first_join + 1], forged.line], partial=True)
    assert report.failure is not None
    assert (report.failure.index, report.failure.reason) == (first_join + 1, Reason.BAD_EVENT)


def test_forced_moves_for_the_wrong_seat_are_bad_events() -> None:
    """In bidding and between rounds alike (before, between rounds gave NOT_YOUR_TURN)."""
    lt = honest_game()
    entries = lt.host.entries
    replayer = Replayer()
    for index, entry in enumerate(entries):
        state = replayer.state
        if state is not None and state.phase in (TablePhase.BIDDING, TablePhase.RESULT):
            game = state.game
            seat = game.turn if state.phase == TablePhase.BIDDING else game.next_starter
            if seat is None:
                # After the final round there is no next round: any forced move is WRONG_PHASE
                # (vectors/v1/transition_cases.json), whichever seat it names.
                replayer.feed(entry)
                continue
            wrong = next(s for s in game.survivors if s != seat)
            action = (
                {"type": "challenge"}
                if state.phase == TablePhase.BIDDING
                else {"type": "next_round"}
            )
            event = make_event(
                "forced", round=game.round, seat=wrong, reason="absent", action=action
            )
            with pytest.raises(TableError) as err:
                advance(replace_absent(state, wrong), seq=index, chain=replayer.chain, event=event)
            assert err.value.reason == Reason.BAD_EVENT, (state.phase, err.value.detail)
        replayer.feed(entry)


def replace_absent(state: TableState, seat: int) -> TableState:
    """The state with `seat` declared absent, so only the seat check can refuse the move."""
    from p2pdice.core.frozen import replace

    return replace(state, absent=state.absent | {seat})
