"""An event the host builds and its own table machine refuses is the host's bug: a LocalError
raised where it happens, never a RemoteError that an adapter would send to (and blame on) the
peer whose message happened to trigger it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core import host_clock
from p2pdice.core.errors import LocalError, Reason, RemoteError
from p2pdice.core.events import Absent, Round, SeatInfo, make_event
from p2pdice.core.frozen import replace
from p2pdice.core.game import StartNextRound
from p2pdice.core.host_outputs import Rejected
from p2pdice.core.rules import Rules
from p2pdice.core.transcript import build_entry


def _table(seats: int = 2) -> LocalTable:
    return LocalTable(
        Rules(seats=seats, starting_dice=1), [load_bot("easy")] * seats, rng=random.Random(3)
    )


def test_a_start_event_with_a_wrong_roster_raises_a_local_error_on_the_last_join(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def reversed_roster(state: Any) -> tuple[SeatInfo, ...]:
        return tuple(state.joins[s] for s in sorted(state.joins, reverse=True))

    monkeypatch.setattr(host_clock, "expected_roster", reversed_roster)
    lt = _table()
    with pytest.raises(LocalError) as err:
        lt.seat_everyone()
    assert not isinstance(err.value, RemoteError)
    assert err.value.reason == Reason.INTERNAL
    assert "start event its own table refuses: BAD_EVENT" in err.value.detail
    assert lt.host.phase == "lobby"  # nothing was posted


def test_a_round_event_that_contradicts_the_game_is_a_local_error_not_a_rejection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = host_clock.expected_round

    def wrong_attempt(state: Any) -> Round:
        return replace(real(state), attempt=7)

    monkeypatch.setattr(host_clock, "expected_round", wrong_attempt)
    lt = _table()
    with pytest.raises(LocalError) as err:
        lt.seat_everyone()
    assert "round event its own table refuses: BAD_EVENT: the round event's attempt is 7" in (
        err.value.detail
    )


def test_an_event_of_a_bad_shape_built_here_is_a_local_error() -> None:
    with pytest.raises(LocalError) as err:
        make_event("absent", round=1, seat=9, reason="no_reply")
    assert err.value.reason == Reason.SCHEMA
    lt = _table()
    with pytest.raises(LocalError) as err:
        build_entry(
            lt.host.key,
            1,
            lt.host.head,
            event=Absent(round=1, seat=9, reason="no_reply"),
            table=lt.host.table_id,
        )
    assert err.value.reason == Reason.SCHEMA


def test_a_bad_message_from_a_peer_is_still_refused_with_its_code() -> None:
    """The other side of the line: a peer's own wrong message stays a remote refusal."""
    lt = _table()
    lt.seat_everyone()
    conn, seat = next(iter(lt.seats.items()))
    assert lt.host.phase != "result"
    assert seat.peer.seat is not None
    early = seat.peer.act(StartNextRound(seat.peer.seat)).message
    outputs = lt.host.receive(conn, early.to_json(), lt.now)
    assert [type(o) for o in outputs] == [Rejected]
    assert isinstance(outputs[0], Rejected) and outputs[0].reason == Reason.WRONG_PHASE
