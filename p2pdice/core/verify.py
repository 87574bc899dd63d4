"""Offline verification of a saved transcript (protocol/SPEC.md 9), and its report.

Checks, in order, for every line: canonical encoding and shape, sequence number, link to the
previous entry, host signature, then everything the table machine checks (player signatures
and counters, roster and comparison code, turn order and legal bids, commitments, beacon and
starter, every opened hand, counts and results, forced moves, absences, forfeits, ranking).
Finally the log must end with its game-over entry (unless partial), and, with the player's
own sent messages, every one of them must appear in the log.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .compare import StoppedAt, stopped_at
from .delivery import Undelivered, delivery_facts
from .describe import bid_words, hand_text, outcome_line
from .errors import P2PDiceError, Reason
from .events import Abort, Absent, Beacon, CommitSet, Forfeit, GameOver, Round
from .fairness import comparison_code
from .game import Outcome
from .messages import Message, MessageType, parse_message
from .signing import Checker, signature_checker
from .table import Note, Replayer, TablePhase, TableState, game_over_reason
from .transcript import messages_in, parse_entry
from .transitions import BUFFERED_MESSAGES, ENDS_ATTEMPT_EARLY, GOES_ON_WITHOUT


@dataclass(slots=True)
class Failure:
    index: int | None  #: 0-based entry index (line number - 1), None for whole-file problems
    reason: Reason
    detail: str

    def describe(self) -> str:
        if self.index is None:
            return f"the transcript: {self.reason}: {self.detail}"
        # The checks that raise name the entry themselves ("entry 10: ..."); said once is enough.
        detail = self.detail.removeprefix(f"entry {self.index}: ")
        return f"entry {self.index} (line {self.index + 1}): {self.reason}: {detail}"


#: The host's acts a report counts (`host_acts`), by the kind of the table's note: `returned`
#: is the `return` event. One count per seat named (an abort of two seats counts 2).
HOST_ACTS = ("forced", "absent", "abort", "forfeit", "stand_in", "returned")

#: The kinds of warning (SPEC.md 9, "Warnings").
WarningKind = Literal[
    "absent_while_active", "stalled", "void_no_contribution", "forfeit_no_opening"
]


@dataclass(frozen=True, slots=True)
class VerifyWarning:
    """A pattern a valid log can hold that may hide host misconduct (SPEC.md 9, 8): the log
    verifies, but a seat lost something on the host's word while the log shows it active."""

    index: int  #: the entry of the host act
    seat: int
    kind: WarningKind
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"index": self.index, "seat": self.seat, "kind": self.kind, "detail": self.detail}


@dataclass(slots=True)
class Report:
    entries: int = 0
    table_name: str = ""
    table_id: str = ""
    host_key: str = ""
    comparison_code: str | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    roster: list[dict[str, Any]] = field(default_factory=list)
    rounds: list[str] = field(default_factory=list)
    ranking: list[int] = field(default_factory=list)
    #: How many seats, first in the ranking, were still in when the game ended (not in the
    #: JSON report: the ranking and `ended` say it to a program; words need it).
    survivors: int = 0
    ended: str | None = None  #: "finished", "abandoned", or None when the log stops early
    host_acts: Counter[str] = field(default_factory=Counter)  #: HOST_ACTS: how many of each
    host_act_lines: list[str] = field(default_factory=list)
    #: One line per seat that ran out of its time bank (`absent`, `stalled`): when, and who
    #: played for it afterwards.
    stalls: list[str] = field(default_factory=list)
    practice: bool = False
    mine_checked: int = 0
    mine_pending: int = 0
    #: Our messages missing from a finished log that the host never showed it read: they did
    #: not reach the table as far as anyone can tell (information, SPEC.md 9, not a failure).
    mine_undelivered: list[Undelivered] = field(default_factory=list)
    #: Suspicious host acts in a log that verifies: the host's claims, which a client shows as
    #: such and never raises as an alarm (SPEC.md 9, "Warnings").
    warnings: list[VerifyWarning] = field(default_factory=list)
    failure: Failure | None = None

    @property
    def ok(self) -> bool:
        return self.failure is None

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "entries": self.entries,
            "table": {"name": self.table_name, "id": self.table_id, "host_key": self.host_key},
            "comparison_code": self.comparison_code,
            "rules": self.rules,
            "roster": self.roster,
            "rounds": self.rounds,
            "ranking": self.ranking,
            "ended": self.ended,
            "host_acts": dict(self.host_acts),
            "host_act_details": self.host_act_lines,
            "stalls": self.stalls,
            "practice": self.practice,
            "mine": {
                "checked": self.mine_checked,
                "pending": self.mine_pending,
                "undelivered": [u.to_json() for u in self.mine_undelivered],
            },
            "warnings": [w.to_json() for w in self.warnings],
            "failure": None
            if self.failure is None
            else {
                "index": self.failure.index,
                "reason": str(self.failure.reason),
                "detail": self.failure.detail,
            },
        }


