"""What the table screen shows, as plain data: a pure function of a Snapshot and the entry.

A `Snapshot` holds everything one screen may know, read from a ClientSession by
`ui.snapshot` (the only module that touches the session): the seat's SeatView, the roster,
connection status, the comparison code, pending messages, alarms and the log's notes.
`table_model()` turns it into a `TableModel`: rows of text, flags and the keys that make
sense right now. Nothing here imports prompt_toolkit, so every decision is unit-tested
directly; names from the network are cleaned here, once, before anything draws them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..bots.estimate import how_long
from ..bots.odds import bid_true_chance
from ..core.bids import Bid
from ..core.describe import amount, bid_words
from ..core.game import Phase
from ..core.rules import MIN_SEATS, FirstStarter, Palifico, PalificoKind, Rules, TableKind
from ..core.table import TablePhase
from ..core.transitions import BUFFERED_MESSAGES, CHOSEN_MESSAGES, ENTRY_ROWS, MESSAGE_PHASE
from ..core.view import SeatView
from .bidentry import BidChoices, BidSyntaxError, parse_bid
from .facts import AlarmFacts, FindingFacts, NoteFacts
from .ratings import RatingBook, short
from .text import safe_name, safe_text, width

#: Message types a player sends by choice (the others are sent by the protocol itself).
USER_KINDS = CHOSEN_MESSAGES
#: The message that starts the next round: the one a player chooses once a round's result
#: is posted (core.transitions).
NEXT_ROUND = next(kind for kind in CHOSEN_MESSAGES if MESSAGE_PHASE[kind] == TablePhase.RESULT)
#: The phases of a round's deal, before its hands exist: the one a round opens in, and those
#: in which the host gathers every seat's commitment and contribution (core.transitions).
DEALING_PHASES = frozenset(
    {str(phase) for phase in BUFFERED_MESSAGES.values()}
    | {
        str(phase)
        for (phase, entry), row in ENTRY_ROWS.items()
        if entry == "event:round" and row.refused is None
    }
)


@dataclass(frozen=True, slots=True, kw_only=True)
class SeatFacts:
    name: str  #: as received; cleaned before display
    cpu: bool = False
    host_run: bool = False
    key: str = ""  #: the seat's public key (hex): its rating, when this device knows it


@dataclass(frozen=True, slots=True, kw_only=True)
class EndCheck:
    """The end-of-game self-check: whether the transcript verified, and what our checks of
    the host found."""

    verified: bool
    findings: tuple[FindingFacts, ...] = ()
    notes: tuple[str, ...] = ()  #: what it says that accuses nobody, one sentence each


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshot:
    """Everything one screen may know about one table, from one seat's point of view."""

    table_name: str = ""
    rules: Rules | None = None
    phase: str = "connecting"  #: a TablePhase value, or "connecting"
    seats: tuple[SeatFacts | None, ...] = ()  #: None: a free seat (before the start)
    view: SeatView | None = None
    me: int | None = None  #: the seat this screen speaks for; None: spectator or nobody
    my_name: str = ""  #: the name this session sits (or asked to sit) under, as sent
    watching: bool = False  #: joined as a spectator (not a player still taking a seat)
    mine: tuple[int, ...] = ()  #: every seat this device holds
    connected: frozenset[int] | None = None
    deadline: float | None = None  #: event-loop time at which the turn timer runs out
    turn_left: float | None = None  #: seconds until the turn timer runs out
    bank_deadline: float | None = None  #: event-loop time at which the seat on turn is out of time
    bank_left: float | None = None  #: seconds until then (shown once its time bank is low)
    code: str | None = None
    #: (entry, its comparison code): the game-over entry, else the latest result (SPEC.md 3.5)
    history: tuple[int, str] | None = None
    pending: frozenset[str] = frozenset()
    pending_action: str | None = None  #: what we sent and the log does not show yet
    alarms: tuple[AlarmFacts, ...] = ()
    halted: bool = False
    notes: tuple[NoteFacts, ...] = ()
    openings: Mapping[int, tuple[int, ...]] = field(default_factory=dict)
    absent: frozenset[int] = frozenset()
    stand_ins: frozenset[int] = frozenset()
    #: Our seat is absent and the host knows we are back (we authenticated after the absence).
    back_asked: bool = False
    host_cpu: int = 0
    #: The genesis `cpu_fill`: the host's CPUs take the seats still empty at the start.
    cpu_fill: bool = False
    #: On the device that hosts the table: the level of each of its `host_cpu` CPUs, in the
    #: order they sit down, and those of the CPUs that fill the empty seats (the last level
    #: for every seat past the list). Other devices do not know them.
    cpu_levels: tuple[str, ...] = ()
    fill_levels: tuple[str, ...] = ()
    #: This device hosts the table: its waiting screen offers the start key.
    hosting: bool = False
    transcript: str | None = None
    link: str = "connecting"  #: connecting, connected, reconnecting, lost, closed (ENDED_LINKS)
    fatal: tuple[str, str] | None = None  #: (reason, detail): refused for good
    notice: str | None = None  #: what the link waits for (a busy password table), if anything
    errors: tuple[tuple[str, str], ...] = ()  #: (reason, detail) of each refusal, newest last
    finished: bool = False  #: the log holds the game's end
    #: Why the host last closed our connection (core.closing): "paused", "ended", "idle".
    host_closing: str | None = None
    #: Seconds until this client starts the next round by itself (its seat starts it).
    next_round_in: float | None = None
    #: The end-of-game self-check; None until the game is over and the check has run.
    final_check: EndCheck | None = None
    table_id: str = ""  #: hex
    #: Ratings this device computed from its verified games (the command line reads them).
    ratings: RatingBook = field(default_factory=RatingBook)

    @property
    def names(self) -> list[str]:
        return [
            "(free seat)" if s is None else safe_name(s.name, f"seat {i}")
            for i, s in enumerate(self.seats)
        ]

    @property
    def kind(self) -> TableKind:
        return self.rules.kind if self.rules is not None else TableKind.STANDARD

    @property
    def switches_seats(self) -> bool:
        """Tab switches seats: a practice table where this device plays several."""
        return len(self.mine) > 1 and self.kind == TableKind.PRACTICE

    @property
    def can_start(self) -> bool:
        """`s` starts the game: the host's waiting screen."""
        return self.hosting and self.phase == "lobby"


