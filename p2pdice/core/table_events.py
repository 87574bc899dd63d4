"""Transitions for entries that carry a host event (protocol/SPEC.md 6.2, 7).

Each handler checks one event against the table and returns the table after it; what the
host must post (`expected_*`) is computed here too, so the host builds exactly what its own
peers will recompute. Which handler runs in which phase is declared in `transitions.py`.
"""

from __future__ import annotations

from typing import Any

from . import events
from .errors import Reason
from .events import SeatInfo
from .fairness import SeatCommitment, beacon, commit_set_hash, contribution_matches, draw_starter
from .frozen import replace
from .game import (
    Action,
    Deal,
    GameState,
    Phase,
    PlaceBid,
    Reveal,
    StartNextRound,
    Void,
    blind_action,
    new_game,
    outcome_decided,
)
from .game import Forfeit as SeatsForfeit
from .messages import MessageType
from .rules import MIN_SEATS, FirstStarter
from .signing import acceptable_public_key
from .table_messages import seat_messages
from .table_state import (
    Attempt,
    ChainIndex,
    Note,
    Outcome,
    TableError,
    TablePhase,
    TableState,
    fail,
    require_next_round,
    require_round,
    rules_step,
)


def leave_event(state: TableState, ev: events.Leave, seq: int, chain: ChainIndex) -> Outcome:
    if ev.seat not in state.joins:
        raise fail(Reason.BAD_EVENT, f"seat {ev.seat} is free already", ev.seat)
    # The key may join again later, with a fresh join (counter 0) answering a fresh challenge.
    key = state.joins[ev.seat].key
    joins = {s: i for s, i in state.joins.items() if s != ev.seat}
    counters = {k: c for k, c in state.counters.items() if k != key}
    return replace(state, joins=joins, counters=counters), (Note("left", None, ev.seat),)


def expected_roster(state: TableState) -> tuple[SeatInfo, ...]:
    """The roster a start event must carry: every join, in seat order."""
    return tuple(state.joins[s] for s in sorted(state.joins))


def start_refusal(state: TableState) -> str | None:
    """Why the table cannot start with the seats taken now (SPEC.md 3.3), or None when it can.

    The genesis rules' `seats` is the most the table takes; the game is played by the seats
    taken at the start, which must be seats 0..n-1 (the seat number is the position in every
    dice list, so a hole cannot be left out without renumbering signed joins). A table whose
    genesis says `cpu_fill` starts with every seat taken, the empty ones by host-run CPUs
    that joined like anyone; otherwise the host-run seats are exactly the genesis `host_cpu`.
    """
    taken = sorted(state.joins)
    if len(taken) < MIN_SEATS:
        return f"a game needs {MIN_SEATS} seats taken, {len(taken)} are"
    hole = next((s for s in range(len(taken)) if s not in state.joins), None)
    if hole is not None:
        return f"seat {hole} is free: the seats taken must be seats 0 to {len(taken) - 1}"
    named = state.rules.first_starter.seat
    if named is not None and named >= len(taken):
        return f"round 1 is opened by seat {named} (first_starter), and {len(taken)} are taken"
    host_run = sum(1 for s in state.joins.values() if s.host_run)
    if state.cpu_fill:
        if len(taken) != state.rules.seats:
            return (
                f"the table fills empty seats with CPUs: {len(taken)} of "
                f"{state.rules.seats} seats are taken"
            )
        if host_run < state.host_cpu:
            return f"genesis declares {state.host_cpu} host-run seats, {host_run} joined"
    elif host_run != state.host_cpu:
        return f"genesis declares {state.host_cpu} host-run seats, the roster has {host_run}"
    return None


def host_seat_refusal(state: TableState, host_seat: int | None) -> str | None:
    """Why a start naming `host_seat` as the host's own seat is refused (SPEC.md 3.3), or
    None: named exactly when round 1 is the host's to open (`first_starter` "host"), and then
    a seat of the roster played by a person (a CPU, host-run or not, is not the host)."""
    wanted = state.rules.first_starter == FirstStarter.HOST
    if host_seat is None:
        return "first_starter host: the start must name the host's seat" if wanted else None
    if not wanted:
        return (
            f"host_seat is named only when first_starter is host, not {state.rules.first_starter}"
        )
    info = state.joins.get(host_seat)
    if info is None:
        return f"host_seat {host_seat} is not a seat taken"
    if info.cpu:
        return f"host_seat {host_seat} is a CPU seat ({info.name}): the host plays its own seat"
    return None