Verdict = Literal["verified", "incomplete", "failed"]


def incomplete(report: Report) -> bool:
    """The log verifies as far as it goes and only lacks its end: no fault of anyone's (a
    player who left, a host that stopped), said as such, not as a failure."""
    failure = report.failure
    return failure is not None and failure.reason == Reason.MISSING_GAME_OVER


def verdict(report: Report) -> Verdict:
    """`verified`, `incomplete` (only the game-over entry is missing) or `failed`."""
    return "verified" if report.ok else "incomplete" if incomplete(report) else "failed"


def last_code(verified: Sequence[bytes]) -> tuple[int, str] | None:
    """The last verified entry's index and its code (SPEC.md 3.5, the code of head H)."""
    if not verified:
        return None
    try:
        entry = parse_entry(verified[-1])
    except P2PDiceError:
        return None
    return entry.seq, comparison_code(entry.hash)


def stop_of(report: Report, lines: Sequence[bytes]) -> StoppedAt | None:
    """Where a log that verifies as far as it goes stops before its game-over entry (the
    incomplete log, or a partial one that verified); None for a finished or failed log."""
    verified = lines[: report.entries]
    if not verified or report.ended is not None or not (report.ok or incomplete(report)):
        return None
    return stopped_at(verified)


def report_json(report: Report, lines: Sequence[bytes]) -> dict[str, Any]:
    """The report of one file as `p2pdice verify --json` prints it, without the file's name
    (protocol/schemas/v1/report.schema.json, `$defs/report`): the verdict, where an
    incomplete log stops, the code of the last verified entry, then `Report.to_json()`.
    `lines` are the lines verified to make `report` (a cut-off last line left out)."""
    stop = stop_of(report, lines)
    head = last_code(lines[: report.entries])
    return {
        "verdict": verdict(report),
        "stopped_at": None if stop is None else {"round": stop.round, "entry": stop.entry},
        "head_code": None if head is None else {"entry": head[0], "code": head[1]},
        **report.to_json(),
    }


def split_lines(data: bytes) -> tuple[list[bytes], Failure | None]:
    """JSON Lines: every entry followed by exactly one line feed."""
    if not data:
        return [], Failure(None, Reason.BAD_SEQ, "the file is empty")
    if not data.endswith(b"\n"):
        parts = data.split(b"\n")
        # Reported at the cut-off line itself: its 0-based index (SPEC.md 9).
        return parts, Failure(
            len(parts) - 1, Reason.JSON_SYNTAX, "the last line is cut off (no final line feed)"
        )
    return data[:-1].split(b"\n"), None


def complete_lines(data: bytes) -> list[bytes]:
    """The lines of a file that end with their line feed: a cut-off last line left out."""
    lines, cut = split_lines(data)
    return lines if cut is None else lines[:-1]


