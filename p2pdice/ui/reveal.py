"""The reveal, the review of earlier rounds, the pass screen and game over, as plain data.

At a reveal every hand is public. Each seat's row carries a tick when its opening matched
the commitment it made before the bidding (the log's "opened" note exists only for an
opening that verified); a seat named by an alarm (a tampered opening) shows the alarm's
reason instead, in place of the tick.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core.bids import Bid, count_matching, die_counts, ones_are_wild
from ..core.describe import amount, bid_words, outcome_line
from ..core.game import Call, Outcome, Phase, RoundResult
from ..core.messages import MessageType
from ..core.rules import TableKind
from .ratings import change_text
from .text import die_cell, fit, safe_text
from .viewmodel import (
    Snapshot,
    alarm_line,
    alarm_seats,
    alarm_text,
    can_undo,
    code_text,
    faults_of_round,
    finding_line,
    link_note,
    next_round_line,
    palifico_changes,
    palifico_words,
    seat_alarm_label,
    timer_text,
)


def legend(face: int | None, wild: bool) -> str:
    """What the markers mean, for this bid's face."""
    if face is None:
        return ""
    text = f"*{face}* counts toward the bid"
    return text + "   (1) a wild one, counts too" if wild and face != 1 else text


@dataclass(frozen=True, slots=True)
class Cell:
    text: str
    kind: str  #: "plain", "count" or "wild"


@dataclass(frozen=True, slots=True)
class HandRow:
    seat: int
    name: str
    cells: tuple[Cell, ...]
    note: str  #: "[out]", "[not opened]", "waiting..." when there are no cells
    matched: str
    check: str  #: "ok", "alarm", "waiting", "missing" or "" (out)
    check_text: str
    change: str


@dataclass(frozen=True, slots=True)
class RevealModel:
    title: str
    code: str
    call_line: str
    count_line: str
    outcome: str
    rows: tuple[HandRow, ...]
    faults: tuple[str, ...]
    bids: str
    legend: str
    next_line: str
    alarm: str | None
    all_verified: bool
    keys: tuple[tuple[str, str], ...]
    #: The code of this result's entry, to read aloud (empty for an earlier round's review)
    history_line: str = ""


@dataclass(frozen=True, slots=True)
class GameOverModel:
    title: str
    code: str
    ranking: tuple[str, ...]
    transcript: str  #: the whole sentence, path included
    alarm: str | None
    keys: tuple[tuple[str, str], ...]
    transcript_label: str = ""
    transcript_path: str = ""  #: drawn on lines of its own, never broken inside a name
    #: What the end-of-game self-check found wrong (one line each): empty when it verified
    #: the transcript, or has not run yet.
    check_alarms: tuple[str, ...] = ()
    #: What the check says that accuses nobody: a message of ours that never reached the
    #: table, a seat that lost something on the host's word alone (one line each).
    check_notes: tuple[str, ...] = ()
    history_line: str = ""  #: the code of the game-over entry, to read aloud
    #: At a table we host: who is still on the way back for the end (leaving cuts them off).
    behind_line: str = ""


@dataclass(frozen=True, slots=True)
class PassModel:
    title: str
    last_bid: str
    prompt: str
    undo_line: str
    keys: tuple[tuple[str, str], ...]
    clock: str = ""  #: the turn timer of the seat taking the device, when the table has one


def history_line(snap: Snapshot) -> str:
    """The code of the entry everyone compares at (SPEC.md 3.5): read aloud, the same code
    at the same entry means the same history; a host that showed players different logs
    cannot make them agree."""
    if snap.history is None:
        return ""
    seq, code = snap.history
    return f"Code at entry {seq}: {code} (read it aloud: same code, same history)"


def verified_seats(snap: Snapshot, round_: int) -> set[int]:
    return {
        n.seat
        for n in snap.notes
        if n.kind == "opened" and n.round == round_ and n.seat is not None
    }


def _caller(snap: Snapshot, round_: int) -> tuple[int | None, Call | None]:
    for note in reversed(snap.notes):
        if note.round == round_ and note.kind in (MessageType.CHALLENGE, MessageType.EXACT):
            return note.seat, Call.EXACT if note.kind == MessageType.EXACT else Call.CHALLENGE
        if note.round == round_ and note.kind == "forced" and note.action == "challenge":
            return note.seat, Call.CHALLENGE
    return None, None