def start_event(state: TableState, ev: events.Start, seq: int, chain: ChainIndex) -> Outcome:
    refusal = start_refusal(state) or host_seat_refusal(state, ev.host_seat)
    if refusal is not None:
        raise fail(Reason.BAD_EVENT, refusal)
    roster = expected_roster(state)
    if ev.roster != roster:
        raise fail(Reason.BAD_EVENT, "the roster differs from the joins")
    # From here on the rules' seat count is the seats that play (SPEC.md 3.3).
    rules = state.rules.with_options(seats=len(roster))
    game = new_game(rules)
    if ev.host_seat is not None:  # round 1 is the host's to open (SPEC.md 5.6)
        game = replace(game, starter=ev.host_seat)
    return replace(
        state,
        phase=TablePhase.BETWEEN,
        rules=rules,
        roster=roster,
        keys={s.seat: s.key for s in roster},
        game=game,
        start_seq=seq,
    ), (Note("started", detail=f"{len(roster)} seats"),)


def expected_round(state: TableState) -> events.Round:
    """The round event that opens the next attempt."""
    game = state.game
    assert game is not None
    return events.Round(
        round=game.round,
        attempt=state.attempt.attempt + 1 if state.after_abort and state.attempt else 1,
        seats=game.survivors,
        dice=game.dice,
        starter=game.starter,
        palifico=game.palifico_round,
    )


def round_event(state: TableState, ev: events.Round, seq: int, chain: ChainIndex) -> Outcome:
    game = state.game
    assert game is not None
    want, got = _fields(expected_round(state)), _fields(ev)
    expected_attempt = want["attempt"]
    if got != want:
        bad = next(k for k in want if got[k] != want[k])
        raise fail(
            Reason.BAD_EVENT, f"the round event's {bad} is {got[bad]}, the game says {want[bad]}"
        )
    attempt = Attempt(
        round=game.round,
        attempt=expected_attempt,
        seats=game.survivors,
        dice=game.dice,
        starter=game.starter,
        palifico=game.palifico_round,
    )
    return replace(
        state, phase=TablePhase.COMMIT, attempt=attempt, after_abort=False, acks=frozenset()
    ), (
        Note(
            "round",
            game.round,
            game.starter,
            f"attempt {expected_attempt}",
            attempt=expected_attempt,
        ),
    )


def commit_set_event(
    state: TableState, ev: events.CommitSet, seq: int, chain: ChainIndex
) -> Outcome:
    require_round(state, ev.round, ev.attempt)
    attempt = state.attempt
    assert attempt is not None
    msgs, counters = seat_messages(state, ev.commits, MessageType.COMMIT, chain)
    values = [m.bytes_field(f) for m in msgs for f in ("seed_commit", "contrib_commit")]
    if len(set(values)) != len(values):
        raise fail(Reason.DUPLICATE_COMMITMENT, "a commitment value appears twice")
    if state.used_commitments.intersection(values):
        raise fail(Reason.DUPLICATE_COMMITMENT, "a commitment value was already used at this table")
    commits = {
        m.seat: (m.bytes_field("seed_commit"), m.bytes_field("contrib_commit")) for m in msgs
    }
    cs = commit_set_hash(
        state.table_id,
        attempt.round,
        attempt.attempt,
        [SeatCommitment(s, *commits[s]) for s in attempt.seats],
    )
    return replace(
        state,
        phase=TablePhase.CONTRIBUTE,
        attempt=replace(attempt, commits=commits, commit_set=cs),
        counters=counters,
        used_commitments=state.used_commitments.union(values),
    ), (Note("commit_set", attempt.round, None, cs.hex(), attempt=attempt.attempt),)


def abort_event(state: TableState, ev: events.Abort, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round, ev.attempt)
    attempt = state.attempt
    assert attempt is not None
    missing = ev.missing
    if not _ascending(missing) or not set(missing) <= set(attempt.seats):
        raise fail(Reason.BAD_EVENT, "an abort names the seats of the attempt that did not commit")
    notes = tuple(
        Note(
            "abort",
            attempt.round,
            s,
            f"attempt {attempt.attempt}: no commitment",
            attempt=attempt.attempt,
            reason=ev.reason,
        )
        for s in missing
    )
    return replace(state, phase=TablePhase.BETWEEN, after_abort=True), notes