@dataclass(frozen=True, slots=True)
class EntryState:
    """The bid being composed: a cursor over legal bids, or typed text."""

    cursor: Bid | None = None
    typed: str = ""
    show_odds: bool = False


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    name: str
    dice: str
    status: str
    is_turn: bool = False
    is_me: bool = False
    mine: bool = False
    out: bool = False
    trouble: bool = False  #: disconnected or away
    rating: str = ""  #: "24.1", "24.1?" while provisional; "" when this device knows none


@dataclass(frozen=True, slots=True)
class BidLine:
    name: str
    bid: str
    pending: bool = False
    mine: bool = False


@dataclass(frozen=True, slots=True)
class EntryModel:
    """The bid entry of the seat whose turn it is."""

    selected: Bid | None
    selected_text: str
    typed: str
    preview: str  #: what the typed text means, or why it is not a legal bid
    preview_ok: bool
    can_bid: bool
    can_challenge: bool
    can_exact: bool
    odds: str = ""


@dataclass(frozen=True, slots=True)
class TableModel:
    title: str
    subtitle: str
    code: str
    seats: tuple[SeatRow, ...]
    bids: tuple[BidLine, ...]
    standing: str
    turn_line: str
    hand: tuple[int, ...]
    hand_label: str
    entry: EntryModel | None
    notices: tuple[str, ...]
    alarm: str | None
    can_undo: bool
    my_turn: bool
    keys: tuple[tuple[str, str], ...]


# ---- small facts ----------------------------------------------------------------------------


def code_text(code: str | None) -> str:
    return f"code {code}" if code else "code: at the start"


def alarm_line(what: str, detail: str = "") -> str:
    """Every alarm on every screen, worded one way: "ALARM <what>: <detail>" (a seat's reveal
    cell shows just "ALARM <what>")."""
    line = f"ALARM {safe_text(what, 40)}"
    return f"{line}: {safe_text(detail, 160)}" if detail else line


def play_alarm_line(alarm: AlarmFacts) -> str:
    """An alarm raised during play: its reason code, then its sentence."""
    return alarm_line(alarm.reason, alarm.detail)


