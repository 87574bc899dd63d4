"""The table state machine: what every entry of a transcript may be, and what it changes.

Theory of operation
-------------------
The host, every peer and the offline verifier run this same machine over the same entries.
The host runs it *before* appending an entry (a message it would refuse never reaches the
log); a peer runs it on each entry as it arrives (so a host that posts something the rules
or the protocol forbid is caught on the spot); `verify` runs it over a saved file. Because
all three share one transition function, they cannot disagree about what is legal.

The phases, which entry each one takes and where it leads are one table, `TRANSITIONS` in
`transitions.py`; protocol/SPEC.md 7's diagram and table are generated from it.

COMMIT collects nothing in the log: the host posts the whole commitment set at once, and
likewise all contributions at once in the beacon entry, because posting any contribution
early would let a late contributor see it. Once a commitment set is posted the attempt is
final: the only ways out are a beacon or a forfeit, never another attempt, so no event leads
to fresh randomness for that round (SPEC.md 1.2.1).

Host-made moves (`forced`), `absent`, `abort`, `forfeit`, `stand_in` and `return` are events
in the host's name, so every such act is attributed to the host in the log.

What a player message commits to about the history is checked before anything else it says
(`check_history`, SPEC.md 7 "Order of checks"): a message made on a history this chain does
not hold is a fork at a peer, whatever else is wrong with it. Checked after the rules, a
forked bid from a seat whose turn it is not in our history read NOT_YOUR_TURN, an alarm
that names no proof, and the fork went unnamed. Then the phase, the seat, the row's own
checks and the rules, the counter and the step, and the Ed25519 signature last, so a flood
of junk costs the host little (a signature is checked early only for a message naming a
history we do not hold, to tell a fork from a forgery).
"""

from __future__ import annotations

from typing import Any

from .errors import LocalError, Reason
from .events import HostEvent, SeatInfo, parse_event
from .frozen import replace
from .messages import Message, MessageType
from .signing import acceptable_public_key
from .table_events import (
    action_json,
    expected_beacon,
    expected_forfeit,
    expected_result,
    expected_roster,
    expected_round,
    forced_move,
    game_over_reason,
    result_decided,
    start_refusal,
    void_limit,
)
from .table_state import (
    Attempt,
    ChainIndex,
    Note,
    Outcome,
    PhaseRefusal,
    TableError,
    TablePhase,
    TableState,
    check_message,
    cpu_seats_owed,
    fail,
    genesis_state,
    require_round,
    table_id_of,
)
from .transcript import ZERO_HASH, Entry, check_link
from .transitions import ENTRY_ROWS, TRANSITIONS, Transition

__all__ = [
    "TRANSITIONS",
    "Attempt",
    "ChainIndex",
    "ForeignHistory",
    "Note",
    "PhaseRefusal",
    "Replayer",
    "SeatInfo",
    "TableError",
    "TablePhase",
    "TableState",
    "Transition",
    "action_json",
    "advance",
    "check_history",
    "check_message",
    "cpu_seats_owed",
    "expected_beacon",
    "expected_forfeit",
    "expected_result",
    "expected_roster",
    "expected_round",
    "forced_move",
    "game_over_reason",
    "genesis_state",
    "require_round",
    "result_decided",
    "start_refusal",
    "table_id_of",
    "void_limit",
]


def advance(
    state: TableState,
    *,
    seq: int,
    chain: ChainIndex,
    event: HostEvent | dict[str, Any] | None = None,
    msg: Message | None = None,
) -> Outcome:
    """The table after entry `seq` carrying `event` or `msg`; TableError (state unchanged) if
    refused. An event may come as JSON, parsed here (RemoteError for a bad shape)."""
    if event is not None:
        item: Any = parse_event(event) if isinstance(event, dict) else event
        kind = "event:" + item.type
    else:
        assert msg is not None
        kind = "msg:" + msg.type
        item = msg
    for carried in (item,) if msg is not None else item.messages:
        check_history(state, carried, chain)
    row = ENTRY_ROWS.get((state.phase, kind))
    if row is None or row.handler is None:
        raise _refusal(row, kind, state.phase).about(*([] if msg is None else [msg.seat]))
    if msg is not None and msg.type != MessageType.JOIN and msg.seat not in state.keys:
        raise fail(Reason.NOT_SEATED, f"seat {msg.seat} is not taken", msg.seat)
    try:
        after, notes = row.handler(state, item, seq, chain)
    except TableError as err:
        if msg is not None:
            err.about(msg.seat)  # a refused message entry is about its sender
        raise
    if after.phase not in row.next_phases(state.phase):
        raise LocalError(
            Reason.INTERNAL,
            f"{kind} during {state.phase} led to {after.phase}, which its transition does not "
            f"declare ({', '.join(row.next_phases(state.phase))})",
        )
    turn_before = state.game.turn if state.game is not None else None
    turn_after = after.game.turn if after.game is not None else None
    step_seq = seq if (after.phase != state.phase or turn_after != turn_before) else state.step_seq
    return replace(after, next_seq=seq + 1, step_seq=step_seq), notes