def expected_beacon(state: TableState, contributions: list[bytes]) -> tuple[bytes, int]:
    """The shared randomness R of the attempt's contributions (in seat order), and the
    round's starter: the game's, or drawn from R when it is still to be drawn."""
    attempt = state.attempt
    assert attempt is not None and attempt.commit_set is not None
    r = beacon(state.table_id, attempt.round, attempt.attempt, attempt.commit_set, contributions)
    starter = attempt.starter
    if starter is None:
        starter = draw_starter(r, table_id=state.table_id, seats=attempt.seats)
    return r, starter


def beacon_event(state: TableState, ev: events.Beacon, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round, ev.attempt)
    attempt = state.attempt
    game = state.game
    assert attempt is not None and attempt.commit_set is not None and game is not None
    msgs, counters = seat_messages(state, ev.contributions, MessageType.CONTRIBUTE, chain)
    ts = []
    for m in msgs:
        if m.bytes_field("commit_set") != attempt.commit_set:
            raise fail(
                Reason.WRONG_COMMIT_SET,
                f"seat {m.seat}'s contribution answers another commitment set",
                m.seat,
            )
        t = m.bytes_field("contribution")
        _, contrib_commit = attempt.commits[m.seat]
        ctx = attempt.context(state.table_id, m.seat, state.keys[m.seat])
        if not contribution_matches(ctx, contrib_commit, contribution=t):
            raise fail(
                Reason.OPENING_MISMATCH,
                f"seat {m.seat}'s contribution does not match its commitment",
                m.seat,
            )
        ts.append(t)
    r, starter = expected_beacon(state, ts)
    if ev.beacon != r:
        raise fail(Reason.BEACON_MISMATCH, "the posted R is not the hash of the contributions")
    if ev.starter != starter:
        raise fail(Reason.BEACON_MISMATCH, f"the starter is seat {starter}, not {ev.starter}")
    after = rules_step(game, Deal(starter if game.starter is None else None))
    return replace(
        state,
        phase=TablePhase.BIDDING,
        game=after,
        attempt=replace(attempt, contributions=tuple(ts), beacon=r),
        counters=counters,
    ), (Note("beacon", attempt.round, starter, r.hex(), attempt=attempt.attempt),)


def forced_event(state: TableState, ev: events.Forced, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round)
    game = state.game
    assert game is not None
    seat, reason, action = ev.seat, ev.reason, ev.action
    if state.phase == TablePhase.RESULT:
        require_next_round(game)  # after the final round there is no next round to force
    if reason == "timer" and state.rules.turn_timer == 0:
        raise fail(Reason.BAD_EVENT, "a timer move on a table without a turn timer")
    if reason == "absent" and seat not in state.absent:
        raise fail(Reason.BAD_EVENT, f"seat {seat} was not declared absent", seat)
    if state.phase == TablePhase.RESULT:
        if action != events.ForcedMove(type=MessageType.NEXT_ROUND):
            raise fail(Reason.BAD_EVENT, "between rounds the host can only start the next round")
        if seat != game.next_starter:
            # Like a forced bid for a seat whose turn it is not: the host's event is wrong.
            raise fail(Reason.BAD_EVENT, f"seat {game.next_starter} starts the next round")
        after = rules_step(game, StartNextRound(seat))
        phase = TablePhase.BETWEEN
    else:
        blind = blind_action(game, seat) if seat == game.turn else None
        if blind is None or forced_move(blind) != action:
            raise fail(
                Reason.BAD_EVENT,
                "a forced move must be the blind move of the seat whose turn it is",
            )
        after = rules_step(game, blind)
        phase = TablePhase.SHOWDOWN if after.phase == Phase.SHOWDOWN else TablePhase.BIDDING
    return replace(state, game=after, phase=phase), (
        Note(
            "forced",
            game.round,
            seat,
            f"{reason}: {action.type}",
            reason=reason,
            action=action.type,
        ),
    )


