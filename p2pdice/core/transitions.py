"""The table machine's transitions as data (protocol/SPEC.md 7), in the manner of h11.

Each `Transition` row says which entries it takes (`msg:<type>` for a player's signed message,
`event:<type>` for a host event), in which phases, which phases may follow, and which handler
checks and applies it. `table.advance` dispatches through `TRANSITIONS` and nothing else: an
entry with no row for the current phase is refused with `WRONG_PHASE`, and a handler that
leaves the table in a phase its row does not declare is our own bug (LocalError).

Everything else that asks "which message belongs to which phase" reads the tables derived
here instead of restating them: the peer (`MESSAGE_PHASE`), the host's buffers
(`BUFFERED_MESSAGES`), the dropped-message rules of the peer and of `verify` (`DROPPED_BY`,
`GOES_ON_WITHOUT`, `ENDS_ATTEMPT_EARLY`), the screens (`SEAT_MESSAGES`), the bots
(`CHOSEN_MESSAGES`, `GOES_ON_WITHOUT`) and the fault injector of `simulate --protocol`
(`OWED_MESSAGES`). SPEC.md 7's table and diagram are `spec_section()`'s text
(protocol/gen_transitions.py writes them; a test keeps them equal).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any

from .errors import Reason
from .table_events import (
    abort_event,
    absent_event,
    beacon_event,
    commit_set_event,
    forced_event,
    forfeit_event,
    game_over_event,
    leave_event,
    result_event,
    return_event,
    round_event,
    stand_in_event,
    start_event,
)
from .table_messages import ack_msg, bidding_action, join_msg, next_round_msg, open_msg
from .table_state import ChainIndex, Outcome, TablePhase, TableState

Handler = Callable[[TableState, Any, int, ChainIndex], Outcome]


class IfMissing(StrEnum):
    """What the table does when a seat does not send a message it could send."""

    #: A voluntary message (a join, an undo): the host posts it or refuses it openly.
    ANSWERED = "answered"
    #: The seat owes it: when it does not come, the host acts in the seat's place (a forced
    #: move, an abort, a forfeit, an absence), so a host act may hide a dropped one.
    HOST_ACTS = "host_acts"
    #: The table goes on without it after a wait (SPEC.md 8): a missing one proves nothing.
    TABLE_GOES_ON = "table_goes_on"


@dataclass(frozen=True, slots=True)
class Transition:
    """One row of SPEC.md 7's table."""

    entries: tuple[str, ...]  #: `msg:<type>` or `event:<type>`
    phases: tuple[TablePhase, ...]  #: the phases the entries are allowed in
    #: The phases the table may be in after the entry; () with `stays` (the phase it was in)
    #: or for a row that only refuses.
    next: tuple[TablePhase, ...]
    #: Checks and applies the entry; None for a row that refuses (`refused`) or for a message
    #: carried inside a host event (`carried_in`), which is never an entry of its own.
    handler: Handler | None
    checks: str  #: SPEC.md 7's words for what the handler checks, in order
    stays: bool = False  #: the entry never changes the phase
    refused: Reason | None = None  #: a row that names entries only to refuse them
    why_refused: str = ""  #: the refusal's detail, followed by "(<type> during <phase>)"
    carried_in: str | None = None  #: the host event whose entry carries this message
    if_missing: IfMissing = IfMissing.ANSWERED  #: for messages
    #: For host events: the host acts in the place of the seats it names (so the act may hide
    #: a message of theirs that it never posted).
    in_seats_place: bool = False
    #: For messages: a move the seat's player decides (a person or a bot), as opposed to one
    #: the peer sends by itself when the protocol asks for it (commit, contribute, open, ack).
    chosen: bool = False

    def next_phases(self, phase: TablePhase) -> tuple[TablePhase, ...]:
        """The phases the table may be in after this row's entry arrives in `phase`."""
        return (phase,) if self.stays else self.next

    @property
    def kinds(self) -> tuple[str, ...]:
        """The entries' types without their `msg:`/`event:` prefix."""
        return tuple(e.split(":", 1)[1] for e in self.entries)

    @property
    def is_message(self) -> bool:
        return self.entries[0].startswith("msg:")


_P = TablePhase
_IN_GAME = (_P.BETWEEN, _P.COMMIT, _P.CONTRIBUTE, _P.BIDDING, _P.SHOWDOWN, _P.RESULT)

