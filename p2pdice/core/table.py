"""The table state machine: what every entry of a transcript may be, and what it changes.

Theory of operation
-------------------
The host, every peer and the offline verifier run this same machine over the same entries.
The host runs it *before* appending an entry (a message it would refuse never reaches the
log); a peer runs it on each entry as it arrives (so a host that posts something the rules
or the protocol forbid is caught on the spot); `verify` runs it over a saved file. Because
all three share one transition function, they cannot disagree about what is legal.

Phases of a table (protocol/SPEC.md 7 has the same table in prose)::

    LOBBY --start--> BETWEEN --round--> COMMIT --commit_set--> CONTRIBUTE --beacon--> BIDDING
                       ^  ^               |                        |                     |
                       |  +----abort------+                   forfeit|              challenge/exact
                       |                                           v                     v
                       +---next_round--- RESULT <--------result/forfeit------------ SHOWDOWN

    any phase --game_over--> OVER

COMMIT collects nothing in the log: the host posts the whole commitment set at once, and
likewise all contributions at once in the beacon entry, because posting any contribution
early would let a late contributor see it. Once a commitment set is posted the attempt is
final: the only ways out are a beacon or a forfeit, never another attempt, so no event leads
to fresh randomness for that round (SPEC.md 1.2.1).

Host-made moves (`forced`), `absent`, `abort`, `forfeit`, `stand_in` and `return` are events
in the host's name, so every such act is attributed to the host in the log.

Checks on a player message run cheapest first (table, seat, counter, head, phase, rules)
and the Ed25519 signature last, so a flood of junk costs the host little.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import Reason
from .fairness import (
    SeatCommitment,
    beacon,
    commit_set_hash,
    contribution_matches,
    draw_starter,
)
from .frozen import replace
from .game import (
    Deal,
    Forfeit,
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
from .messages import Message
from .signing import acceptable_public_key
from .table_messages import (
    ack_msg,
    bidding_action,
    join_msg,
    next_round_msg,
    open_msg,
    seat_messages,
)
from .table_state import (
    PROTOCOL_VERSION,
    Attempt,
    ChainIndex,
    Note,
    Outcome,
    SeatInfo,
    TableError,
    TablePhase,
    TableState,
    check_message,
    fail,
    genesis_state,
    require_round,
    rules_step,
    table_id_of,
)
from .transcript import ZERO_HASH, Entry, check_link

__all__ = [
    "PROTOCOL_VERSION",
    "TRANSITIONS",
    "Attempt",
    "ChainIndex",
    "Note",
    "Replayer",
    "SeatInfo",
    "TableError",
    "TablePhase",
    "TableState",
    "action_json",
    "advance",
    "check_message",
    "expected_result",
    "game_over_reason",
    "genesis_state",
    "table_id_of",
    "void_limit",
]


# ---- host events -----------------------------------------------------------------------------


def _leave(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    if ev["seat"] not in state.joins:
        raise fail(Reason.BAD_EVENT, f"seat {ev['seat']} is free already")
    # The key may join again later, with a fresh join (counter 0) answering a fresh challenge.
    key = state.joins[ev["seat"]].key
    joins = {s: i for s, i in state.joins.items() if s != ev["seat"]}
    counters = {k: c for k, c in state.counters.items() if k != key}
    return replace(state, joins=joins, counters=counters), (Note("left", None, ev["seat"]),)


def expected_roster(state: TableState) -> list[dict[str, Any]]:
    """The roster a start event must carry: every join, in seat order."""
    return [state.joins[s].to_json() for s in sorted(state.joins)]


def _start(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    expected = expected_roster(state)
    if len(state.joins) != state.rules.seats:
        raise fail(Reason.BAD_EVENT, f"{len(state.joins)} of {state.rules.seats} seats are taken")
    if ev["roster"] != expected:
        raise fail(Reason.BAD_EVENT, "the roster differs from the joins")
    host_run = sum(1 for s in state.joins.values() if s.host_run)
    if host_run != state.host_cpu:
        raise fail(
            Reason.BAD_EVENT,
            f"genesis declares {state.host_cpu} host-run seats, the roster has {host_run}",
        )
    roster = tuple(state.joins[s] for s in sorted(state.joins))
    return replace(
        state,
        phase=TablePhase.BETWEEN,
        roster=roster,
        keys={s.seat: s.key for s in roster},
        game=new_game(state.rules),
        start_seq=seq,
    ), (Note("started"),)


def expected_round(state: TableState) -> dict[str, Any]:
    """The fields of the round event that opens the next attempt."""
    game = state.game
    assert game is not None
    return {
        "round": game.round,
        "attempt": state.attempt.attempt + 1 if state.after_abort and state.attempt else 1,
        "seats": list(game.survivors),
        "dice": list(game.dice),
        "starter": game.starter,
        "palifico": game.palifico_round,
    }


def _round(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    game = state.game
    assert game is not None
    want = expected_round(state)
    expected_attempt = want["attempt"]
    got = {k: ev[k] for k in want}
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
    ), (Note("round", game.round, game.starter, f"attempt {expected_attempt}"),)


def _commit_set(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev, attempt=True)
    attempt = state.attempt
    assert attempt is not None
    msgs, counters = seat_messages(state, ev["commits"], "commit", chain)
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
    ), (Note("commit_set", attempt.round, None, cs.hex()),)


def _abort(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev, attempt=True)
    attempt = state.attempt
    assert attempt is not None
    missing = ev["missing"]
    if not missing or sorted(set(missing)) != missing or not set(missing) <= set(attempt.seats):
        raise fail(Reason.BAD_EVENT, "an abort names the seats of the attempt that did not commit")
    notes = tuple(
        Note("abort", attempt.round, s, f"attempt {attempt.attempt}: no commitment")
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


def _beacon(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev, attempt=True)
    attempt = state.attempt
    game = state.game
    assert attempt is not None and attempt.commit_set is not None and game is not None
    msgs, counters = seat_messages(state, ev["contributions"], "contribute", chain)
    ts = []
    for m in msgs:
        if m.bytes_field("commit_set") != attempt.commit_set:
            raise fail(
                Reason.WRONG_COMMIT_SET,
                f"seat {m.seat}'s contribution answers another commitment set",
            )
        t = m.bytes_field("contribution")
        _, contrib_commit = attempt.commits[m.seat]
        ctx = attempt.context(state.table_id, m.seat, state.keys[m.seat])
        if not contribution_matches(ctx, contrib_commit, contribution=t):
            raise fail(
                Reason.OPENING_MISMATCH,
                f"seat {m.seat}'s contribution does not match its commitment",
            )
        ts.append(t)
    r, starter = expected_beacon(state, ts)
    if bytes.fromhex(ev["beacon"]) != r:
        raise fail(Reason.BEACON_MISMATCH, "the posted R is not the hash of the contributions")
    if ev["starter"] != starter:
        raise fail(Reason.BEACON_MISMATCH, f"the starter is seat {starter}, not {ev['starter']}")
    after = rules_step(game, Deal(starter if game.starter is None else None))
    return replace(
        state,
        phase=TablePhase.BIDDING,
        game=after,
        attempt=replace(attempt, contributions=tuple(ts), beacon=r),
        counters=counters,
    ), (Note("beacon", attempt.round, starter, r.hex()),)


def _forced(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev)
    game = state.game
    assert game is not None
    seat, reason, action = ev["seat"], ev["reason"], ev["action"]
    if reason == "timer" and state.rules.turn_timer == 0:
        raise fail(Reason.BAD_EVENT, "a timer move on a table without a turn timer")
    if reason == "absent" and seat not in state.absent:
        raise fail(Reason.BAD_EVENT, f"seat {seat} was not declared absent")
    if state.phase == TablePhase.RESULT:
        if action != {"type": "next_round"}:
            raise fail(Reason.BAD_EVENT, "between rounds the host can only start the next round")
        if seat != game.next_starter:
            # Like a forced bid for a seat whose turn it is not: the host's event is wrong.
            raise fail(Reason.BAD_EVENT, f"seat {game.next_starter} starts the next round")
        after = rules_step(game, StartNextRound(seat))
        phase = TablePhase.BETWEEN
    else:
        blind = blind_action(game, seat) if seat == game.turn else None
        if blind is None or action_json(blind) != action:
            raise fail(
                Reason.BAD_EVENT,
                "a forced move must be the blind move of the seat whose turn it is",
            )
        after = rules_step(game, blind)
        phase = TablePhase.SHOWDOWN if after.phase == Phase.SHOWDOWN else TablePhase.BIDDING
    return replace(state, game=after, phase=phase), (
        Note("forced", game.round, seat, f"{reason}: {action['type']}"),
    )


def action_json(action: Any) -> dict[str, Any]:
    if isinstance(action, PlaceBid):
        return {"type": "bid", "quantity": action.bid.quantity, "face": action.bid.face}
    return {"type": "challenge"}


def _absent(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev)
    seat = ev["seat"]
    game = state.game
    assert game is not None
    if seat in state.absent or seat >= len(game.dice) or game.dice[seat] == 0:
        raise fail(Reason.BAD_EVENT, f"seat {seat} cannot be declared absent")
    return replace(state, absent=state.absent | {seat}), (
        Note("absent", ev["round"], seat, ev["reason"]),
    )


def _stand_in(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev)
    seat, key = ev["seat"], bytes.fromhex(ev["key"])
    if seat not in state.absent or seat in state.stand_ins:
        raise fail(Reason.BAD_EVENT, f"seat {seat} is not an absent seat without a stand-in")
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
    ), (Note("stand_in", ev["round"], seat),)


def _return(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev)
    seat = ev["seat"]
    if seat not in state.absent:
        raise fail(Reason.BAD_EVENT, f"seat {seat} was not absent")
    own = state.roster[seat].key
    return replace(
        state,
        keys={**state.keys, seat: own},
        stand_ins=state.stand_ins - {seat},
        absent=state.absent - {seat},
    ), (Note("returned", ev["round"], seat),)


def _result_json(game_after: GameState) -> dict[str, Any]:
    r = game_after.last_result
    assert r is not None
    return {
        "hands": [None if h is None else list(h) for h in r.hands],
        "count": r.count,
        "outcome": str(r.outcome),
        "loser": r.loser,
        "gainer": r.gainer,
        "dice_after": list(r.dice_after),
        "eliminated": list(r.eliminated),
        "next_starter": r.next_starter,
        "palifico_next": r.palifico_next,
    }


def _opened_hands(state: TableState) -> tuple[tuple[int, ...] | None, ...]:
    """Every seat's hand as opened so far: None for an unopened survivor, () for a seat out."""
    game, attempt = state.game, state.attempt
    assert game is not None and attempt is not None
    return tuple(attempt.openings.get(s) if game.dice[s] > 0 else () for s in range(len(game.dice)))