class ForeignHistory(TableError):
    """A player message, signed by its seat, whose `head` is not an entry of this chain: its
    sender was shown another history. `UNKNOWN_HEAD` here and to a verifier of one file;
    `FORK` at a peer, which holds the host-signed entry carrying it and names the two as the
    proof (SPEC.md 7.1)."""

    def __init__(self, detail: str, message: Message) -> None:
        super().__init__(Reason.UNKNOWN_HEAD, detail, (message.seat,))
        self.message = message


def check_history(state: TableState, msg: Message, chain: ChainIndex) -> None:
    """What `msg` commits to about the history, checked before anything else it says (SPEC.md
    7, "Order of checks", step 0): its table (`WRONG_TABLE`: another table's message names
    that table's entries, which proves nothing about ours), then its `head`. A head that is
    not an entry of `chain` is `ForeignHistory` when the seat's key (a join's own key)
    signed the message; else the message proves nothing and is refused as what it is, from
    a seat we do not know (`NOT_SEATED`) or a forgery (`BAD_SIGNATURE`).

    Only the head: whatever else a message names of the history lies before it (an ack's
    `result` is the result its sender had verified when it signed), and a chain that holds
    the head holds everything before it. So a message whose head we hold and whose result
    we do not is self-contradictory, no sign of another history: the row refuses it."""
    if msg.table != state.table_id:
        raise fail(Reason.WRONG_TABLE, "the message names another table", msg.seat)
    if chain.seq_of(msg.head) is not None:
        return
    signer = msg.bytes_field("key") if msg.type == MessageType.JOIN else _seat_key(state, msg.seat)
    if signer is None:
        raise fail(Reason.NOT_SEATED, f"seat {msg.seat} is not taken", msg.seat)
    if not acceptable_public_key(signer) or not msg.signature_ok(signer):
        raise fail(
            Reason.BAD_SIGNATURE,
            f"the signature of seat {msg.seat}'s {msg.type} does not verify",
            msg.seat,
        )
    raise ForeignHistory(
        f"seat {msg.seat}'s {msg.type} (message {msg.counter}) names head "
        f"{msg.head.hex()[:16]}..., an entry this chain does not hold: it was made on another "
        "history than this one",
        msg,
    )


def _seat_key(state: TableState, seat: int) -> bytes | None:
    """The key a seat signs with now; in the lobby, before the start fixes the keys, the key its
    join named (a lobby seat's message is then refused for its history, not as a stranger's)."""
    key = state.keys.get(seat)
    if key is None and seat in state.joins:
        return state.joins[seat].key
    return key


def _refusal(row: Transition | None, kind: str, phase: TablePhase) -> PhaseRefusal:
    """The error for an entry that `phase` does not take: WRONG_PHASE when no row names it,
    else the code of the row that names it only to refuse it."""
    name = kind.split(":", 1)[1]
    if row is None:
        return PhaseRefusal(
            Reason.WRONG_PHASE, f"{name} is not allowed during {phase}", kind, phase
        )
    assert row.refused is not None
    return PhaseRefusal(
        row.refused,
        f"{row.why_refused} ({name} during {phase})",
        kind,
        phase,
    )


class Replayer:
    """Feeds entries through the chain checks and the table machine, keeping what they teach."""

    def __init__(self) -> None:
        self.chain = ChainIndex()
        self.state: TableState | None = None
        self.notes: list[Note] = []

    @property
    def started(self) -> bool:
        return self.state is not None

    def feed(self, entry: Entry, *, host_signature: bool = True) -> tuple[Note, ...]:
        """Check and apply the next entry; TableError/RemoteError (nothing changed) if refused.
        `host_signature` False leaves the host's signature to the caller (a client checking
        it off a bid's critical path, SPEC.md 6.3); everything else is checked as ever."""
        if self.state is None:
            if entry.event is None:
                raise fail(Reason.BAD_EVENT, "a transcript starts with a genesis event")
            state = genesis_state(entry.host_event or entry.event)
            check_link(entry, seq=0, prev=ZERO_HASH, host_key=state.host_key, table=state.table_id)
            notes: tuple[Note, ...] = (Note("genesis", None, None, state.name),)
        else:
            check_link(
                entry,
                seq=len(self.chain),
                prev=self.chain.head,
                host_key=self.state.host_key,
                table=self.state.table_id,
                host_signature=host_signature,
            )
            state, notes = advance(
                self.state,
                seq=entry.seq,
                chain=self.chain,
                event=entry.host_event or entry.event,
                msg=entry.msg,
            )
        self.state = state
        self.chain.append(entry.hash)
        self.notes.extend(notes)
        return notes
