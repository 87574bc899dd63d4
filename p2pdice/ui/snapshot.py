"""Reading a session into a Snapshot: the one place the UI looks inside a session.

`snapshot()` copies out everything the screens, the clock and the controller need (the port
adapter over `TableSession`), once each time the session reports a change, in the step that
handles that change (`Controller.settle`); `project()` then fits that reading to one event
of the screen (the clock's time, whose hand this device shows, what we sent, how the table's
link stands), without reading the session again. Both are pure: they change nothing, so a
snapshot can be asked for any number of times. The view model stays a pure function of
plain data, and the session's internals can change without touching the screens.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.compare import history_code
from ..core.table import TablePhase
from .facts import alarm_facts, finding_facts, note_facts
from .ports import LINK_OPEN, LINK_OVER, FinalCheck, TableSession
from .ratings import RatingBook
from .viewmodel import ENDED_LINKS, USER_KINDS, EndCheck, SeatFacts, Snapshot


def snapshot(session: TableSession) -> Snapshot:
    """What `session`'s seat may see now (`mine` is that seat alone: `project` says which
    seats the whole device holds)."""
    peer = session.peer
    state = peer.state if peer is not None else None
    watching = session.mode == "spectate"
    seat = session.seat if not watching else None
    about = Snapshot(  # what the session says of itself, before the table's facts
        watching=watching,
        me=seat,
        my_name=session.name,
        mine=(seat,) if seat is not None else (),
        fatal=_pair(session.fatal),
        notice=session.notice,
        errors=tuple((str(reason), detail) for reason, detail in session.errors),
        finished=session.finished,
        link="connected" if session.connected else "connecting",
        host_closing=session.host_closing,
    )
    if peer is None or state is None:
        return about
    if state.roster:
        seats: tuple[SeatFacts | None, ...] = tuple(
            SeatFacts(name=s.name, cpu=s.cpu, host_run=s.host_run, key=s.key.hex())
            for s in state.roster
        )
    else:
        seats = tuple(
            SeatFacts(
                name=state.joins[s].name,
                cpu=state.joins[s].cpu,
                host_run=state.joins[s].host_run,
                key=state.joins[s].key.hex(),
            )
            if s in state.joins
            else None
            for s in range(state.rules.seats)
        )
    status = session.status
    openings = dict(state.attempt.openings) if state.attempt is not None else {}
    path = session.store.transcript_path if session.store is not None else None
    return replace(
        about,
        table_name=state.name,
        table_id=state.table_id.hex(),
        rules=state.rules,
        phase=str(state.phase),
        seats=seats,
        view=session.view(),
        connected=frozenset(status.connected) if status.phase else None,
        deadline=status.deadline,
        bank_deadline=status.bank_deadline,
        code=session.comparison_code,
        history=history_code(state, peer.replayer.chain),
        pending=frozenset(session.pending_kinds()),
        alarms=tuple(alarm_facts(a) for a in session.alarms),
        halted=peer.halted,
        notes=tuple(note_facts(n) for n in peer.replayer.notes),
        openings=openings if state.phase in (TablePhase.SHOWDOWN, TablePhase.RESULT) else {},
        absent=frozenset(state.absent),
        stand_ins=frozenset(state.stand_ins),
        back_asked=session.back_next_round,
        host_cpu=state.host_cpu,
        cpu_fill=state.cpu_fill,
        transcript=str(path) if path is not None else None,
        link="connected" if session.connected else "reconnecting",
        final_check=_end_check(session.final_check),
    )


def project(
    facts: Snapshot,
    *,
    now: float,
    mine: tuple[int, ...] | None = None,
    table_link: str = LINK_OPEN,
    sent: str | None = None,
    hide_hand: bool = False,
    next_round_in: float | None = None,
    ratings: RatingBook | None = None,
) -> Snapshot:
    """`facts` (a session's reading) for one event: `now` on the event loop's clock, the
    seats this device holds (`mine`), the table's link (`OpenTable.link_state`), what this
    seat `sent` and the log does not show yet, and `hide_hand` while a pass-and-play device
    waits for its next holder."""
    view = facts.view
    if view is not None and hide_hand:
        view = replace(view, hand=())
    link = link_word(facts, table_link)
    # A move still unconfirmed when the link ended is on its way nowhere: not "pending".
    on_its_way = facts.pending & set(USER_KINDS) and link not in ENDED_LINKS
    return replace(
        facts,
        view=view,
        me=None if hide_hand else facts.me,
        mine=facts.mine if mine is None else mine,
        turn_left=None if facts.deadline is None else facts.deadline - now,
        bank_left=None if facts.bank_deadline is None else facts.bank_deadline - now,
        pending_action=sent if on_its_way else None,
        link=link,
        next_round_in=next_round_in,
        ratings=facts.ratings if ratings is None else ratings,
    )


def link_word(facts: Snapshot, table_link: str) -> str:
    """How a session's connection reads: its own reading while the table's link runs; once
    that link ended, "closed" when the game ended with it (or the log holds the end), else
    "lost"."""
    if table_link == LINK_OPEN:
        return facts.link
    return "closed" if facts.finished or table_link == LINK_OVER else "lost"


def _end_check(check: FinalCheck | None) -> EndCheck | None:
    if check is None:
        return None
    return EndCheck(
        verified=check.verified,
        findings=tuple(finding_facts(a) for a in check.alarms),
        notes=tuple(n.detail for n in check.notes),
    )


def _pair(value: tuple[object, str] | None) -> tuple[str, str] | None:
    return None if value is None else (str(value[0]), value[1])