def result_decided(state: TableState) -> bool:
    """Whether the openings so far decide the round (RULES.md R4.1)."""
    assert state.game is not None
    return outcome_decided(state.game, _opened_hands(state))


def _reveal(state: TableState) -> tuple[GameState, dict[str, Any]]:
    """The game after the openings so far are revealed, and the result event that says so."""
    game, attempt = state.game, state.attempt
    assert game is not None and attempt is not None
    after = rules_step(game, Reveal(_opened_hands(state)))
    return after, {"round": attempt.round, "attempt": attempt.attempt, **_result_json(after)}


def expected_result(state: TableState) -> dict[str, Any]:
    """The result event the rules give for the openings so far (unopened seats as None)."""
    return _reveal(state)[1]


def _forfeited(state: TableState, seats: list[int]) -> tuple[GameState, dict[str, Any]]:
    """The game after the forfeit of `seats`, and the fields of the forfeit event that says so:
    at the showdown the seats forfeit (R4.1); before the beacon the round is void (R4.2)."""
    assert state.game is not None
    event = Forfeit(tuple(seats)) if state.phase == TablePhase.SHOWDOWN else Void()
    after = rules_step(state.game, event)
    r = after.last_result
    assert r is not None
    return after, {"dice_after": list(r.dice_after), "next_starter": r.next_starter}


