"""The state of a table as its transcript builds it, and the checks every transition shares.

`table.py` holds the transitions; this module holds what they act on: phases, the roster, the
current attempt, the chain index, and the message checks (protocol/SPEC.md 4.1, 7).
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from enum import StrEnum
from typing import Any

from .bids import Bid
from .codec import encode
from .errors import P2PDiceError, Reason, RemoteError, RuleError
from .events import Genesis, HostEvent, SeatInfo, parse_event
from .fairness import (
    SeatContext,
)
from .game import (
    GameState,
    Phase,
    apply,
)
from .hashing import Tag, tagged_hash
from .messages import Message, MessageType
from .rules import Rules
from .version import PROTOCOL_VERSION


class TablePhase(StrEnum):
    LOBBY = "lobby"  #: seats are being taken
    BETWEEN = "between"  #: waiting for the host to open the next attempt
    COMMIT = "commit"  #: an attempt is open; the host gathers commitments
    CONTRIBUTE = "contribute"  #: the commitment set is posted; the host gathers contributions
    BIDDING = "bidding"  #: hands exist; players bid and call
    SHOWDOWN = "showdown"  #: a call was made; players open their seeds
    RESULT = "result"  #: the round's result is posted; acknowledgements, then the next round
    OVER = "over"  #: the game-over entry is posted; nothing may follow


class TableError(RemoteError):
    """An entry (or a message offered for one) that the table cannot accept; `seats` are the
    seats whose message or hand it is about (empty when it is about no seat in particular)."""

    def __init__(self, reason: Reason, detail: str = "", seats: tuple[int, ...] = ()) -> None:
        super().__init__(reason, detail)
        self.seats = seats

    def about(self, *seats: int) -> TableError:
        """This error, blaming `seats` unless it already names the seats it is about."""
        if not self.seats:
            self.seats = seats
        return self


class PhaseRefusal(TableError):
    """An entry the current phase does not take (`WRONG_PHASE`, or the code of the transition
    that names it only to refuse it): which entry, and in which phase."""

    def __init__(self, reason: Reason, detail: str, entry: str, phase: TablePhase) -> None:
        super().__init__(reason, detail)
        self.entry = entry  #: `msg:<type>` or `event:<type>`
        self.phase = phase


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    round: int
    attempt: int
    seats: tuple[int, ...]
    dice: tuple[int, ...]  #: per seat of the table
    starter: int | None
    palifico: bool
    commits: dict[int, tuple[bytes, bytes]] = field(default_factory=dict)
    commit_set: bytes | None = None
    contributions: tuple[bytes, ...] = ()
    beacon: bytes | None = None
    openings: dict[int, tuple[int, ...]] = field(default_factory=dict)  #: seat -> hand

    def context(self, table_id: bytes, seat: int, key: bytes) -> SeatContext:
        return SeatContext(
            table_id=table_id,
            round=self.round,
            attempt=self.attempt,
            seat=seat,
            key=key,
            dice=self.dice[seat],
        )


@dataclass(frozen=True, slots=True)
class Note:
    """A fact an entry established, for reports and screens.

    `detail` is a sentence for people; the facts a screen needs are fields of their own, so
    no front end parses `detail`.
    """

    kind: str
    round: int | None = None
    seat: int | None = None
    detail: str = ""
    _: KW_ONLY
    attempt: int | None = None  #: round, commit_set, abort, beacon, forfeit
    #: Why the host acted, as the event says it: forced (`timer`, `absent`), absent
    #: (`grace_expired`, `no_reply`), abort (`commit_timeout`), forfeit (`no_contribution`,
    #: `no_opening`), game_over (`finished`, `abandoned`)
    reason: str | None = None
    action: str | None = None  #: a forced move's action type: `bid`, `challenge`, `next_round`
    outcome: str | None = None  #: a result's outcome (`bid_stands`, ...)
    bid: Bid | None = None  #: a bid's bid
    hand: tuple[int, ...] | None = None  #: an opened hand


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState:
    table_id: bytes
    host_key: bytes
    name: str
    rules: Rules
    host_cpu: int
    phase: TablePhase
    #: The genesis `cpu_fill`: empty seats are filled with host-run CPUs at the start.
    cpu_fill: bool = False
    joins: dict[int, SeatInfo] = field(default_factory=dict)
    roster: tuple[SeatInfo, ...] = ()
    keys: dict[int, bytes] = field(default_factory=dict)  #: the key signing for each seat now
    stand_ins: frozenset[int] = frozenset()
    absent: frozenset[int] = frozenset()
    game: GameState | None = None
    attempt: Attempt | None = None
    after_abort: bool = False
    counters: dict[bytes, int] = field(default_factory=dict)
    acks: frozenset[int] = frozenset()
    result_seq: int | None = None
    start_seq: int | None = None
    next_seq: int = 1
    #: The entry that began the current step (phase or turn); messages must have seen it.
    step_seq: int = 0
    #: Every commitment value posted at this table, so none is ever accepted twice.
    used_commitments: frozenset[bytes] = frozenset()
    #: Rounds voided so far for a missing contribution (at most table.void_limit).
    voids: int = 0
    #: The host key and every key that ever joined (lobby leavers included) or stood in: a
    #: stand-in needs a key outside this set (SPEC.md 7).
    used_keys: frozenset[bytes] = frozenset()

    def seat_of_key(self, key: bytes) -> int | None:
        for seat, k in self.keys.items():
            if k == key:
                return seat
        return None

    def seat_joined_by(self, key: bytes) -> int | None:
        """The seat `key` joined (the roster, or a join in the lobby), also while a stand-in
        signs for it: the seat's own key takes it back by authenticating (SPEC.md 8)."""
        seat = self.seat_of_key(key)
        if seat is not None:
            return seat
        for info in (*self.roster, *self.joins.values()):
            if info.key == key:
                return info.seat
        return None