def verify_lines(
    lines: Sequence[bytes],
    *,
    partial: bool = False,
    mine: Sequence[dict[str, Any]] | None = None,
    checker: Checker | None = None,
) -> Report:
    """Replay every line; the report says what was verified and where it first failed.
    With `checker`, it judges each signature that passes the strict checks (signing.py)."""
    if checker is None:
        return _verify_lines(lines, partial=partial, mine=mine)
    with signature_checker(checker):
        return _verify_lines(lines, partial=partial, mine=mine)


def _verify_lines(
    lines: Sequence[bytes], *, partial: bool, mine: Sequence[dict[str, Any]] | None
) -> Report:
    report = Report()
    replayer = Replayer()
    posted: set[bytes] = set()
    #: (round, attempt) -> seats the host blamed when it ended that attempt early (abort or
    #: forfeit; none when the game-over entry ended it): an honest client's commitment or
    #: contribution to such an attempt is moot unless its own seat was blamed.
    ended_early: dict[tuple[int, int], set[int]] = {}
    ended_after_result: set[int] = set()  #: the round whose result the game-over entry followed
    activity = _Activity()
    stalls = _Stalls()
    for index, line in enumerate(lines):
        try:
            entry = parse_entry(line)
            before = replayer.state
            notes = replayer.feed(entry)
        except P2PDiceError as err:
            report.failure = Failure(index, err.reason, err.detail)
            break
        activity.see(report, index, entry, before)
        if mine is not None:  # digests are only needed to match the player's own record
            posted.update(m.digest() for m in messages_in(entry))
            ended = entry.host_event
            if isinstance(ended, Abort | Forfeit) and ended.type in ENDS_ATTEMPT_EARLY:
                ended_early[(ended.round, ended.attempt)] = set(ended.acted_for)
            elif (
                isinstance(ended, GameOver)
                and before is not None
                and before.attempt is not None
                and before.phase in BUFFERED_MESSAGES.values()
            ):
                # The game ended before the attempt's set was posted (the void cap, a silent
                # host-run seat, a host shutting down): no seat's message to it was needed.
                ended_early[(before.attempt.round, before.attempt.attempt)] = set()
            elif (
                isinstance(ended, GameOver)
                and before is not None
                and before.game is not None
                and before.phase == TablePhase.RESULT
            ):
                # Ended after a round's result, before the next round began: a `next_round`
                # the host held for the acknowledgements (SPEC.md 8) opened nothing.
                ended_after_result.add(before.game.round)
        _note_host_acts(report, notes, replayer.state, stalls)
        report.entries = index + 1
    state = replayer.state
    if state is not None:
        _describe_table(report, replayer)
    if (
        report.failure is None
        and state is not None
        and state.phase != TablePhase.OVER
        and not partial
    ):
        report.failure = Failure(
            None, Reason.MISSING_GAME_OVER, "the log ends before its game-over entry"
        )
    if report.failure is None and mine is not None and state is not None:
        _check_mine(report, replayer, posted, ended_early, ended_after_result, mine)
    return report