def forced_move(action: Action) -> events.ForcedMove:
    """A blind move (RULES.md R8: a bid or a challenge) as a forced event carries it."""
    if isinstance(action, PlaceBid):
        return events.ForcedMove(
            type=MessageType.BID, quantity=action.bid.quantity, face=action.bid.face
        )
    return events.ForcedMove(type=MessageType.CHALLENGE)


def action_json(action: Action) -> dict[str, Any]:
    """The JSON of `forced_move(action)`."""
    return forced_move(action).to_json()


def absent_event(state: TableState, ev: events.Absent, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round)
    seat = ev.seat
    game = state.game
    assert game is not None
    if seat in state.absent or seat >= len(game.dice) or game.dice[seat] == 0:
        raise fail(Reason.BAD_EVENT, f"seat {seat} cannot be declared absent", seat)
    if ev.reason == "stalled":
        _check_stalled(state, seat)
    return replace(state, absent=state.absent | {seat}), (
        Note("absent", ev.round, seat, ev.reason, reason=ev.reason),
    )


def awaited_mover(state: TableState) -> int | None:
    """The seat whose own move the table waits for: the bidder whose turn it is, or after a
    result the designated starter of the next round; None in every other phase."""
    game = state.game
    if game is None:
        return None
    if state.phase == TablePhase.BIDDING:
        return game.turn
    if state.phase == TablePhase.RESULT and game.phase != Phase.GAME_OVER:
        return game.next_starter
    return None


def on_the_clock(state: TableState, seat: int) -> bool:
    """Whether `seat`'s time bank runs now (SPEC.md 8): the table has a bank and waits for this
    seat's own move, and the seat is neither absent (the host or a stand-in moves for it) nor
    `host_run` (a CPU the host runs moves at the host's own pace)."""
    return (
        state.rules.time_bank > 0
        and awaited_mover(state) == seat
        and seat not in state.absent
        and not (seat < len(state.roster) and state.roster[seat].host_run)
    )


def _check_stalled(state: TableState, seat: int) -> None:
    """What a log can show of a `stalled` claim (SPEC.md 8): the table has a time bank, and the
    seat is the one whose move the table waited for. How long it waited, only the host saw."""
    if state.rules.time_bank == 0:
        raise fail(Reason.BAD_EVENT, "a seat out of time on a table without a time bank", seat)
    if awaited_mover(state) != seat:
        raise fail(
            Reason.BAD_EVENT,
            f"seat {seat} ran out of time although the table was not waiting for its move",
            seat,
        )
    if not on_the_clock(state, seat):  # what is left: a host-run seat
        raise fail(
            Reason.BAD_EVENT,
            f"seat {seat} is a CPU the host runs: it has no time bank to run out of",
            seat,
        )


def stand_in_event(state: TableState, ev: events.StandIn, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round)
    seat, key = ev.seat, ev.key
    if seat not in state.absent or seat in state.stand_ins:
        raise fail(Reason.BAD_EVENT, f"seat {seat} is not an absent seat without a stand-in", seat)
    if not _survives(state, seat):
        # A stand-in plays a seat's dice; an eliminated seat has none (SPEC.md 7).
        raise fail(
            Reason.BAD_EVENT, f"seat {seat} is out of the game: nothing to stand in for", seat
        )
    if key in state.used_keys:
        raise fail(
            Reason.BAD_EVENT,
            "a stand-in needs a key never used at this table (not the host's, nor one that "
            "joined, left or stood in before)",
        )
    if not acceptable_public_key(key):
        raise fail(Reason.BAD_EVENT, "a stand-in key of small order or not canonically encoded")
    return replace(
        state,
        keys={**state.keys, seat: key},
        stand_ins=state.stand_ins | {seat},
        used_keys=state.used_keys | {key},
    ), (Note("stand_in", ev.round, seat),)


def return_event(state: TableState, ev: events.Return, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round)
    seat = ev.seat
    if seat not in state.absent:
        raise fail(Reason.BAD_EVENT, f"seat {seat} was not absent", seat)
    own = state.roster[seat].key
    return replace(
        state,
        keys={**state.keys, seat: own},
        stand_ins=state.stand_ins - {seat},
        absent=state.absent - {seat},
    ), (Note("returned", ev.round, seat),)