def finding_line(finding: FindingFacts) -> str:
    """A finding of the end-of-game check: which check found it, then its sentence."""
    if finding.kind == "verify":
        return alarm_line("verify --mine" if finding.mine else "verify", finding.detail)
    return alarm_line(finding.kind, finding.detail)


def seat_alarm_label(reason: str) -> str:
    """A seat's cell at the reveal when an alarm names it: the reason in words."""
    return alarm_line(reason.lower().replace("_", " "))


def alarm_text(snap: Snapshot) -> str | None:
    if not snap.alarms:
        return None
    tail = " - stopped following this host" if snap.halted else ""
    return play_alarm_line(snap.alarms[-1]) + tail


def alarm_seats(snap: Snapshot) -> dict[int, str]:
    """Seats an alarm names (e.g. a tampered opening), with the alarm's reason."""
    return {a.seat: a.reason for a in snap.alarms if a.seat is not None}


def bank_text(snap: Snapshot, names: Sequence[str]) -> str:
    """The low time bank of the seat on turn (SPEC.md 8), after the turn line; "" otherwise."""
    view = snap.view
    if snap.bank_left is None or view is None or view.turn is None:
        return ""
    who = "Your" if view.turn == snap.me else f"{names[view.turn]}'s"
    return f"  ({who} time bank: out of time in {max(int(snap.bank_left + 0.999), 0)} s)"


def palifico_words(rules: Rules) -> str:
    """What a palifico round changes at this table (RULES.md R5), in a few words, named."""
    return "palifico: " + palifico_changes(rules)


def palifico_changes(rules: Rules) -> str:
    """What a palifico round changes at this table: "face fixed, ones not wild"."""
    parts = []
    if rules.palifico_kind != PalificoKind.ONES_NOT_WILD:
        free = rules.palifico == Palifico.FREE
        parts.append("face fixed" + (" (a one-die player may change it)" if free else ""))
    if rules.palifico_kind != PalificoKind.FACE_FIXED:
        parts.append("ones not wild")
    return ", ".join(parts)


def timer_text(seconds: float | None) -> str:
    if seconds is None:
        return ""
    left = max(0, int(seconds + 0.999))
    return f"{left // 60}:{left % 60:02d} left"


#: What the host's blind move was, in words (RULES.md R8: a call, the lowest bid, the start).
FORCED_WORDS = {
    "challenge": "called Liar",
    "bid": "made the lowest bid",
    "next_round": "started the next round",
}
#: Why a seat forfeited (SPEC.md §8), in words.
FORFEIT_WORDS = {
    "no_opening": "never showed their dice at the reveal",
    "no_contribution": "never sent their part of the dice roll",
}


def _forced(note: NoteFacts, who: str) -> str:
    cause = {"timer": f"{who}'s time ran out", "stalled": f"{who}'s time bank ran out"}.get(
        note.reason, f"{who} was away"
    )
    return f"{cause}, so the host {FORCED_WORDS.get(note.action, 'made a move')} for them"


def _absent(note: NoteFacts, who: str) -> str:
    if note.reason == "stalled":
        return f"{who} ran out of time (their time bank is used up): the host moves for them"
    why = {"no_reply": "no answer from their device", "grace_expired": "gone too long"}.get(
        note.reason, "no answer"
    )
    return f"{who} is away ({why}): the host moves for them when needed"


def _forfeit(note: NoteFacts, who: str) -> str:
    why = FORFEIT_WORDS.get(note.reason, "did not take part in time")
    return f"{who} {why}, so they are out of the game"


#: Log note kind -> its line, for the notes that record something done to a seat rather
#: than by it (the host's acts in its place, and its stand-ins).
_FAULT_LINES: Mapping[str, Callable[[NoteFacts, str], str]] = {
    "forced": _forced,
    "absent": _absent,
    "abort": lambda note, who: f"the deal started again: {who} did not lock in their dice in time",
    "forfeit": _forfeit,
    "stand_in": lambda note, who: f"a CPU run by the host now plays for {who}",
    "returned": lambda note, who: f"{who} is back and plays again",
}
#: Log notes that record something done to a seat rather than by it.
FAULT_KINDS = tuple(_FAULT_LINES)