def _cells(hand: tuple[int, ...], bid: Bid | None, wild: bool) -> tuple[Cell, ...]:
    cells = []
    for die in hand:
        counts = bid is not None and die_counts(die, bid.face, wild_ones=wild)
        is_wild = counts and bid is not None and die == 1 and bid.face != 1
        kind = "wild" if is_wild else "count" if counts else "plain"
        cells.append(Cell(die_cell(die, counts=counts, wild=is_wild), kind))
    return tuple(cells)


def _check(seat: int, opened: bool, verified: set[int], alarms: dict[int, str]) -> tuple[str, str]:
    if seat in alarms:
        return "alarm", seat_alarm_label(alarms[seat])
    if seat in verified:
        return "ok", "verified"
    return ("missing", "no check") if opened else ("waiting", "waiting")


def _change(result: RoundResult, seat: int) -> str:
    before, after = result.dice_before[seat], result.dice_after[seat]
    if seat in result.forfeited:
        return "forfeited"
    if seat in result.eliminated:
        return "OUT"
    # From the dice themselves: a loser may give up several (`difference`), and several
    # seats may each lose one (`others-lose`), where the result names no single loser.
    if after < before:
        return f"-{amount(before - after, 'die', 'dice')}: {after}"
    if after > before:
        return f"+{amount(after - before, 'die', 'dice')}: {after}"
    if seat == result.caller and result.outcome == Outcome.EXACT_HIT:
        return f"exact, at {before}"
    return ""


def _bids_text(snap: Snapshot, bids) -> str:
    names = snap.names
    if not bids:
        return ""
    return "Bids: " + ", ".join(f"{names[b.seat]} {bid_words(b.bid)}" for b in bids)


def reveal_model(
    snap: Snapshot, index: int | None = None, *, starter_here: bool = False
) -> RevealModel | None:
    """The reveal of result `index` (default: the latest), or of the showdown under way."""
    view, rules = snap.view, snap.rules
    if view is None or rules is None:
        return None
    names = snap.names
    alarms = alarm_seats(snap)
    results = view.results
    live = index is None and view.phase == Phase.SHOWDOWN
    if not live and not results:
        return None
    if live:
        return _live_reveal(snap, alarms)
    i = len(results) - 1 if index is None else max(0, min(index, len(results) - 1))
    result = results[i]
    bid = result.bid
    wild = ones_are_wild(rules, result.palifico_round)
    verified = verified_seats(snap, result.round)
    rows = []
    for seat, hand in enumerate(result.hands):
        was_out = result.dice_before[seat] == 0
        if was_out:
            rows.append(HandRow(seat, names[seat], (), "[out]", "", "", "", ""))
            continue
        if result.outcome == Outcome.FORFEIT:
            check, text = _check(seat, True, set(), alarms) if seat in alarms else ("", "")
            rows.append(
                HandRow(seat, names[seat], (), "[no hands]", "", check, text, _change(result, seat))
            )
            continue
        if hand is None:
            rows.append(
                HandRow(
                    seat,
                    names[seat],
                    (),
                    "[not opened]",
                    "",
                    "missing",
                    "not opened",
                    _change(result, seat),
                )
            )
            continue
        check, text = _check(seat, True, verified, alarms)
        matched = count_matching([hand], bid.face, wild_ones=wild) if bid else 0
        rows.append(
            HandRow(
                seat,
                names[seat],
                _cells(hand, bid, wild),
                "",
                str(matched),
                check,
                text,
                _change(result, seat),
            )
        )
    if result.outcome == Outcome.FORFEIT:
        call_line, count_line = "The round could not be finished.", ""
    else:
        assert bid is not None and result.caller is not None
        call = "Exact" if result.call == Call.EXACT else "Liar"
        bidder = names[result.bidder] if result.bidder is not None else "?"
        call_line = f"{names[result.caller]} called {call} on {bid_words(bid)} (bid by {bidder})."
        wild_note = " (ones wild)" if wild and bid.face != 1 else ""
        palifico = f"  Palifico round ({palifico_changes(rules)})." if result.palifico_round else ""
        if result.call == Call.EXACT:
            exact = result.count == bid.quantity
            there = "There was" if result.count == 1 else "There were"
            counted = (
                f"{there} exactly {bid.quantity}{wild_note}, as called."
                if exact
                else f"{there} {result.count}{wild_note}, not exactly {bid.quantity}."
            )
            count_line = f"The bid: {bid_words(bid)} by {bidder}. {counted}{palifico}"
        else:
            count_line = (
                f"The bid: {bid_words(bid)} by {bidder}. Counted {result.count}{wild_note}, "
                f"needed {bid.quantity}.{palifico}"
            )
    outcome = outcome_line(result, names, rules)
    latest = i == len(results) - 1
    next_line = ""
    keys: list[tuple[str, str]] = []
    if latest and view.phase == Phase.ROUND_OVER and view.next_starter is not None:
        next_line = next_round_line(snap)
        if starter_here:
            keys.append(("Enter", "start next round"))
        else:
            keys.append(("Enter", "back to the table"))
    elif latest and view.phase == Phase.GAME_OVER:
        next_line = "The game is over."
        keys.append(("Enter", "final ranking"))
    else:
        if latest and view.round > result.round:  # the next round began while we looked
            mine = snap.me is not None and snap.me not in snap.absent  # not a stand-in's
            if view.phase == Phase.BIDDING and view.my_turn and mine:
                # The turn timer runs while the reveal is read: say how long is left.
                left = timer_text(snap.turn_left)
                left = f"  [{left}]" if left else ""
                next_line = (
                    f"Round {view.round} has started and it is your turn: press Enter.{left}"
                )
                keys.append(("Enter", "play"))
            else:
                next_line = f"Round {view.round} has started: press Enter for the table."
                keys.append(("Enter", "back to the table"))
        else:
            keys.append(("Enter", "back to the table"))
    held = link_note(snap) if latest and view.phase != Phase.GAME_OVER else None
    if held is not None:  # read over the table: the pause or the lost link is said here too
        next_line = held
    if len(results) > 1:
        keys.append(("left/right", "other rounds"))
    keys += [("?", "help"), ("q", "quit")]
    checked = [r for r in rows if r.check]
    return RevealModel(
        title=f"Round {result.round}: the reveal"
        + (f"  ({i + 1} of {len(results)})" if not latest else ""),
        code=code_text(snap.code),
        call_line=call_line,
        count_line=count_line,
        outcome=safe_text(outcome, 300),
        rows=tuple(rows),
        faults=tuple(faults_of_round(snap, result.round)),
        bids=_bids_text(snap, result.bids),
        legend=legend(bid.face if bid else None, wild),
        next_line=next_line,
        alarm=alarm_text(snap),
        all_verified=bool(checked) and all(r.check == "ok" for r in checked),
        keys=tuple(keys),
        history_line=history_line(snap) if latest else "",
    )