#: Every transition of the table, in SPEC.md 7's order.
TRANSITIONS: tuple[Transition, ...] = (
    Transition(
        ("msg:join",),
        (_P.LOBBY,),
        (_P.LOBBY,),
        join_msg,
        "seat < seats (`UNKNOWN_SEAT`) and free (`SEAT_TAKEN`), key holds no seat "
        "(`ALREADY_SEATED`), the host-run limits below (`TABLE_FULL`), `host` is the host key "
        "(`BAD_CHALLENGE`), counter 0 and `host_run` only with `cpu` (`SCHEMA`), `key` canonical "
        "and not of small order (§2.4, `BAD_SIGNATURE`), the name well formed (`SCHEMA`) and its "
        "comparison key unlike every seated name's (`NAME_TAKEN`); without `cpu`, not in the CPU form "
        "(`NAME_RESERVED`) (§10.5), then "
        "§4.1 with `key` as signer (a key that left the lobby starts afresh)",
    ),
    Transition(
        ("event:leave",),
        (_P.LOBBY,),
        (_P.LOBBY,),
        leave_event,
        "the seat is taken (`BAD_EVENT`); the seat is freed and the key's counter record ends "
        "(§4.1)",
    ),
    Transition(
        ("event:start",),
        (_P.LOBBY,),
        (_P.BETWEEN,),
        start_event,
        "at least 2 seats taken, and they are seats 0..n-1; with genesis `cpu_fill` every one "
        "of the rules' `seats` taken and at least `host_cpu` of them `host_run`, without it "
        "exactly `host_cpu` `host_run` (§3.3); a `first_starter` `seatK` below n; with "
        "`first_starter` `host` a `host_seat` that is a seat taken and not `cpu`, without it "
        "no `host_seat`; roster equal to the joins in seat order (each "
        "`BAD_EVENT`); the game is then played by the n seats of the roster (`seats` = n)",
    ),
    Transition(
        ("event:round",),
        (_P.BETWEEN,),
        (_P.COMMIT,),
        round_event,
        "round, attempt (1, or the aborted attempt + 1), seats, dice, starter, palifico as the "
        "game gives (`BAD_EVENT`, the first differing field in this order)",
    ),
    Transition(
        ("event:stand_in",),
        (_P.BETWEEN,),
        (_P.BETWEEN,),
        stand_in_event,
        "seat absent, not stood in and still in the game (a seat already out has no dice to "
        "play); key never used at the table: not the host key, not any "
        "key that ever joined (a lobby leaver's included) or stood in before; key canonical and "
        "not of small order (§2.4) (each `BAD_EVENT`)",
    ),
    Transition(
        ("event:return",),
        (_P.BETWEEN,),
        (_P.BETWEEN,),
        return_event,
        "seat absent (`BAD_EVENT`), a seat already out included (its own key then signs its "
        "acknowledgements again); the seat's join key signs for it again",
    ),
    Transition(
        ("msg:commit",),
        (_P.COMMIT,),
        (),
        None,
        "round, attempt (`WRONG_ROUND`); a seat of the attempt (`UNKNOWN_SEAT`) that has not "
        "committed yet (`DUPLICATE`); message valid (§4.1); both values new at the table and "
        "unlike the other seats' (`DUPLICATE_COMMITMENT`)",
        carried_in="event:commit_set",
        if_missing=IfMissing.HOST_ACTS,
    ),
    Transition(
        ("event:commit_set",),
        (_P.COMMIT,),
        (_P.CONTRIBUTE,),
        commit_set_event,
        "each message a `commit` of this round and attempt (`WRONG_ROUND`) and valid (§4.1: an "
        "item for a seat the table lacks is `NOT_SEATED`); "
        "seats exactly the attempt's (`COMMIT_SET_MISMATCH`); no commitment value twice, nor one "
        "already posted earlier at this table (`DUPLICATE_COMMITMENT`)",
    ),
    Transition(
        ("event:abort",),
        (_P.COMMIT,),
        (_P.BETWEEN,),
        abort_event,
        "`missing` ascending, without repeats, non-empty, seats of the attempt, so never a seat "
        "already out (`BAD_EVENT`)",
        in_seats_place=True,
    ),
    Transition(
        ("msg:contribute",),
        (_P.CONTRIBUTE,),
        (),
        None,
        "round, attempt (`WRONG_ROUND`); a seat of the attempt (`UNKNOWN_SEAT`) that has not "
        "contributed yet (`DUPLICATE`); message valid (§4.1); `commit_set` the set's hash "
        "(`WRONG_COMMIT_SET`); the contribution matches its commitment (`OPENING_MISMATCH`)",
        carried_in="event:beacon",
        if_missing=IfMissing.HOST_ACTS,
    ),
    Transition(
        ("event:beacon",),
        (_P.CONTRIBUTE,),
        (_P.BIDDING,),
        beacon_event,
        "each message valid (§4.1); seats exactly the attempt's (`BAD_EVENT`); then item by "
        "item in list order, both for one item before the next: `commit_set` equal to the "
        "set's hash (`WRONG_COMMIT_SET`), the contribution matches its commitment "
        "(`OPENING_MISMATCH`); `beacon` = R and `starter` as §5.6 (`BEACON_MISMATCH`)",
    ),
    Transition(
        ("event:forfeit",),
        (_P.CONTRIBUTE,),
        (_P.RESULT,),
        forfeit_event,
        "seats ascending, non-empty; each a seat of the attempt (never one already out), "
        "declared absent; reason `no_contribution`; no `host_run` seat nor one a stand-in plays "
        "(the host signs their contributions itself); fewer than n voids earlier in the game "
        "(n the roster's length, the rules' `seats` from the start on, §3.3) (each "
        "`BAD_EVENT`); dice and next starter as RULES.md R4.2 gives (`RESULT_MISMATCH`)",
        in_seats_place=True,
    ),
    Transition(
        ("msg:bid", "msg:challenge", "msg:exact"),
        (_P.BIDDING,),
        (_P.BIDDING, _P.SHOWDOWN),
        bidding_action,
        "round; the rules (RULES.md R2, R3: `NOT_YOUR_TURN`, `BID_NOT_HIGHER`, ...); message "
        "valid (§4.1); a call leads to SHOWDOWN",
        if_missing=IfMissing.HOST_ACTS,
        chosen=True,
    ),
    Transition(
        ("msg:undo",),
        (_P.BIDDING,),
        (_P.BIDDING,),
        bidding_action,
        "as a bid: round; the rules (RULES.md R3); message valid (§4.1)",
        chosen=True,
    ),
    Transition(
        ("event:forced",),
        (_P.BIDDING,),
        (_P.BIDDING, _P.SHOWDOWN),
        forced_event,
        "reason `timer` only with a turn timer, `absent` only for a seat declared absent; the "
        "seat whose turn it is, and `action` its blind move (RULES.md R8) (each `BAD_EVENT`)",
        in_seats_place=True,
    ),
    Transition(
        ("msg:open",),
        (_P.SHOWDOWN,),
        (_P.SHOWDOWN,),
        open_msg,
        "round, attempt; seat of the attempt, not yet opened (`DUPLICATE`); opening matches the "
        "seed commitment (`OPENING_MISMATCH`); message valid",
        if_missing=IfMissing.HOST_ACTS,
    ),
    Transition(
        ("event:result",),
        (_P.SHOWDOWN,),
        (_P.RESULT,),
        result_event,
        "every unopened seat declared absent; the outcome decided (RULES.md R4.1); every field "
        "equal to the recomputed result (`RESULT_MISMATCH`)",
    ),
    Transition(
        ("event:forfeit",),
        (_P.SHOWDOWN,),
        (_P.RESULT,),
        forfeit_event,
        "seats ascending, non-empty, each a seat of the attempt, declared absent; reason "
        "`no_opening`; seats = exactly "
        "the unopened seats; the outcome not decided (each `BAD_EVENT`); dice and next starter "
        "as RULES.md R4.1 gives (`RESULT_MISMATCH`)",
        in_seats_place=True,
    ),
    Transition(
        ("msg:ack",),
        (_P.RESULT,),
        (_P.RESULT,),
        ack_msg,
        "round; `result` names the result or forfeit entry; once per seat (`DUPLICATE`)",
        if_missing=IfMissing.TABLE_GOES_ON,
    ),
    Transition(
        ("msg:next_round",),
        (_P.RESULT,),
        (_P.BETWEEN,),
        next_round_msg,
        "round (`WRONG_ROUND`); not after the final round (`WRONG_PHASE`, whoever sends it); "
        "the designated starter (`NOT_YOUR_TURN`, an eliminated loser included); message valid "
        "(§4.1)",
        if_missing=IfMissing.HOST_ACTS,
        chosen=True,
    ),
    Transition(
        ("event:forced",),
        (_P.RESULT,),
        (_P.BETWEEN,),
        forced_event,
        "not after the final round (`WRONG_PHASE`); reason as above; `action` is `next_round`; "
        "the seat is the designated starter (each `BAD_EVENT`)",
        in_seats_place=True,
    ),
    Transition(
        ("event:abort", "event:round", "event:commit_set"),
        (_P.CONTRIBUTE, _P.BIDDING, _P.SHOWDOWN),
        (),
        None,
        "always refused with `FRESH_RANDOMNESS`: the attempt is final once its commitment set "
        "is posted",
        refused=Reason.FRESH_RANDOMNESS,
        why_refused="a new attempt after the commitment set was posted",
    ),
    Transition(
        ("event:absent",),
        _IN_GAME,
        (),
        absent_event,
        "the seat survives and is not already absent; reason `stalled` only on a table with "
        "a time bank (`time_bank` > 0) and for the seat whose move the table waits for: in "
        "BIDDING the seat whose turn it is, in RESULT the next round's designated starter "
        "(after the final round there is none, so no `stalled` absence then), and never for "
        "a `host_run` seat, whose bank never runs (each `BAD_EVENT`); the other reasons may "
        "name any seat that survives, a `host_run` one included",
        stays=True,
        in_seats_place=True,
    ),
    Transition(
        ("event:game_over",),
        (_P.LOBBY, *_IN_GAME),
        (_P.OVER,),
        game_over_event,
        "`finished` exactly when the game is over by the rules with one survivor, its winner; "
        "`abandoned` otherwise: ended early, or the last survivors forfeited together and nobody "
        "won (RULES.md R6) (`BAD_EVENT`); `ranking` as the rules give, `[]` in the LOBBY "
        "(`RESULT_MISMATCH`)",
    ),
)