def expected_forfeit(state: TableState, seats: list[int]) -> dict[str, Any]:
    """What a forfeit of `seats` leaves: the dice after it and the next round's starter."""
    return _forfeited(state, seats)[1]


def _result(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev, attempt=True)
    attempt, game = state.attempt, state.game
    assert attempt is not None and game is not None
    missing = [s for s in attempt.seats if s not in attempt.openings]
    undeclared = [s for s in missing if s not in state.absent]
    if undeclared:
        raise fail(
            Reason.BAD_EVENT, f"seat {undeclared[0]} has not opened and was not declared absent"
        )
    try:
        after, want = _reveal(state)
    except TableError as err:
        raise fail(Reason.BAD_EVENT, f"the result cannot be decided yet: {err.detail}") from None
    got = {k: v for k, v in ev.items() if k != "type"}
    if got != want:
        bad = next(k for k in want if got.get(k) != want[k])
        raise fail(
            Reason.RESULT_MISMATCH,
            f"the posted {bad} is {got.get(bad)}, the openings give {want[bad]}",
        )
    return replace(state, game=after, phase=TablePhase.RESULT, result_seq=seq, acks=frozenset()), (
        Note("result", attempt.round, None, want["outcome"]),
    )


def _forfeit(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    require_round(state, ev, attempt=True)
    attempt, game = state.attempt, state.game
    assert attempt is not None and game is not None
    seats = ev["seats"]
    if not seats or sorted(set(seats)) != seats:
        raise fail(Reason.BAD_EVENT, "a forfeit names seats in ascending order")
    if any(s not in state.absent for s in seats):
        raise fail(Reason.BAD_EVENT, "only seats declared absent can forfeit")
    if state.phase == TablePhase.SHOWDOWN:
        if ev["reason"] != "no_opening":
            raise fail(Reason.BAD_EVENT, "at the showdown a forfeit is for a missing opening")
        missing = [s for s in attempt.seats if s not in attempt.openings]
        if seats != missing:
            raise fail(Reason.BAD_EVENT, f"the unopened seats are {missing}")
        if result_decided(state):
            raise fail(
                Reason.BAD_EVENT,
                "the opened hands decide the round; it must be resolved, not forfeited",
            )
    elif ev["reason"] != "no_contribution":
        raise fail(Reason.BAD_EVENT, "before the beacon a forfeit is for a missing contribution")
    elif state.voids >= void_limit(state):
        raise fail(
            Reason.BAD_EVENT,
            f"{state.voids} rounds were voided already, the most a game allows: "
            "the host can only end the game",
        )
    after, want = _forfeited(state, seats)
    if {k: ev[k] for k in want} != want:
        raise fail(
            Reason.RESULT_MISMATCH, "the forfeit's dice or next starter differ from the rules"
        )
    voids = state.voids + (state.phase == TablePhase.CONTRIBUTE)
    return replace(
        state, game=after, phase=TablePhase.RESULT, result_seq=seq, acks=frozenset(), voids=voids
    ), tuple(Note("forfeit", attempt.round, s, ev["reason"]) for s in seats)


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


def _game_over(state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex) -> Outcome:
    game = state.game
    want = game_over_reason(state)
    if ev["reason"] != want:
        raise fail(
            Reason.BAD_EVENT,
            "the game has its winner: it is finished"
            if want == "finished"
            else "the game has no winner: it is abandoned",
        )
    ranking = list(game.ranking) if game is not None else []
    if ev["ranking"] != ranking:
        raise fail(Reason.RESULT_MISMATCH, f"the ranking is {ranking}, not {ev['ranking']}")
    return replace(state, phase=TablePhase.OVER), (
        Note("game_over", game.round if game else None, None, ev["reason"]),
    )


def _fresh_randomness(
    state: TableState, ev: dict[str, Any], seq: int, chain: ChainIndex
) -> Outcome:
    raise fail(
        Reason.FRESH_RANDOMNESS,
        f"a new attempt after the commitment set was posted ({ev['type']} during {state.phase})",
    )


# ---- the transitions table -------------------------------------------------------------------

Handler = Callable[[TableState, Any, int, ChainIndex], Outcome]
_P = TablePhase
_IN_GAME = (_P.BETWEEN, _P.COMMIT, _P.CONTRIBUTE, _P.BIDDING, _P.SHOWDOWN, _P.RESULT)

#: (phase, entry kind) -> handler. Anything not listed is refused with WRONG_PHASE.
TRANSITIONS: dict[tuple[TablePhase, str], Handler] = {
    (_P.LOBBY, "msg:join"): join_msg,
    (_P.LOBBY, "event:leave"): _leave,
    (_P.LOBBY, "event:start"): _start,
    (_P.BETWEEN, "event:round"): _round,
    (_P.BETWEEN, "event:stand_in"): _stand_in,
    (_P.BETWEEN, "event:return"): _return,
    (_P.COMMIT, "event:commit_set"): _commit_set,
    (_P.COMMIT, "event:abort"): _abort,
    (_P.CONTRIBUTE, "event:beacon"): _beacon,
    (_P.CONTRIBUTE, "event:forfeit"): _forfeit,
    (_P.BIDDING, "msg:bid"): bidding_action,
    (_P.BIDDING, "msg:challenge"): bidding_action,
    (_P.BIDDING, "msg:exact"): bidding_action,
    (_P.BIDDING, "msg:undo"): bidding_action,
    (_P.BIDDING, "event:forced"): _forced,
    (_P.SHOWDOWN, "msg:open"): open_msg,
    (_P.SHOWDOWN, "event:result"): _result,
    (_P.SHOWDOWN, "event:forfeit"): _forfeit,
    (_P.RESULT, "msg:ack"): ack_msg,
    (_P.RESULT, "msg:next_round"): next_round_msg,
    (_P.RESULT, "event:forced"): _forced,
    **{(p, "event:absent"): _absent for p in _IN_GAME},
    # Once a commitment set is posted the attempt is final: no abort, no new attempt.
    **{
        (p, f"event:{kind}"): _fresh_randomness
        for p in (_P.CONTRIBUTE, _P.BIDDING, _P.SHOWDOWN)
        for kind in ("abort", "round", "commit_set")
    },
    **{(p, "event:game_over"): _game_over for p in (_P.LOBBY, *_IN_GAME)},
}


def advance(
    state: TableState,
    *,
    seq: int,
    chain: ChainIndex,
    event: dict[str, Any] | None = None,
    msg: Message | None = None,
) -> Outcome:
    """The table after entry `seq` carrying `event` or `msg`; TableError (state unchanged) if refused."""
    if event is not None:
        kind = "event:" + event["type"]
        item: Any = event
    else:
        assert msg is not None
        kind = "msg:" + msg.type
        item = msg
    handler = TRANSITIONS.get((state.phase, kind))
    if handler is None:
        raise fail(
            Reason.WRONG_PHASE, f"{kind.split(':', 1)[1]} is not allowed during {state.phase}"
        )
    if msg is not None and msg.type != "join" and msg.seat not in state.keys:
        raise fail(Reason.NOT_SEATED, f"seat {msg.seat} is not taken")
    after, notes = handler(state, item, seq, chain)
    turn_before = state.game.turn if state.game is not None else None
    turn_after = after.game.turn if after.game is not None else None
    step_seq = seq if (after.phase != state.phase or turn_after != turn_before) else state.step_seq
    return replace(after, next_seq=seq + 1, step_seq=step_seq), notes


class Replayer:
    """Feeds entries through the chain checks and the table machine, keeping what they teach."""

    def __init__(self) -> None:
        self.chain = ChainIndex()
        self.state: TableState | None = None
        self.notes: list[Note] = []

    @property
    def started(self) -> bool:
        return self.state is not None

    def feed(self, entry: Entry) -> tuple[Note, ...]:
        """Check and apply the next entry; TableError/RemoteError (nothing changed) if refused."""
        if self.state is None:
            if entry.event is None:
                raise fail(Reason.BAD_EVENT, "a transcript starts with a genesis event")
            state = genesis_state(entry.event)
            check_link(entry, seq=0, prev=ZERO_HASH, host_key=state.host_key)
            notes: tuple[Note, ...] = (Note("genesis", None, None, state.name),)
        else:
            check_link(
                entry, seq=len(self.chain), prev=self.chain.head, host_key=self.state.host_key
            )
            state, notes = advance(
                self.state, seq=entry.seq, chain=self.chain, event=entry.event, msg=entry.msg
            )
        self.state = state
        self.chain.append(entry.hash)
        self.notes.extend(notes)
        return notes