def fault_line(note: NoteFacts, names: list[str]) -> str | None:
    """A forced move, absence, abort, forfeit or stand-in, with the seat it concerns."""
    line = _FAULT_LINES.get(note.kind)
    if line is None:
        return None
    who = names[note.seat] if note.seat is not None and note.seat < len(names) else "a seat"
    return line(note, who)


def _stalled_after(stalled: set[int], note: NoteFacts) -> None:
    """Follow which seats are away because their time bank ran out, note by note."""
    if note.seat is not None and note.kind in ("absent", "returned"):
        if note.kind == "absent" and note.reason == "stalled":
            stalled.add(note.seat)
        else:
            stalled.discard(note.seat)


def stalled_seats(snap: Snapshot) -> set[int]:
    """The seats away now because their time bank ran out (not because they left)."""
    stalled: set[int] = set()
    for note in snap.notes:
        _stalled_after(stalled, note)
    return stalled & set(snap.absent)


def faults_of_round(snap: Snapshot, round_: int | None) -> list[str]:
    names = snap.names
    lines = []
    stalled: set[int] = set()  #: seats whose time bank ran out, until they play again
    for note in snap.notes:
        _stalled_after(stalled, note)
        if round_ is None or note.round == round_:
            if note.kind == "forced" and note.reason == "absent" and note.seat in stalled:
                # Away in the log's terms, but the player was there: their bank ran out.
                note = replace(note, reason="stalled")
            line = fault_line(note, names)
            if line:
                lines.append(line)
    return lines


def preferred_face(view: SeatView) -> int | None:
    """The face this seat holds most of (counting wild ones), ties to the higher face."""
    if not view.hand:
        return None
    return max(range(1, 7), key=lambda f: (view.own_matching(f), f))


def choices_of(view: SeatView) -> BidChoices:
    return BidChoices.of(view.lowest_bids_per_face(), view.dice_in_play)


def start_cursor(view: SeatView) -> Bid | None:
    return choices_of(view).start(standing=view.standing_bid, preferred_face=preferred_face(view))


def odds_text(view: SeatView, bid: Bid) -> str:
    if view.seat is None or not view.hand:
        return ""
    return f"{round(100 * bid_true_chance(view, bid))}%"


# ---- the seat list --------------------------------------------------------------------------


#: Columns of the seat list's status: every status `_status` gives fits (tests/ui).
STATUS_WIDTH = 22


def back_for_next_round(snap: Snapshot) -> bool:
    """Our seat was declared away and we are connected again: it plays again from the next
    round (the host posts its return between rounds), a CPU or the host moving for it till
    then."""
    return (
        snap.me is not None
        and snap.me in snap.absent
        and snap.link == "connected"
        and (snap.connected is None or snap.me in snap.connected)
        # Out of time while connected: the host returns a seat only to a fresh authentication,
        # which a move key asks for (out_of_time_words says so until then).
        and (snap.back_asked or snap.me not in stalled_seats(snap))
    )


def out_of_time_words(snap: Snapshot) -> str:
    """Our seat's time bank ran out while we stayed at the table: who plays it, and how to
    take it back (the host gives a seat back only to its own key authenticating again); ""
    when that is not our case."""
    if snap.me is None or snap.me not in stalled_seats(snap) or snap.back_asked:
        return ""
    mover = "a CPU plays your seat" if snap.me in snap.stand_ins else "the host moves for you"
    # A move key takes it back (Controller._bidding_view): the client authenticates afresh.
    return (
        f"Your time bank ran out: {mover}. Press Enter or l when you are back: your seat"
        " returns at the next round."
    )


def _empty_seat(snap: Snapshot, seat: int) -> str:
    """What an empty seat becomes at the start, on every screen (SPEC.md 3.3), said as if the
    start were now: the host's CPUs still to sit down take the lowest empty seats, after the
    people (their seats are kept for them), then on a `cpu_fill` table the fill CPUs take the
    rest; the host's own screen names their levels."""
    empty = [s for s, facts in enumerate(snap.seats) if facts is None]
    owed = max(0, snap.host_cpu - sum(1 for f in snap.seats if f is not None and f.host_run))
    place = empty.index(seat) if seat in empty else len(empty)
    if place < owed:
        levels = snap.cpu_levels[len(snap.cpu_levels) - owed :]
        if place < len(levels):
            return _within(f"kept: CPU {levels[place]}", f"kept: {levels[place]}")
        return "kept for a host CPU"
    if not snap.cpu_fill:
        return "free: left out"
    if snap.fill_levels:
        level = snap.fill_levels[min(place - owed, len(snap.fill_levels) - 1)]
        return _within(f"at start: CPU {level}", f"at start: {level}", f"start: {level}")
    return "free: CPU at the start"