def _live_reveal(snap: Snapshot, alarms: dict[int, str]) -> RevealModel:
    view, rules = snap.view, snap.rules
    assert view is not None and rules is not None
    names = snap.names
    bid = view.standing_bid
    wild = view.wild_ones
    verified = verified_seats(snap, view.round)
    rows = []
    for seat, dice in enumerate(view.dice):
        if dice == 0:
            rows.append(HandRow(seat, names[seat], (), "[out]", "", "", "", ""))
            continue
        hand = snap.openings.get(seat)
        check, text = _check(seat, hand is not None, verified, alarms)
        if hand is None:
            rows.append(HandRow(seat, names[seat], (), "waiting...", "", check, text, ""))
            continue
        matched = count_matching([hand], bid.face, wild_ones=wild) if bid else 0
        rows.append(
            HandRow(seat, names[seat], _cells(hand, bid, wild), "", str(matched), check, text, "")
        )
    caller, call = _caller(snap, view.round)
    who = names[caller] if caller is not None else "someone"
    word = "Exact" if call == Call.EXACT else "Liar"
    bidder = names[view.standing_bidder] if view.standing_bidder is not None else "?"
    call_line = (
        f"{who} called {word} on {bid_words(bid)} (bid by {bidder})." if bid else "A call was made."
    )
    opened = [h for h in snap.openings.values()]
    count = count_matching(opened, bid.face, wild_ones=wild) if bid else 0
    return RevealModel(
        title=f"Round {view.round}: opening the hands",
        code=code_text(snap.code),
        call_line=call_line,
        count_line=f"Counted so far: {count} of {bid.quantity if bid else '?'} needed.",
        outcome="",
        rows=tuple(rows),
        faults=tuple(faults_of_round(snap, view.round)),
        bids=_bids_text(snap, view.bids),
        legend=legend(bid.face if bid else None, wild),
        next_line="Each opening is checked against its commitment as it arrives.",
        alarm=alarm_text(snap),
        all_verified=False,
        keys=(("?", "help"), ("q", "quit")),
    )