def _entry_rows(rows: Iterable[Transition]) -> Mapping[tuple[TablePhase, str], Transition]:
    """(phase, entry) -> the row that takes that entry there; each pair has one row."""
    index: dict[tuple[TablePhase, str], Transition] = {}
    for row in rows:
        if row.carried_in is not None:
            continue  # not an entry of its own: a row about what the host buffers
        for phase in row.phases:
            for entry in row.entries:
                if (phase, entry) in index:
                    raise AssertionError(f"two rows for {entry} during {phase}")
                index[(phase, entry)] = row
    return MappingProxyType(index)


#: (phase, entry kind) -> its transition; a pair not listed is refused with WRONG_PHASE.
ENTRY_ROWS = _entry_rows(TRANSITIONS)

_MESSAGE_ROWS = tuple(row for row in TRANSITIONS if row.is_message)

#: Message type -> the phase in which a seat sends it (and the only one it is accepted in).
MESSAGE_PHASE: Mapping[str, TablePhase] = MappingProxyType(
    {kind: row.phases[0] for row in _MESSAGE_ROWS for kind in row.kinds}
)

#: Phase -> the message types a seat may send during it, in table order (for screens and
#: helpers that offer actions; whether one is legal now is still the rules' question).
SEAT_MESSAGES: Mapping[TablePhase, tuple[str, ...]] = MappingProxyType(
    {
        phase: tuple(k for row in _MESSAGE_ROWS if phase in row.phases for k in row.kinds)
        for phase in TablePhase
    }
)