def _within(*said: str) -> str:
    """The first of these wordings that fits the status column (a style's name is long)."""
    return next((s for s in said if len(s) <= STATUS_WIDTH), said[-1])


def _status(snap: Snapshot, seat: int, facts: SeatFacts | None) -> tuple[str, bool]:
    view = snap.view
    if facts is None:
        return _empty_seat(snap, seat), False
    role = ""
    if facts.cpu:
        role = "CPU, host-run" if facts.host_run else "CPU"
    if seat in snap.mine and snap.kind != TableKind.STANDARD:
        role = "this device"
    elif seat == snap.me:
        role = "you"
    if view is not None and view.dice[seat] == 0:
        return "out", False
    if seat == snap.me and back_for_next_round(snap):
        return "back next round", True
    if seat in snap.absent:
        return ("away, CPU stand-in" if seat in snap.stand_ins else "away"), True
    if snap.connected is not None and snap.phase != "connecting" and seat not in snap.connected:
        return "disconnected", True
    if view is not None and view.phase == Phase.BIDDING and view.turn == seat:
        if seat != snap.me and seat in snap.mine and snap.kind == TableKind.PRACTICE:
            return "to play: Tab", False
        what = "your turn" if seat == snap.me else "thinking"
        if not role or seat == snap.me:
            return what, False
        # "thinking (CPU, host-run)" does not fit: the seat's row says host-run the rest of
        # the time.
        status = f"{what} ({role})"
        return (status if len(status) <= STATUS_WIDTH else f"{what} (CPU)"), False
    if view is not None and view.phase == Phase.ROUND_OVER and view.next_starter == seat:
        return "starts next round", False
    return role, False


def seat_rows(snap: Snapshot) -> tuple[SeatRow, ...]:
    names = snap.names
    view = snap.view
    rows = []
    for seat, facts in enumerate(snap.seats):
        status, trouble = _status(snap, seat, facts)
        dice = str(view.dice[seat]) if view is not None and seat < len(view.dice) else "-"
        rows.append(
            SeatRow(
                seat=seat,
                name=names[seat],
                dice=dice,
                status=status,
                is_turn=view is not None and view.phase == Phase.BIDDING and view.turn == seat,
                is_me=seat == snap.me,
                mine=seat in snap.mine,
                out=view is not None and seat < len(view.dice) and view.dice[seat] == 0,
                trouble=trouble,
                rating=short(snap.ratings.figures.get(facts.key)) if facts and facts.key else "",
            )
        )
    return tuple(rows)


# ---- the table screen -----------------------------------------------------------------------


def waiting_length(snap: Snapshot) -> str:
    """The waiting screen's estimate of the game's length for the party that is there: the
    seats taken (the host's CPUs still to sit down among them) if it started now, every seat
    on a table whose empty seats CPUs fill, at least the two a game needs."""
    rules = snap.rules
    if rules is None or snap.phase != "lobby" or rules.kind != TableKind.STANDARD:
        return ""
    seated = [s for s in snap.seats if s is not None]
    owed = max(0, snap.host_cpu - sum(1 for s in seated if s.host_run))
    taken = len(seated) + owed
    players = rules.seats if snap.cpu_fill else max(taken, MIN_SEATS)
    # Who opens round 1 changes nothing of the length, and a named seat may lie beyond them.
    party = rules.with_options(seats=players, first_starter=FirstStarter.RANDOM)
    when = "started now" if snap.cpu_fill or taken >= MIN_SEATS else f"with {MIN_SEATS} players"
    return f"Length, {when}: {how_long(party)}"


def _standing(snap: Snapshot) -> str:
    view = snap.view
    names = snap.names
    if view is None:
        return waiting_length(snap)
    bid = view.standing_bid
    palifico = f"  ({palifico_words(view.rules)})" if view.palifico_round else ""
    if view.phase == Phase.BIDDING and bid is None and view.starter is not None:
        who = "you open" if view.starter == snap.me else f"{names[view.starter]} opens"
        return f"No bid yet: {who} round {view.round}.{palifico}"
    if bid is None:
        return ""
    bidder = view.standing_bidder
    who = names[bidder] if bidder is not None else "?"
    return f"Current bid: {bid_words(bid)} by {who}{palifico}"