def game_over_model(
    snap: Snapshot, *, rematch: bool = False, behind: Sequence[str] = ()
) -> GameOverModel:
    """The game-over screen; `behind`: at a table we host, the players still on their way
    back for the end."""
    view = snap.view
    names = snap.names
    lines = []
    changes = snap.ratings.changes.get(snap.table_id, {})
    if view is not None:
        # The seats still in share 1st: one, the winner, unless the game ended early.
        still_in = sum(1 for seat in view.ranking if view.dice[seat] > 0)
        for index, seat in enumerate(view.ranking):
            place = 1 if index < still_in else index + 1
            dice = view.dice[seat]
            tail = f"  ({dice} {'die' if dice == 1 else 'dice'} left)" if dice else ""
            facts = snap.seats[seat] if seat < len(snap.seats) else None
            change = changes.get(facts.key) if facts is not None and facts.key else None
            if change is not None:
                tail += f"  {change_text(change)}"
            lines.append(f"{place}. {names[seat]}{tail}")
    where = snap.transcript or "(not saved: no data folder)"
    practice = " (marked practice)" if snap.kind == TableKind.PRACTICE else ""
    winner = names[view.ranking[0]] if view is not None and view.ranking else "?"
    keys = [("r", "review rounds")] if view is not None and view.results else []
    if rematch:
        keys.append(("n", "new game"))
    keys.append(("q", "quit"))
    check = snap.final_check
    if check is None:
        label = f"Transcript{practice} saved (not checked yet):"
    elif check.verified:
        label = f"Verified transcript{practice} saved:"
    else:
        label = f"Transcript{practice} saved, but the end-of-game check failed:"
    check_alarms = () if check is None else tuple(finding_line(f) for f in check.findings)
    if check is not None and not check.verified and not check_alarms:
        check_alarms = (alarm_line("verify", "the transcript did not verify"),)
    return GameOverModel(
        transcript_label=label,
        transcript_path=safe_text(where, 200),
        title=f"Game over: {winner} wins!"
        if view is not None and view.phase == Phase.GAME_OVER
        else "Game over",
        code=code_text(snap.code),
        ranking=tuple(lines),
        transcript=f"{label} {safe_text(where, 200)}",
        alarm=alarm_text(snap),
        keys=tuple(keys),
        check_alarms=check_alarms,
        check_notes=() if check is None else tuple(safe_text(f"Note: {n}") for n in check.notes),
        history_line=history_line(snap),
        behind_line=behind_words(behind),
    )


def behind_words(behind: Sequence[str]) -> str:
    """The game-over screen's line about players who do not have the end yet."""
    if not behind:
        return ""
    names = safe_text(", ".join(behind), 120)
    return (
        f"Waiting for {names} to come back for the end: they are away and do not have it"
        " yet. Your table stays open for them while you stay here."
    )


#: Columns a name may take in the pass screen's key bar.
KEY_NAME_COLUMNS = 12


def pass_model(snap: Snapshot, to_seat: int, *, previous: int | None) -> PassModel:
    """The screen that covers the table while the device changes hands."""
    view = snap.view
    names = snap.names
    name = names[to_seat]
    last = clock = ""
    if view is not None:
        bid = view.standing_bid
        if bid is not None and view.standing_bidder is not None:
            last = f"Last bid: {bid_words(bid)} by {names[view.standing_bidder]}"
        else:
            last = f"No bid yet: {name} opens round {view.round}."
        if view.palifico_round:
            last += f"  ({palifico_words(view.rules)})"
        left = timer_text(snap.turn_left)
        if left:
            # The turn timer runs while the device changes hands: whoever takes it knows
            # how long they have (a careful move is played for them when it runs out).
            clock = f"{name}'s turn: {left}"
    undo_line = ""
    # The key bar holds every key: a long name (24 wide characters fill 48 columns) is cut
    # there, and said whole in the title and the prompt.
    keys = [("Space", f"I am {fit(name, KEY_NAME_COLUMNS).rstrip()}")]
    if previous is not None and previous != to_seat:
        prev_snap = _as_seat(snap, previous)
        if can_undo(prev_snap):
            undo_line = f"{names[previous]}: press u to take back your bid before passing."
            keys.append(("u", f"undo {fit(names[previous], KEY_NAME_COLUMNS).rstrip()}'s bid"))
    keys += [("?", "help"), ("q", "quit")]
    return PassModel(
        title=f"Pass the device to {name}",
        last_bid=last,
        prompt=f"{name}: press Space when only you can see the screen. Your dice appear then.",
        undo_line=undo_line,
        keys=tuple(keys),
        clock=clock,
    )


def _as_seat(snap: Snapshot, seat: int) -> Snapshot:
    return replace(snap, me=seat, pending_action=None)