class ChainIndex:
    """Append-only: the hash of every entry so far, and where each one stands."""

    def __init__(self) -> None:
        self.hashes: list[bytes] = []
        self._seq_of: dict[bytes, int] = {}

    def append(self, entry_hash: bytes) -> None:
        self._seq_of[entry_hash] = len(self.hashes)
        self.hashes.append(entry_hash)

    def seq_of(self, entry_hash: bytes) -> int | None:
        return self._seq_of.get(entry_hash)

    @property
    def head(self) -> bytes:
        return self.hashes[-1]

    def __len__(self) -> int:
        return len(self.hashes)


def table_id_of(genesis: Genesis | dict[str, Any]) -> bytes:
    """The table id: the hash of the genesis event's canonical JSON (SPEC.md 3.1)."""
    obj = genesis.to_json() if isinstance(genesis, Genesis) else genesis
    return tagged_hash(Tag.TABLE, encode(obj))


def fail(reason: Reason, detail: str, *seats: int) -> TableError:
    """A refusal; `seats` are those whose message or hand it is about."""
    return TableError(reason, detail, seats)


# ---- genesis ---------------------------------------------------------------------------------


def genesis_state(event: HostEvent | dict[str, Any]) -> TableState:
    """The table as its genesis event (typed, or JSON parsed here) creates it."""
    genesis = parse_event(event) if isinstance(event, dict) else event
    if not isinstance(genesis, Genesis):
        raise fail(Reason.BAD_EVENT, "a transcript starts with a genesis event")
    if genesis.protocol != PROTOCOL_VERSION:
        raise fail(
            Reason.BAD_EVENT,
            f"protocol {genesis.protocol} is not supported (this is {PROTOCOL_VERSION})",
        )
    try:
        rules = Rules.from_json(genesis.rules)
    except P2PDiceError as err:
        raise fail(Reason.BAD_EVENT, f"genesis rules: {err.detail}") from None
    if genesis.host_cpu > rules.seats:
        raise fail(Reason.BAD_EVENT, "more host-run CPU seats than seats")
    return TableState(
        table_id=table_id_of(event if isinstance(event, dict) else genesis),
        host_key=genesis.host,
        name=genesis.name,
        rules=rules,
        host_cpu=genesis.host_cpu,
        cpu_fill=genesis.cpu_fill,
        phase=TablePhase.LOBBY,
        used_keys=frozenset({genesis.host}),
    )


# ---- checks shared by the transitions -------------------------------------------------------


def check_message(
    state: TableState, msg: Message, chain: ChainIndex, *, key: bytes | None = None
) -> None:
    """Table, seat, counter, head, then the signature (cheapest first)."""
    if msg.table != state.table_id:
        raise fail(Reason.WRONG_TABLE, "the message names another table", msg.seat)
    signer = key if key is not None else state.keys.get(msg.seat)
    if signer is None:
        raise fail(Reason.NOT_SEATED, f"seat {msg.seat} is not taken", msg.seat)
    last = state.counters.get(signer, -1)
    if msg.counter <= last:
        raise fail(Reason.REPLAY, f"counter {msg.counter} is not above {last}", msg.seat)
    head_seq = chain.seq_of(msg.head)
    if head_seq is None:
        raise fail(
            Reason.UNKNOWN_HEAD, "the message refers to an entry this chain does not hold", msg.seat
        )
    if msg.type != MessageType.JOIN and head_seq < state.step_seq:
        # Made before the step it acts in began: a message held back and replayed later.
        raise fail(
            Reason.REPLAY,
            f"the {msg.type} was made at entry {head_seq}, before this step began at entry {state.step_seq}",
            msg.seat,
        )
    if not msg.signature_ok(signer):
        raise fail(
            Reason.BAD_SIGNATURE,
            f"the signature of seat {msg.seat}'s {msg.type} does not verify",
            msg.seat,
        )


def cpu_seats_owed(state: TableState) -> int:
    """Host-run seats the genesis promised (`host_cpu`) that have not joined yet: they join
    at the latest just before the start (this program's host seats them when the start is
    due, after the people)."""
    return max(0, state.host_cpu - sum(1 for s in state.joins.values() if s.host_run))


def count_of(state: TableState, msg: Message, key: bytes | None = None) -> dict[bytes, int]:
    signer = key if key is not None else state.keys[msg.seat]
    return {**state.counters, signer: msg.counter}


def require_round(state: TableState, round_: int, attempt: int | None = None) -> None:
    """An entry names the game's current round (and, when it names one, the current attempt)."""
    game = state.game
    assert game is not None
    if round_ != game.round:
        raise fail(Reason.WRONG_ROUND, f"round {round_}, not {game.round}")
    if attempt is not None:
        assert state.attempt is not None
        if attempt != state.attempt.attempt:
            raise fail(Reason.WRONG_ROUND, f"attempt {attempt}, not {state.attempt.attempt}")


def require_next_round(game: GameState) -> None:
    """A next round exists: after the final round (the game over by the rules) a `next_round`,
    sent or forced, is refused for the phase (`WRONG_PHASE`, SPEC.md 7), whoever it names."""
    if game.phase == Phase.GAME_OVER:
        raise fail(Reason.WRONG_PHASE, "the final round is over: there is no next round")


def rules_step(game: GameState, event: Any) -> GameState:
    try:
        return apply(game, event)
    except RuleError as err:
        raise fail(err.reason, err.detail) from None


Outcome = tuple[TableState, tuple[Note, ...]]