class _Activity:
    """Where each seat last showed signs of life in the current round, to flag host acts that
    cost a seat something while the log shows it was there (SPEC.md 9)."""

    def __init__(self) -> None:
        self.round_start = 0  #: index of the current round's first attempt
        self.signed: dict[int, int] = {}  #: seat -> index of its latest message in the log

    def see(self, report: Report, index: int, entry: Any, before: TableState | None) -> None:
        event = entry.host_event
        if event is None:
            self.signed[entry.msg.seat] = index
            return
        if isinstance(event, Round) and event.attempt == 1:
            self.round_start, self.signed = index, {}
        elif isinstance(event, CommitSet | Beacon):
            for msg in event.messages:
                self.signed[msg.seat] = index
        elif isinstance(event, Absent):
            seat = event.seat
            seen = self.signed.get(seat)
            if event.reason == "stalled":
                report.warnings.append(
                    VerifyWarning(
                        index,
                        seat,
                        "stalled",
                        f"seat {seat} was handed to the host's moves and a CPU in round "
                        f"{event.round}: the host says it used up its time bank. The log holds "
                        "no clock, so this is the host's word alone; the people at the table "
                        "saw whether the seat kept them waiting",
                    )
                )
            elif seen is not None and seen >= self.round_start:
                report.warnings.append(
                    VerifyWarning(
                        index,
                        seat,
                        "absent_while_active",
                        f"seat {seat} was declared absent ({event.reason}) in round "
                        f"{event.round} although its message at entry {seen} shows it at the "
                        "table this round; the claim is the host's alone",
                    )
                )
        elif isinstance(event, Forfeit):
            for seat in event.seats:
                seen = self.signed.get(seat)
                since = (
                    f" (its message at entry {seen} shows it at the table)"
                    if seen is not None
                    else ""
                )
                if event.reason == "no_contribution":
                    report.warnings.append(
                        VerifyWarning(
                            index,
                            seat,
                            "void_no_contribution",
                            f"round {event.round} was voided and every hand re-dealt: the host "
                            f"says seat {seat}'s contribution never arrived{since}. Only the host "
                            "holds every contribution before it posts them, so it may have "
                            "withheld this one to re-roll; nobody lost a die",
                        )
                    )
                else:
                    report.warnings.append(
                        VerifyWarning(
                            index,
                            seat,
                            "forfeit_no_opening",
                            f"seat {seat} is out in round {event.round} because the host "
                            f"says its opening never arrived{since}; only that seat's own "
                            "record (verify --mine) can show whether the host dropped it",
                        )
                    )


class _Stalls:
    """Builds the report's time-bank lines: a seat out of time, then who played for it."""

    def __init__(self) -> None:
        #: seat -> (its line in `report.stalls`, what the line says so far)
        self.open: dict[int, tuple[int, list[str]]] = {}

    def see(self, report: Report, note: Note, who: str) -> None:
        seat = note.seat
        if seat is None:
            return
        if note.kind == "absent" and note.reason == "stalled":
            report.stalls.append("")
            self.open[seat] = (
                len(report.stalls) - 1,
                [f"{who} ran out of time in round {note.round}"],
            )
        if seat not in self.open:
            return
        line, parts = self.open[seat]
        if note.kind == "forced" and "the host moved for it" not in parts:
            parts.append("the host moved for it")
        elif note.kind == "stand_in":
            parts.append(f"a CPU played for it from round {note.round}")
        elif note.kind == "returned":
            parts.append(f"it came back in round {note.round}")
            del self.open[seat]  # a later stall starts a line of its own
        report.stalls[line] = "; ".join(parts)


def _note_host_acts(
    report: Report, notes: tuple[Note, ...], state: TableState | None, stalls: _Stalls
) -> None:
    names = _names(state)
    for note in notes:
        if note.kind in HOST_ACTS:
            stalls.see(
                report,
                note,
                names[note.seat] if note.seat is not None and note.seat < len(names) else "?",
            )
            report.host_acts[note.kind] += 1
            who = names[note.seat] if note.seat is not None and note.seat < len(names) else "?"
            report.host_act_lines.append(
                f"round {note.round}: {note.kind} {who}: {note.detail}".rstrip(": ")
            )


def _names(state: TableState | None) -> list[str]:
    if state is None:
        return []
    if state.roster:
        return [f"{s.name} (seat {s.seat})" for s in state.roster]
    return [f"seat {s}" for s in range(state.rules.seats)]