#: Message types a seat's player chooses (bids, calls, undo, the next round), in table order:
#: what a screen waits on after a key, and what a bot decides.
CHOSEN_MESSAGES: tuple[str, ...] = tuple(
    k for row in _MESSAGE_ROWS if row.chosen for k in row.kinds
)

#: Phase -> the message types a seat owes during it, in table order: when one does not come,
#: the host acts in the seat's place (an abort, a void round, a forced move, a forfeit).
OWED_MESSAGES: Mapping[TablePhase, tuple[str, ...]] = MappingProxyType(
    {
        phase: tuple(
            k
            for row in _MESSAGE_ROWS
            if phase in row.phases and row.if_missing == IfMissing.HOST_ACTS
            for k in row.kinds
        )
        for phase in TablePhase
    }
)

#: Messages the host buffers and posts inside a host event (never entries of their own):
#: message type -> the phase in which the host collects them.
BUFFERED_MESSAGES: Mapping[str, TablePhase] = MappingProxyType(
    {k: row.phases[0] for row in _MESSAGE_ROWS if row.carried_in for k in row.kinds}
)


def _dropped_by() -> Mapping[str, frozenset[str]]:
    """A host act in a seat's place may hide a message the seat owed in the same phase. An act
    that leaves the phase as it was (an `absent`) settles no step: it hides only a message the
    host posts as soon as it reads it, never one it collects into a host event until the step
    ends (a commitment, a contribution), which the act settling the step without it (`abort`,
    `forfeit`) names."""
    owed = [row for row in _MESSAGE_ROWS if row.if_missing == IfMissing.HOST_ACTS]
    acts: dict[str, set[str]] = {}
    for row in TRANSITIONS:
        if row.in_seats_place:
            for kind in row.kinds:
                hidden = acts.setdefault(kind, set())
                hidden.update(
                    k
                    for m in owed
                    if set(m.phases) & set(row.phases) and not (row.stays and m.carried_in)
                    for k in m.kinds
                )
    return MappingProxyType({kind: frozenset(kinds) for kind, kinds in acts.items()})