def _opened_hands(state: TableState) -> tuple[tuple[int, ...] | None, ...]:
    """Every seat's hand as opened so far: None for an unopened survivor, () for a seat out."""
    game, attempt = state.game, state.attempt
    assert game is not None and attempt is not None
    return tuple(attempt.openings.get(s) if game.dice[s] > 0 else () for s in range(len(game.dice)))


def result_decided(state: TableState) -> bool:
    """Whether the openings so far decide the round (RULES.md R4.1)."""
    assert state.game is not None
    return outcome_decided(state.game, _opened_hands(state))


def _reveal(state: TableState) -> tuple[GameState, events.Result]:
    """The game after the openings so far are revealed, and the result event that says so."""
    game, attempt = state.game, state.attempt
    assert game is not None and attempt is not None
    after = rules_step(game, Reveal(_opened_hands(state)))
    r = after.last_result
    assert r is not None and r.next_starter is not None and r.count is not None
    return after, events.Result(
        round=attempt.round,
        attempt=attempt.attempt,
        hands=r.hands,
        count=r.count,
        outcome=str(r.outcome),
        loser=r.loser,
        gainer=r.gainer,
        dice_after=r.dice_after,
        eliminated=r.eliminated,
        next_starter=r.next_starter,
        palifico_next=r.palifico_next,
    )


def expected_result(state: TableState) -> events.Result:
    """The result event the rules give for the openings so far (unopened seats as None)."""
    return _reveal(state)[1]


def _forfeited(
    state: TableState, seats: tuple[int, ...]
) -> tuple[GameState, tuple[int, ...], int | None]:
    """The game after the forfeit of `seats`, the dice after it and the next round's starter:
    at the showdown the seats forfeit (R4.1); before the beacon the round is void (R4.2)."""
    assert state.game is not None
    event = SeatsForfeit(seats) if state.phase == TablePhase.SHOWDOWN else Void()
    after = rules_step(state.game, event)
    r = after.last_result
    assert r is not None
    return after, r.dice_after, r.next_starter


def expected_forfeit(state: TableState, seats: tuple[int, ...], reason: str) -> events.Forfeit:
    """The forfeit event of `seats` for `reason`, with the dice and starter the rules give."""
    attempt = state.attempt
    assert attempt is not None
    _, dice_after, next_starter = _forfeited(state, seats)
    return events.Forfeit(
        round=attempt.round,
        attempt=attempt.attempt,
        seats=seats,
        reason=reason,
        dice_after=dice_after,
        next_starter=next_starter,
    )


def result_event(state: TableState, ev: events.Result, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round, ev.attempt)
    attempt, game = state.attempt, state.game
    assert attempt is not None and game is not None
    missing = [s for s in attempt.seats if s not in attempt.openings]
    undeclared = [s for s in missing if s not in state.absent]
    if undeclared:
        raise fail(
            Reason.BAD_EVENT,
            f"seat {undeclared[0]} has not opened and was not declared absent",
            undeclared[0],
        )
    try:
        after, want = _reveal(state)
    except TableError as err:
        raise fail(Reason.BAD_EVENT, f"the result cannot be decided yet: {err.detail}") from None
    got, wanted = _fields(ev), _fields(want)
    if got != wanted:
        bad = next(k for k in wanted if got[k] != wanted[k])
        raise fail(
            Reason.RESULT_MISMATCH,
            f"the posted {bad} is {got[bad]}, the openings give {wanted[bad]}",
        )
    return replace(state, game=after, phase=TablePhase.RESULT, result_seq=seq, acks=frozenset()), (
        Note("result", attempt.round, None, want.outcome, outcome=want.outcome),
    )