#: How a link that ended reads (ui.snapshot.link_word): nothing more reaches the table.
ENDED_LINKS = ("lost", "closed")

PAUSED_LINE = (
    "The host paused the table; it can be resumed. Waiting for it to come back "
    "(your seat and dice are kept; q leaves)."
)
LOST_LINE = "The host stopped answering. Your verified transcript so far is saved."
RECONNECTING_LINE = "Connection lost: reconnecting (your seat and dice are kept)..."


def link_note(snap: Snapshot) -> str | None:
    """How the link to the host stands when it is not simply up (paused, lost, coming back),
    for a screen shown over the table (a reveal being read): None when connected."""
    if snap.host_closing == "paused" and snap.link != "connected":
        return PAUSED_LINE
    if snap.link == "lost":
        return LOST_LINE
    if snap.link == "reconnecting":
        return RECONNECTING_LINE
    return None


def _turn_line(snap: Snapshot) -> str:
    view = snap.view
    names = snap.names
    phase = snap.phase
    if snap.fatal is not None:
        return f"Refused by the host: {safe_text(snap.fatal[1], 120)}"
    if snap.host_closing == "paused" and snap.link != "connected":
        return PAUSED_LINE
    if phase == "connecting" and snap.link in ("lost", "closed"):
        return "Could not reach the table: press q to go back."
    if snap.link == "lost":
        return LOST_LINE
    if phase == "connecting" or snap.link == "connecting":
        return "Connecting to the table..."
    if snap.link == "reconnecting":
        return RECONNECTING_LINE
    if phase == "lobby":
        return lobby_line(snap)
    if view is None:
        return "Setting up the table..."
    if phase in DEALING_PHASES:
        return f"Round {view.round}: dealing (every seat commits to its dice)..."
    if view.phase == Phase.BIDDING and view.turn is not None:
        timer = timer_text(snap.turn_left)
        timer = f"  [{timer}]" if timer else ""
        if view.turn == snap.me and snap.me in snap.absent:
            mover = "its CPU stand-in" if snap.me in snap.stand_ins else "the host"
            return f"Your seat's turn: {mover} plays it until the next round.{timer}"
        timer += bank_text(snap, names)
        if view.turn == snap.me:
            return f"Your turn.{timer}"
        if view.turn in snap.mine and snap.kind == TableKind.PRACTICE:
            return f"Your other seat, {names[view.turn]}, is to play: press Tab.{timer}"
        if view.turn in snap.absent:
            mover = "its CPU stand-in" if view.turn in snap.stand_ins else "the host"
            return f"{names[view.turn]} is away: {mover} moves for them.{timer}"
        if snap.connected is not None and view.turn not in snap.connected:
            return f"{names[view.turn]} is disconnected: waiting for them to come back.{timer}"
        return f"{names[view.turn]} is thinking...{timer}"
    if view.phase == Phase.SHOWDOWN:
        return "The call is made: hands are being opened..."
    if view.phase == Phase.ROUND_OVER and view.next_starter is not None:
        return next_round_line(snap)
    return ""


#: Pass-and-play, where the dice would be while nobody holds the device (a CPU's turn).
PASSED_ROUND = "Dice stay hidden until the next player takes the device."
#: Pass-and-play, once every person at this device is out and CPUs play on.
ALL_OUT = "Everyone at this device is out: the CPUs play the game to its end."
#: What a player who came after the start reads where their dice would be.
LATE_ARRIVAL = "The game started before you sat down: you are watching; dice stay hidden."


def lobby_line(snap: Snapshot) -> str:
    """Who the waiting screen waits for, and who may start (SPEC.md 3.3: two seats or more,
    up to the table's seats, started by the host)."""
    seated = [s for s in snap.seats if s is not None]
    # Host CPU seats promised by the genesis and not seated yet count as taken.
    owed = max(0, snap.host_cpu - sum(1 for s in seated if s.host_run))
    taken = len(seated) + owed
    most = len(snap.seats)
    if taken >= most:
        return f"Every seat is taken ({taken}): the game is starting."
    if taken < MIN_SEATS:
        return f"Waiting for players: {taken} seated of up to {most}; a game needs {MIN_SEATS}."
    if snap.hosting:
        return f"{taken} seated of up to {most}: press s to start, or wait for more."
    return f"Waiting for the host to start: {taken} seated; the host can start now."


