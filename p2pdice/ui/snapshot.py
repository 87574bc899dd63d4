"""Reading a ClientSession into a Snapshot: the one place the UI looks inside a session.

Everything the screens need is copied out here, so the view model stays a pure function
of plain data and the session's internals can change without touching the screens.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.table import TablePhase
from ..net.session import ClientSession
from .viewmodel import USER_KINDS, SeatFacts, Snapshot


def snapshot(
    session: ClientSession,
    *,
    now: float,
    mine: tuple[int, ...] = (),
    pending_action: str | None = None,
    link: str | None = None,
    hide_hand: bool = False,
) -> Snapshot:
    """What `session`'s seat may see now (`now`: the event loop's clock, for the timer)."""
    peer = session.peer
    state = peer.state if peer is not None else None
    if state is None:
        return Snapshot(
            phase="connecting",
            watching=session.mode == "spectate",
            link=link or ("connected" if session.connected else "connecting"),
            fatal=_pair(session.fatal),
        )
    if state.roster:
        seats: tuple[SeatFacts | None, ...] = tuple(
            SeatFacts(name=s.name, cpu=s.cpu, host_run=s.host_run) for s in state.roster
        )
    else:
        seats = tuple(
            SeatFacts(
                name=state.joins[s].name, cpu=state.joins[s].cpu, host_run=state.joins[s].host_run
            )
            if s in state.joins
            else None
            for s in range(state.rules.seats)
        )
    view = session.view()
    if view is not None and hide_hand:
        view = replace(view, hand=())
    status = session.status
    deadline = status.deadline
    pending = frozenset(session.pending_kinds())
    openings = dict(state.attempt.openings) if state.attempt is not None else {}
    path = session.store.transcript_path if session.store is not None else None
    seat = session.seat if session.mode != "spectate" else None
    return Snapshot(
        table_name=state.name,
        rules=state.rules,
        phase=str(state.phase),
        seats=seats,
        view=view,
        me=seat,
        watching=session.mode == "spectate",
        mine=mine or ((seat,) if seat is not None else ()),
        connected=frozenset(status.connected) if status.phase else None,
        turn_left=None if deadline is None else deadline - now,
        code=session.comparison_code,
        pending=pending,
        pending_action=pending_action if pending & set(USER_KINDS) else None,
        alarms=tuple((str(a.reason), a.detail) for a in session.alarms),
        halted=peer.halted,
        notes=tuple(peer.replayer.notes),
        openings=openings if state.phase in (TablePhase.SHOWDOWN, TablePhase.RESULT) else {},
        absent=frozenset(state.absent),
        stand_ins=frozenset(state.stand_ins),
        host_cpu=state.host_cpu,
        transcript=str(path) if path is not None else None,
        link=link or ("connected" if session.connected else "reconnecting"),
        fatal=_pair(session.fatal),
    )


def _pair(value: tuple[object, str] | None) -> tuple[str, str] | None:
    return None if value is None else (str(value[0]), value[1])