#: Host event type (an act in a seat's place) -> the message types of that seat it may hide:
#: a peer that holds one unposted when the act names its seat raises MESSAGE_DROPPED.
DROPPED_BY = _dropped_by()

#: Message types the table goes on without: a missing one proves nothing (verify --mine).
GOES_ON_WITHOUT: frozenset[str] = frozenset(
    k for row in _MESSAGE_ROWS if row.if_missing == IfMissing.TABLE_GOES_ON for k in row.kinds
)

#: Host acts that end an attempt before its buffered messages are posted: a commitment or
#: contribution to such an attempt from a seat the act does not name was rightly unused.
ENDS_ATTEMPT_EARLY: frozenset[str] = frozenset(
    kind
    for row in TRANSITIONS
    if row.in_seats_place and not row.stays
    for phase in row.phases
    if phase in BUFFERED_MESSAGES.values() and phase not in row.next
    for kind in row.kinds
)


# ---- SPEC.md 7, generated ---------------------------------------------------------------------

SPEC_BEGIN = "<!-- transitions: generated from p2pdice/core/transitions.py -->"
SPEC_END = "<!-- transitions: end -->"


def _phases_text(phases: tuple[TablePhase, ...]) -> str:
    every = list(TablePhase)
    if len(phases) > len(every) // 2:
        return "any but " + ", ".join(p.name for p in every if p not in phases)
    return ", ".join(p.name for p in phases)


def _entries_text(row: Transition) -> str:
    prefix = row.entries[0].split(":", 1)[0]
    return f"{prefix}:" + ", ".join(row.kinds)


def _next_text(row: Transition) -> str:
    if row.stays:
        return "unchanged"
    return " or ".join(p.name for p in row.next) or "-"


def _table(
    rows: Iterable[Transition], third: str, fourth: str, last: Callable[[Transition], str]
) -> list[str]:
    out = [f"| phase | entry | {third} | {fourth} |", "|---|---|---|---|"]
    for row in rows:
        cells = (_phases_text(row.phases), _entries_text(row), row.checks, last(row))
        out.append("| " + " | ".join(cells) + " |")
    return out


def _diagram() -> list[str]:
    """A Mermaid state diagram of the phase changes (rows that keep the phase are left out)."""
    edges: dict[tuple[TablePhase, TablePhase], list[str]] = {}
    for row in TRANSITIONS:
        if row.handler is None:
            continue
        for phase in row.phases:
            for after in row.next_phases(phase):
                if after != phase:
                    labels = edges.setdefault((phase, after), [])
                    labels += [k for k in row.kinds if k not in labels]
    out = ["```mermaid", "stateDiagram-v2", "    [*] --> LOBBY: genesis"]
    out += [f"    {a.name} --> {b.name}: {', '.join(k)}" for (a, b), k in edges.items()]
    out += ["    OVER --> [*]", "```"]
    return out


def spec_section() -> str:
    """SPEC.md 7's phase diagram and transition tables, between SPEC_BEGIN and SPEC_END."""
    entries = [row for row in TRANSITIONS if row.carried_in is None]
    carried = [row for row in TRANSITIONS if row.carried_in is not None]
    lines = [
        SPEC_BEGIN,
        "",
        *_diagram(),
        "",
        *_table(entries, "checks (in order)", "next phase", _next_text),
        "",
        *textwrap.wrap(
            "Messages the host collects and posts inside one of its events: an entry of its "
            "own holding one is refused with `WRONG_PHASE`, and the host refuses one that fails "
            "these checks as it arrives.",
            width=96,
        ),
        "",
        *_table(carried, "host's checks", "posted in", lambda r: f"{r.carried_in}"),
        "",
        SPEC_END,
    ]
    return "\n".join(lines) + "\n"