def next_round_line(snap: Snapshot) -> str:
    """Who starts the next round, said on every screen that shows a finished round."""
    view = snap.view
    if view is None or view.next_starter is None:
        return ""
    name = snap.names[view.next_starter]
    if view.next_starter not in snap.mine:
        return f"{name} starts the next round."
    who = "You start" if view.next_starter == snap.me else f"{name} (this device) starts"
    later = ""
    if snap.next_round_in is not None:
        later = f" (it starts by itself in {max(0, int(snap.next_round_in + 0.999))} s)"
    return f"{who} the next round: press Enter{later}."


def _bid_lines(snap: Snapshot) -> tuple[BidLine, ...]:
    view = snap.view
    if view is None:
        return ()
    names = snap.names
    lines = [BidLine(names[b.seat], bid_words(b.bid), mine=b.seat == snap.me) for b in view.bids]
    if snap.pending_action and snap.me is not None:
        lines.append(BidLine(names[snap.me], snap.pending_action, pending=True, mine=True))
    return tuple(lines)


def entry_model(view: SeatView, entry: EntryState) -> EntryModel:
    choices = choices_of(view)
    selected = choices.clamp(entry.cursor) if entry.cursor is not None else start_cursor(view)
    preview, ok = "", False
    typed: Bid | None = None
    if entry.typed.strip():
        try:
            typed = parse_bid(entry.typed)
        except BidSyntaxError as err:
            preview = str(err)
        else:
            ok = view.is_legal_bid(typed)
            preview = (
                f"= {bid_words(typed)}" if ok else f"{bid_words(typed)} is not a legal bid now"
            )
            if not ok and selected is not None:
                preview += f" (lowest on {typed.face}s: " + (
                    f"{choices.lowest[typed.face]})" if typed.face in choices.lowest else "none)"
                )
    odds = ""
    if entry.show_odds:
        parts = []
        if view.standing_bid is not None:
            parts.append(f"current bid true: {odds_text(view, view.standing_bid)}")
        # The bid about to be made: the typed one once it reads as a bid (Enter sends it),
        # else the one the arrows are on.
        about = typed if typed is not None else selected
        if about is not None:
            parts.append(f"{bid_words(about)} true: {odds_text(view, about)}")
        odds = "odds: " + ", ".join(parts) if parts else ""
    return EntryModel(
        selected=selected,
        selected_text=bid_words(selected) if selected else "no raise is possible",
        typed=entry.typed,
        preview=preview,
        preview_ok=ok,
        can_bid=selected is not None,
        can_challenge=view.can_challenge,
        can_exact=view.can_exact,
        odds=odds,
    )


def can_undo(snap: Snapshot) -> bool:
    """Our seat made the last bid, the table allows undo and nobody has acted since."""
    view = snap.view
    return (
        view is not None
        and snap.rules is not None
        and snap.rules.undo
        and view.phase == Phase.BIDDING
        and snap.me is not None
        and view.standing_bidder == snap.me
        and not snap.pending_action
    )


def _notices(snap: Snapshot) -> list[str]:
    notices = []
    kind = snap.kind
    if kind == TableKind.PRACTICE:
        notices.append("Practice table: for learning; its record is marked practice.")
    elif snap.host_cpu and kind == TableKind.STANDARD:
        notices.append(
            f"The host's machine runs {amount(snap.host_cpu, 'CPU seat')} and could read their dice: "
            "this table is not trust-free."
        )
    faults = faults_of_round(snap, snap.view.round if snap.view else None)
    if faults:
        notices.append(faults[-1])
    return notices