def forfeit_event(state: TableState, ev: events.Forfeit, seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev.round, ev.attempt)
    attempt, game = state.attempt, state.game
    assert attempt is not None and game is not None
    seats = ev.seats
    if not _ascending(seats):
        raise fail(Reason.BAD_EVENT, "a forfeit names seats in ascending order")
    outside = [s for s in seats if s not in attempt.seats]
    if outside:
        # Only a seat of the attempt owes this step's message, so only its silence can end the
        # attempt: a seat already out (or never seated) owes nothing, and naming it would void
        # a round whose every contribution arrived (SPEC.md 7, 8).
        raise fail(
            Reason.BAD_EVENT,
            f"seat {outside[0]} is not a seat of this attempt: only a seat that owes the "
            "missing message can be named",
            outside[0],
        )
    if any(s not in state.absent for s in seats):
        raise fail(Reason.BAD_EVENT, "only seats declared absent can forfeit")
    if state.phase == TablePhase.SHOWDOWN:
        if ev.reason != "no_opening":
            raise fail(Reason.BAD_EVENT, "at the showdown a forfeit is for a missing opening")
        missing = [s for s in attempt.seats if s not in attempt.openings]
        if list(seats) != missing:
            raise fail(Reason.BAD_EVENT, f"the unopened seats are {missing}")
        if result_decided(state):
            raise fail(
                Reason.BAD_EVENT,
                "the opened hands decide the round; it must be resolved, not forfeited",
            )
    elif ev.reason != "no_contribution":
        raise fail(Reason.BAD_EVENT, "before the beacon a forfeit is for a missing contribution")
    elif held := [s for s in seats if host_holds_contribution(state, s)]:
        raise fail(
            Reason.BAD_EVENT,
            f"seat {held[0]} is host-run: the host signs its contribution itself, so it cannot "
            "be missing, and voiding the round would only re-deal that seat's hand",
            held[0],
        )
    elif state.voids >= void_limit(state):
        raise fail(
            Reason.BAD_EVENT,
            f"{state.voids} rounds were voided already, the most a game allows: "
            "the host can only end the game",
        )
    after, dice_after, next_starter = _forfeited(state, seats)
    if (ev.dice_after, ev.next_starter) != (dice_after, next_starter):
        raise fail(
            Reason.RESULT_MISMATCH, "the forfeit's dice or next starter differ from the rules"
        )
    voids = state.voids + (state.phase == TablePhase.CONTRIBUTE)
    return replace(
        state, game=after, phase=TablePhase.RESULT, result_seq=seq, acks=frozenset(), voids=voids
    ), tuple(
        Note("forfeit", attempt.round, s, ev.reason, attempt=attempt.attempt, reason=ev.reason)
        for s in seats
    )


def host_holds_contribution(state: TableState, seat: int) -> bool:
    """A `host_run` seat of the roster, or a seat played by a stand-in (a host-run CPU, SPEC.md
    8): the host's own process signs its messages, so the log itself shows its contribution
    never had to travel (a void may not name it, SPEC.md 7)."""
    return seat in state.stand_ins or (seat < len(state.roster) and state.roster[seat].host_run)


def void_limit(state: TableState) -> int:
    """How many rounds a game may void for missing contributions (SPEC.md 8): as many as the table has seats.
    Each void re-deals every hand, which only the host can provoke knowing R, so they are
    few, and each one is a warning in the verify report."""
    return state.rules.seats


def game_over_reason(state: TableState) -> str:
    """`finished` when the game has its winner (one survivor), else `abandoned`: a game ended
    early, or one whose last survivors forfeited together, has no winner (RULES.md R6)."""
    game = state.game
    return "finished" if game is not None and game.winner is not None else "abandoned"


def game_over_event(state: TableState, ev: events.GameOver, seq: int, chain: ChainIndex) -> Outcome:
    game = state.game
    want = game_over_reason(state)
    if ev.reason != want:
        raise fail(
            Reason.BAD_EVENT,
            "the game has its winner: it is finished"
            if want == "finished"
            else "the game has no winner: it is abandoned",
        )
    ranking = list(game.ranking) if game is not None else []
    if list(ev.ranking) != ranking:
        raise fail(Reason.RESULT_MISMATCH, f"the ranking is {ranking}, not {list(ev.ranking)}")
    return replace(state, phase=TablePhase.OVER), (
        Note("game_over", game.round if game else None, None, ev.reason, reason=ev.reason),
    )


def _fields(event: events.HostEvent) -> dict[str, Any]:
    """An event's fields as its JSON spells them, for comparing and for naming a difference."""
    fields = event.to_json()
    del fields["type"]
    return fields


def _survives(state: TableState, seat: int) -> bool:
    """The seat still has dice (seats of a table not yet started count as surviving)."""
    game = state.game
    return game is None or (seat < len(game.dice) and game.dice[seat] > 0)


def _ascending(seats: tuple[int, ...]) -> bool:
    """Non-empty, ascending, no seat twice: how abort and forfeit events name their seats."""
    return bool(seats) and sorted(set(seats)) == list(seats)