def _describe_table(report: Report, replayer: Replayer) -> None:
    state = replayer.state
    assert state is not None
    report.table_name = state.name
    report.table_id = state.table_id.hex()
    report.host_key = state.host_key.hex()
    report.rules = state.rules.to_json()
    report.practice = state.rules.kind != "standard"
    report.roster = [{**s.to_json(), "key": s.key.hex()} for s in state.roster]
    if state.start_seq is not None and state.start_seq < len(replayer.chain):
        report.comparison_code = comparison_code(replayer.chain.hashes[state.start_seq])
    game = state.game
    if state.phase == TablePhase.OVER:
        # Also a game abandoned in the lobby, which ranks nobody: it ended, it did not stop.
        report.ranking = list(game.ranking) if game is not None else []
        report.survivors = len(game.survivors) if game is not None else 0
        report.ended = game_over_reason(state)
    if game is None:
        return
    names = _names(state)
    for result in game.results:
        hands = "  ".join(
            f"{names[s].split(' (')[0]} {hand_text(h)}"
            for s, h in enumerate(result.hands)
            if h != ()
        )
        bids = ", ".join(f"{names[b.seat].split(' (')[0]} {bid_words(b.bid)}" for b in result.bids)
        outcome = outcome_line(result, [n.split(" (")[0] for n in names], state.rules)
        flag = "palifico, " if result.palifico_round else ""
        tail = (
            "verified"
            if result.outcome != Outcome.FORFEIT
            else "verified (forfeit)"
            if result.forfeited
            else "verified (void)"
        )
        report.rounds.append(
            f"round {result.round}: {flag}hands {hands}; bids {bids or '-'}; {outcome} - {tail}"
        )


def _check_mine(
    report: Report,
    replayer: Replayer,
    posted: set[bytes],
    ended_early: dict[tuple[int, int], set[int]],
    ended_after_result: set[int],
    mine: Sequence[dict[str, Any]],
) -> None:
    """Every message the player sent must be in the log, unless the host refused it openly,
    ended its attempt early blaming another seat, or ended the game instead of the round a
    `next_round` would have opened. One missing that the host showed it read
    (the record's `read`, core/delivery.py) is MESSAGE_DROPPED; any other did not reach the
    table as far as anyone can tell, which is said, not failed."""
    facts = delivery_facts(mine)
    refused: set[bytes] = set()
    sent: list[Message] = []
    for number, record in enumerate(mine, 1):
        try:
            if "ref" in record and record.get("rejected"):
                refused.add(bytes.fromhex(record["ref"]))
            elif "msg" in record:
                sent.append(parse_message(record["msg"]))
        except (P2PDiceError, ValueError, TypeError, KeyError) as err:
            report.failure = Failure(
                None, Reason.SCHEMA, f"your record {number} is malformed: {err}"
            )
            return
    complete = replayer.state is not None and replayer.state.phase == TablePhase.OVER
    for msg in sent:
        if msg.table != (replayer.state.table_id if replayer.state else b""):
            continue
        digest = msg.digest()
        report.mine_checked += 1
        if digest in posted or digest in refused:
            continue
        step = (msg.body.get("round"), msg.body.get("attempt"))
        if (
            msg.type in BUFFERED_MESSAGES
            and step in ended_early
            and msg.seat not in ended_early[step]
        ):
            continue  # the attempt ended for another seat's silence; ours was rightly unused
        if msg.type == MessageType.NEXT_ROUND and msg.body.get("round") in ended_after_result:
            continue  # the game ended instead of the round it would have opened
        if msg.type in GOES_ON_WITHOUT:
            # The host moves on without an acknowledgement after ACK_WAIT (SPEC.md 8), and
            # one that came too late (the game's last, say) is refused after the client may
            # have stopped listening: leaving one out changes nothing, so it proves nothing.
            continue
        if complete and digest.hex() in facts.read:
            report.failure = Failure(
                None,
                Reason.MESSAGE_DROPPED,
                f"your {msg.type} (counter {msg.counter}) never appears in the log and was never "
                "refused, though the host showed it had it (it answered it, or a message sent "
                "after it on the same connection)",
            )
            return
        if complete:
            report.mine_undelivered.append(
                Undelivered(
                    msg.type, msg.counter, msg.body.get("round"), facts.lost.get(digest.hex(), 0)
                )
            )
            continue
        report.mine_pending += 1