def table_keys(
    snap: Snapshot, entry: EntryModel | None, *, undo: bool, several: bool
) -> tuple[tuple[str, str], ...]:
    keys: list[tuple[str, str]] = []
    if entry is not None and entry.typed:
        # While a bid is typed every letter goes into it (keys.py: `free`): only these act.
        keys += [("Enter", "bid typed"), ("Esc", "clear"), ("Backspace", "erase")]
        return (*keys, ("Tab", "seat")) if several else tuple(keys)
    if entry is not None:
        if entry.can_bid:
            keys += [("up/down", "qty"), ("left/right", "face"), ("Enter", "bid")]
        if entry.can_challenge:
            keys.append(("l", "Liar"))
        if entry.can_exact:
            keys.append(("x", "Exact"))
    if undo:
        keys.append(("u", "undo"))
    if several:
        keys.append(("Tab", "seat"))
    if snap.view is not None and snap.view.results:
        keys.append(("r", "rounds"))
    if snap.can_start:
        keys.append(("s", "start"))
    keys += [("?", "help"), ("q", "quit")]
    return tuple(keys)


def header_subtitle(snap: Snapshot, room: int | None = None) -> str:
    """The round and the rules' summary ("round 3, wild ones, 5 dice"), in at most `room`
    columns: the summary's last parts are left out whole until it fits (never a word cut;
    the rules are all on the help screen), the round first so that it is always kept."""
    view = snap.view
    rules = snap.rules
    parts = [f"round {view.round}"] if view is not None else []
    if rules is not None:
        summary = rules.summary().split(", ")
        kind_word = str(snap.kind).replace("_", "-")
        parts += [p for p in summary if not (snap.kind != TableKind.STANDARD and p == kind_word)]
    while room is not None and len(parts) > 1 and width(", ".join(parts)) > room:
        parts.pop()
    return ", ".join(parts)


def table_model(
    snap: Snapshot, entry: EntryState = EntryState(), *, columns: int | None = None
) -> TableModel:
    """The table screen's model; with `columns`, the header's subtitle is fitted to them."""
    view = snap.view
    names = snap.names
    code = code_text(snap.code)
    title = safe_text(snap.table_name, 40) or "p2pdice"
    room = None
    if columns is not None:  # as screens.header lays it out: " title  subtitle code "
        room = columns - width(code) - 2 - width(f" {title}") - 2
    subtitle = header_subtitle(snap, room)
    my_turn = (
        view is not None
        and view.my_turn
        and snap.me is not None
        and snap.me not in snap.absent  # a CPU or the host plays it until the next round
        and not snap.pending_action
        and snap.link not in ENDED_LINKS  # no bid to enter when nothing can be sent
    )
    em = entry_model(view, entry) if my_turn and view is not None else None
    undo = can_undo(snap)
    hand: tuple[int, ...] = view.hand if view is not None else ()
    if snap.me is not None and snap.me < len(names):
        label = f"Your dice ({names[snap.me]}, seat {snap.me}):"
    elif snap.watching:
        label = "You are watching: players' dice stay hidden until the reveal."
    elif snap.mine:
        # Pass-and-play with the device on the table: whoever plays next takes it through a
        # pass screen, and only then are their dice shown.
        out = view is not None and all(view.dice[seat] == 0 for seat in snap.mine)
        label = ALL_OUT if out else PASSED_ROUND
    elif snap.phase not in ("connecting", "lobby") and snap.link == "connected":
        # A late arrival: the start fixed the seats (SPEC.md 3.3), so the host offered none.
        label = LATE_ARRIVAL
    else:
        label = "Taking a seat..."
    if snap.me is not None and view is None:
        label = "Your dice appear when the game starts."
    elif out_of_time := out_of_time_words(snap):
        label = out_of_time
    elif back_for_next_round(snap):
        assert snap.me is not None
        mover = "a CPU plays it" if snap.me in snap.stand_ins else "the host moves for it"
        label = f"You are back; your seat returns at the next round ({mover} until then)."
    elif snap.me is not None and view is not None and not hand:
        label = "Your dice: not dealt yet." if view.dice[snap.me] else "You are out of dice."
    return TableModel(
        title=title,
        subtitle=subtitle,
        code=code,
        seats=seat_rows(snap),
        bids=_bid_lines(snap),
        standing=_standing(snap),
        turn_line=_turn_line(snap),
        hand=hand,
        hand_label=label,
        entry=em,
        notices=tuple(_notices(snap)),
        alarm=alarm_text(snap),
        can_undo=undo,
        my_turn=my_turn,
        keys=table_keys(snap, em, undo=undo, several=snap.switches_seats),
    )
