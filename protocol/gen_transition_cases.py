"""Writes protocol/vectors/v1/transition_cases.json: transcript fragments that stop at one of the
decisions of SPEC.md 7 a second implementation would otherwise have to guess, each with the
verdict of `verify --partial` (accepted, or refused at a given line with a reason code).

Covered: which seats a void (`forfeit`, `no_contribution`), an `abort` or an `absent` may name
(never a seat already out; for a void, never a host-run seat or a seat a stand-in plays); `next_round` after the final
round, from an eliminated loser, and forced; a `stand_in` and a `return` for a seat already out;
the ranking of a game abandoned in the lobby; a `commit_set` item for a seat the table lacks;
a `commit_set` or `beacon` out of seat order, short of a seat, or naming one seat twice; joins
in the lobby (a seat taken or beyond the table, a key already seated, another host, a name taken,
`host_run` from a person, a counter above 0, a key that left joining again), the room kept for
host-run seats, and leaves; a result's `eliminated` order and `gainer`; an `absent` after the
final round;
acknowledgements of a result (another entry named, another round, twice, twice with another
key's signature, from a seat the result put out);
a round event naming another round or attempt than the one it opens;
entry 0 that is not a genesis, and a genesis that fails the schema or names a seat the
table lacks as `first_starter`; the first word of a name in the CPU form (§10.5); which seat
an `absent` for running out of time (`stalled`, §8) may name; a message made on a history the
log does not hold that also breaks the turn, the bid order or the phase here (`UNKNOWN_HEAD`
before the rules, the code a peer raises as `FORK`: §7 "Order of checks", step 0); a
`beacon` whose items break different checks (item by item, in list order); a bid from a seat
that is out (`NOT_YOUR_TURN`, not `UNKNOWN_SEAT`); an entry whose own fields and whose event's
type are both wrong (the entry's own fields first, `SCHEMA`, §9 step 1).

Like gen_example.py this uses the reference implementation (p2pdice) to play the games the
fragments are cut from, because a game needs the whole table machine; the entries appended to
them are built here by hand, signed with the host's (or a seat's) own key. A case is checked by
replaying `transcripts[prefix][:length] + lines` as a partial log (SPEC.md 9).

    python protocol/gen_transition_cases.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core import events
from p2pdice.core.codec import decode, encode
from p2pdice.core.game import Action, ExactCall, PlaceBid
from p2pdice.core.messages import Message, sign_message
from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import (
    Replayer,
    TablePhase,
    TableState,
    expected_forfeit,
    expected_round,
)
from p2pdice.core.transcript import ZERO_HASH, build_entry, parse_entry
from p2pdice.core.verify import verify_lines
from p2pdice.core.view import SeatView

SPEC_REFS = "SPEC.md §4.1, §7, §7.1, §8, §9, §10.5"
COUNTER = 10_000  #: far above any counter the games reach, so no case trips REPLAY


@dataclass
class Fragment:
    """A game's log cut at a chosen point, and the keys that signed it."""

    lines: list[bytes]
    host: SigningKey
    seats: dict[int, SigningKey]  #: each seat's own (join) key

    def state(self, length: int | None = None) -> tuple[TableState, Replayer]:
        replayer = Replayer()
        for line in self.lines[:length]:
            replayer.feed(parse_entry(line))
        assert replayer.state is not None
        return replayer.state, replayer


@dataclass
class Case:
    comment: str
    prefix: str
    length: int
    lines: list[bytes]
    reason: str | None  #: None: accepted
    index: int | None = None

    def to_json(self, tc_id: int) -> dict[str, Any]:
        return {
            "tc_id": tc_id,
            "comment": self.comment,
            "prefix": self.prefix,
            "length": self.length,
            "lines": [line.decode() for line in self.lines],
            "result": "valid" if self.reason is None else "invalid",
            "index": self.index,
            "reason": self.reason,
        }


@dataclass
class Builder:
    """Entries appended to a fragment: host events signed with its host key, messages signed
    with a seat's key, each linked to the one before."""

    fragment: Fragment
    length: int
    lines: list[bytes] = field(default_factory=list)

    def _chain(self) -> tuple[int, bytes]:
        every = [*self.fragment.lines[: self.length], *self.lines]
        return len(every), parse_entry(every[-1]).hash if every else ZERO_HASH

    def _table(self) -> bytes:
        state, _ = self.fragment.state(self.length)
        return state.table_id

    def event(self, event: events.HostEvent | dict[str, Any]) -> Builder:
        seq, prev = self._chain()
        line = build_entry(self.fragment.host, seq, prev, event=event, table=self._table()).line
        self.lines.append(line)
        return self

    def message(
        self,
        seat: int,
        kind: str,
        *,
        key: SigningKey | None = None,
        head: bytes | None = None,
        table: bytes | None = None,
        **body: Any,
    ) -> Builder:
        msg = self.sign(seat, kind, key=key, head=head, table=table, **body)
        self.lines.append(self.signed_entry(msg))
        return self

    def sign(
        self,
        seat: int,
        kind: str,
        *,
        key: SigningKey | None = None,
        head: bytes | None = None,
        table: bytes | None = None,
        **body: Any,
    ) -> Message:
        """Signed by the seat's key (or `key`) on the chain's head (or `head`)."""
        state, _ = self.fragment.state(self.length)
        _, ours = self._chain()
        return sign_message(
            key or self.fragment.seats[seat],
            kind=kind,
            table=state.table_id if table is None else table,
            seat=seat,
            counter=COUNTER + len(self.lines),
            head=ours if head is None else head,
            **body,
        )

    def signed_entry(self, msg: Message) -> bytes:
        seq, prev = self._chain()
        return build_entry(self.fragment.host, seq, prev, msg=msg, table=self._table()).line


def _index_of(lines: list[bytes], kind: str, **fields: Any) -> int:
    """The index of the first entry of that event type (fields equal), else of that message."""
    for i, line in enumerate(lines):
        entry = parse_entry(line)
        body = entry.event if entry.msg is None else entry.msg.body
        assert body is not None
        if body.get("type") == kind and all(body.get(k) == v for k, v in fields.items()):
            return i
    raise AssertionError(f"no {kind} {fields} in the fragment")


def _keys(table: LocalTable) -> dict[int, SigningKey]:
    return {
        s.peer.seat: s.peer.key
        for s in table.seats.values()
        if s.stand_in_for is None and s.peer.seat is not None
    }


def _play_until(table: LocalTable, done: Callable[[], bool], *, limit: int = 400) -> None:
    """Run the table, advancing its clock when idle, until `done()` holds (bounded)."""
    for _ in range(limit):
        table.run_until_idle()
        if done():
            return
        if not table.advance_clock():
            break
    table.run_until_idle()
    assert done(), f"never reached (host in {table.host.phase})"


def _table(rules: Rules, seed: int, *, host_cpu: int = 0, name: str = "cases") -> LocalTable:
    bots = [load_bot("medium") for _ in range(rules.seats)]
    return LocalTable(rules, bots, rng=random.Random(seed), name=name, host_cpu=host_cpu)


def out_by_forfeit() -> tuple[Fragment, int]:
    """Three seats, one die each: seat `gone`'s opening never arrives in round 1, it is declared
    absent and forfeits (out, and still marked absent); the log stops in round 2's CONTRIBUTE
    step, a survivor's contribution still outstanding."""
    for seed in range(1, 200):
        table = _table(Rules(seats=3, starting_dice=1, first_starter=FirstStarter.SEAT0), seed)
        gone = 1

        def lose(conn: int, msg: Message, gone: int = gone) -> Message | None:
            if msg.type == "open" and msg.seat == gone and msg.body["round"] == 1:
                return None
            if msg.type == "contribute" and msg.body["round"] == 2 and msg.seat != gone:
                return None if msg.seat == min(s for s in range(3) if s != gone) else msg
            return msg

        table.on_send = lose
        table.seat_everyone()

        def in_round_two(table: LocalTable = table) -> bool:
            state = table.host.state
            return (
                state.phase in (TablePhase.OVER, TablePhase.CONTRIBUTE)
                and state.game is not None
                and state.game.round >= 2
            )

        try:
            _play_until(table, in_round_two)
        except AssertionError:
            continue
        state = table.host.state
        assert state.game is not None
        if (
            state.phase == TablePhase.CONTRIBUTE
            and state.game.dice[gone] == 0
            and gone in state.absent
            and state.game.results[0].forfeited == (gone,)
        ):
            return Fragment(table.host.lines(), table.host.key, _keys(table)), gone
    raise AssertionError("no seed gives a forfeit at round 1's showdown")


def final_round_over(rules: Rules, seed: int) -> Fragment:
    """Two seats, one die each: round 1's result ends the game by the rules; the log stops
    before the game-over entry (RESULT, acknowledgements in)."""
    table = _table(rules, seed)
    # Acknowledgements held back: the host waits ACK_WAIT before its game-over entry.
    table.on_send = lambda conn, msg: None if msg.type == "ack" else msg
    table.seat_everyone()
    _play_until(
        table,
        lambda: table.host.state.game is not None and table.host.state.phase == TablePhase.RESULT,
    )
    return Fragment(table.host.lines(), table.host.key, _keys(table))


def loser_out_mid_game() -> Fragment:
    """Three seats, one die each: round 1's loser is out; the log stops in RESULT, the next
    round not yet asked for (the designated starter's next_round held back)."""
    table = _table(Rules(seats=3, starting_dice=1, first_starter=FirstStarter.SEAT0), 5)
    table.on_send = lambda conn, msg: None if msg.type == "next_round" else msg
    table.seat_everyone()
    _play_until(table, lambda: table.host.state.phase == TablePhase.RESULT)
    return Fragment(table.host.lines(), table.host.key, _keys(table))


def bidding_after_an_elimination() -> tuple[Fragment, int]:
    """Three seats, one die each: round 1's loser is out; the log stops in round 2's BIDDING
    step before its first bid (the bids of round 2 held back). Also returns the seat out."""
    table = _table(Rules(seats=3, starting_dice=1, first_starter=FirstStarter.SEAT0), 5)
    acts = ("bid", "challenge", "exact")
    table.on_send = lambda conn, msg: None if msg.type in acts and msg.body["round"] == 2 else msg
    table.seat_everyone()

    def bidding_in_round_two() -> bool:
        state = table.host.state
        return (
            state.phase == TablePhase.BIDDING and state.game is not None and state.game.round == 2
        )

    _play_until(table, bidding_in_round_two)
    game = table.host.state.game
    assert game is not None
    (out,) = (s for s, n in enumerate(game.dice) if n == 0)
    return Fragment(table.host.lines(), table.host.key, _keys(table)), out


def with_host_run_seat() -> Fragment:
    """Three seats, seat 2 host-run: the log stops in round 1's CONTRIBUTE step, seat 0's
    contribution outstanding."""
    table = _table(Rules(seats=3, starting_dice=1, first_starter=FirstStarter.SEAT0), 7, host_cpu=1)
    table.on_send = lambda conn, msg: None if msg.type == "contribute" and msg.seat == 0 else msg
    table.seat_everyone()
    _play_until(table, lambda: table.host.state.phase == TablePhase.CONTRIBUTE)
    return Fragment(table.host.lines(), table.host.key, _keys(table))


def stood_in() -> Fragment:
    """Three seats: seat 0's own contribution to round 1 never arrives, the round is void and a
    stand-in plays seat 0; the log stops in the replay's CONTRIBUTE step, seat 2's contribution
    outstanding."""
    table = _table(Rules(seats=3, starting_dice=1, first_starter=FirstStarter.SEAT0), 8)

    def lose(conn: int, msg: Message) -> Message | None:
        own = table.seats[conn].stand_in_for is None
        if msg.type == "contribute" and ((msg.seat == 0 and own) or msg.seat == 2):
            return None if msg.seat == 0 or table.host.state.voids == 1 else msg
        return msg

    table.on_send = lose
    table.seat_everyone()
    _play_until(
        table,
        lambda: table.host.state.voids == 1 and table.host.state.phase == TablePhase.CONTRIBUTE,
    )
    assert 0 in table.host.state.stand_ins
    return Fragment(table.host.lines(), table.host.key, _keys(table))


def lobby() -> Fragment:
    """Genesis and one join (seat 0), the lobby still open."""
    table = _table(Rules(seats=3, starting_dice=1), 9)
    table.add_player(load_bot("medium"), name="Hana", cpu=False)
    table.run_until_idle()
    return Fragment(table.host.lines(), table.host.key, _keys(table))


def wrong_field(posted: dict[str, Any], wrong: dict[str, Any]) -> str:
    """The field a case changed, as `name` = value."""
    key = next(k for k in posted if posted[k] != wrong[k])
    return f"`{key}` = {json.dumps(wrong[key])}"


def _exact_caller(view: SeatView, rng: random.Random) -> Action:
    """Calls exact on any bid it can, and otherwise bids the lowest legal bid."""
    seat = view.seat
    assert seat is not None
    if view.standing_bid is not None and view.can_exact:
        return ExactCall(seat)
    return PlaceBid(seat, view.legal_bids()[0])


def exact_hit(rules: Rules) -> tuple[Fragment, int]:
    """Three seats of one die each, seat 0 opens at the lowest bid and seat 1 calls it exact,
    right: the whole log, and the index of its result entry (the first seed that hits)."""
    for seed in range(1, 200):
        table = LocalTable(
            rules, [_exact_caller] * rules.seats, rng=random.Random(seed), name="cases"
        )
        table.seat_everyone()
        _play_until(table, lambda table=table: table.host.state.phase == TablePhase.OVER)
        lines = table.host.lines()
        at = _index_of(lines, "result", round=1)
        if decode(lines[at])["event"]["outcome"] == "exact_hit":
            return Fragment(lines, table.host.key, _keys(table)), at
    raise AssertionError("no seed gives a right exact call in round 1")


def _forfeit(state: TableState, seats: tuple[int, ...], reason: str) -> events.Forfeit:
    return expected_forfeit(state, seats, reason)


def build() -> tuple[dict[str, Fragment], list[tuple[str, list[Case]]]]:
    fragments: dict[str, Fragment] = {}
    groups: list[tuple[str, list[Case]]] = []

    out, gone = out_by_forfeit()
    fragments["out_by_forfeit"] = out
    full = len(out.lines)
    state, _ = out.state()
    assert state.attempt is not None and state.game is not None
    r2 = state.game.round
    survivor = min(s for s in state.attempt.seats)
    between = _index_of(out.lines, "round", round=r2, attempt=1)  # the table is BETWEEN here
    commit = between + 1  # the round event posted: the table is in COMMIT after `commit` lines
    voids: list[Case] = []
    b = Builder(out, full).event(_forfeit(state, (gone,), "no_contribution"))
    voids.append(
        Case(
            f"a void naming seat {gone}, out since round 1 (and still marked absent): every "
            "contribution the round needs is the other seats', so nothing is missing",
            "out_by_forfeit",
            full,
            b.lines,
            "BAD_EVENT",
            full,
        )
    )
    after_absent = state
    b = Builder(out, full).event(events.Absent(round=r2, seat=survivor, reason="no_reply"))
    after_absent, _ = Fragment([*out.lines, *b.lines], out.host, out.seats).state()
    b.event(_forfeit(after_absent, tuple(sorted((gone, survivor))), "no_contribution"))
    voids.append(
        Case(
            f"a void naming seat {gone} (out) beside seat {survivor}, a seat of the attempt "
            "declared absent: one seat outside the attempt refuses the whole event",
            "out_by_forfeit",
            full,
            b.lines,
            "BAD_EVENT",
            full + 1,
        )
    )
    b = Builder(out, full).event(events.Absent(round=r2, seat=survivor, reason="no_reply"))
    b.event(_forfeit(after_absent, (survivor,), "no_contribution"))
    voids.append(
        Case(
            f"the honest void: seat {survivor}, a seat of the attempt, declared absent, then the "
            "round void (nobody loses a die)",
            "out_by_forfeit",
            full,
            b.lines,
            None,
        )
    )
    b = Builder(out, full).event(events.Absent(round=r2, seat=gone, reason="no_reply"))
    voids.append(
        Case(
            f"seat {gone}, already out, declared absent: only a surviving seat can be",
            "out_by_forfeit",
            full,
            b.lines,
            "BAD_EVENT",
            full,
        )
    )
    commit_state, _ = out.state(commit)
    assert commit_state.phase == TablePhase.COMMIT
    b = Builder(out, commit).event(
        events.Abort(round=r2, attempt=1, missing=(gone,), reason="commit_timeout")
    )
    voids.append(
        Case(
            f"an abort naming seat {gone}, out: it owes no commitment",
            "out_by_forfeit",
            commit,
            b.lines,
            "BAD_EVENT",
            commit,
        )
    )

    runner = with_host_run_seat()
    fragments["host_run_seat"] = runner
    n = len(runner.lines)
    rstate, _ = runner.state()
    (cpu,) = [s.seat for s in rstate.roster if s.host_run]
    b = Builder(runner, n).event(events.Absent(round=1, seat=cpu, reason="no_reply"))
    declared, _ = Fragment([*runner.lines, *b.lines], runner.host, runner.seats).state()
    b.event(_forfeit(declared, (cpu,), "no_contribution"))
    voids.append(
        Case(
            f"a void naming seat {cpu}, host-run (its join says `host_run`): the host signs that "
            "seat's contribution itself, so the log shows it cannot be missing; the absence "
            "declared before it is accepted, the void refused",
            "host_run_seat",
            n,
            b.lines,
            "BAD_EVENT",
            n + 1,
        )
    )
    b = Builder(runner, n).event(events.Absent(round=1, seat=0, reason="no_reply"))
    declared, _ = Fragment([*runner.lines, *b.lines], runner.host, runner.seats).state()
    b.event(_forfeit(declared, (0,), "no_contribution"))
    voids.append(
        Case(
            "at the same table the void of seat 0 (a player's seat, declared absent) is accepted",
            "host_run_seat",
            n,
            b.lines,
            None,
        )
    )
    standing = stood_in()
    fragments["stood_in"] = standing
    n = len(standing.lines)
    sstate, _ = standing.state()
    b = Builder(standing, n).event(_forfeit(sstate, (0,), "no_contribution"))
    voids.append(
        Case(
            "a void naming seat 0, absent and played by a stand-in (a CPU the host runs, with a "
            "key the host chose): the host signs that contribution itself, so it cannot be missing",
            "stood_in",
            n,
            b.lines,
            "BAD_EVENT",
            n,
        )
    )
    groups.append(("voids, aborts and absences name only seats that owe the message", voids))

    results: list[Case] = []
    three = Rules(seats=3, starting_dice=1, exact_call=True, first_starter=FirstStarter.SEAT0)
    for name, rules in (
        ("others_lose_hit", three.with_options(exact_reward="others-lose")),
        ("regain_hit_at_full_dice", three),
    ):
        fragment, at = exact_hit(rules)
        fragments[name] = fragment
        posted = decode(fragment.lines[at])["event"]
        if name == "others_lose_hit":
            assert posted["eliminated"] == [0, 2] and posted["loser"] is None, posted
            wrong = {**posted, "eliminated": [2, 0]}
            what = (
                "an others-lose exact hit by seat 1 puts seats 0 and 2 out together: the "
                "result's `eliminated` lists them ascending, [0, 2] (the ranking, not this "
                "list, carries R4's order between them), and `loser` is null (several lost)"
            )
        else:
            assert posted["gainer"] is None and posted["dice_after"] == [1, 1, 1], posted
            wrong = {**posted, "gainer": 1}
            what = (
                "a right exact call by seat 1 holding its starting dice (regain): nobody's "
                "dice change and `gainer` is null, as it is for every result but a regained die"
            )
        results.append(Case(f"{what}: accepted", name, at, [fragment.lines[at]], None))
        b = Builder(fragment, at).event(wrong)
        results.append(
            Case(
                f"the same result posted with {wrong_field(posted, wrong)}: RESULT_MISMATCH",
                name,
                at,
                b.lines,
                "RESULT_MISMATCH",
                at,
            )
        )
    groups.append(("a result's eliminated seats and gainer", results))

    opens: list[Case] = []
    due, _ = out.state(between)
    right = expected_round(due)
    for change, what in (
        ({"round": right.round + 1}, f"round {right.round + 1} where round {right.round} is due"),
        ({"round": right.round - 1}, f"round {right.round - 1}, the round before"),
        ({"attempt": 2}, "attempt 2 where no attempt was aborted"),
    ):
        b = Builder(out, between).event(replace(right, **change))
        opens.append(
            Case(
                f"a round event naming {what}: BAD_EVENT (not WRONG_ROUND: a round event "
                "names the attempt it opens, which its row checks with the other fields)",
                "out_by_forfeit",
                between,
                b.lines,
                "BAD_EVENT",
                between,
            )
        )
    b = Builder(out, between).event(right)
    opens.append(
        Case(
            "the round event the game gives (the control case): accepted",
            "out_by_forfeit",
            between,
            b.lines,
            None,
        )
    )
    groups.append(("a round event names the round and attempt it opens", opens))

    out_seat: list[Case] = []
    fresh = SigningKey(random.Random(11).randbytes(32))
    b = Builder(out, between).event(events.StandIn(round=r2, seat=gone, key=fresh.public))
    out_seat.append(
        Case(
            f"a stand-in for seat {gone}, out (and absent, no stand-in yet): a stand-in plays a "
            "seat's dice and this one has none",
            "out_by_forfeit",
            between,
            b.lines,
            "BAD_EVENT",
            between,
        )
    )
    b = Builder(out, between).event(events.Return(round=r2, seat=gone))
    out_seat.append(
        Case(
            f"seat {gone}, out and absent, returns: accepted (its own key signs for it again, "
            "which is all an eliminated seat still does: acknowledgements)",
            "out_by_forfeit",
            between,
            b.lines,
            None,
        )
    )
    groups.append(("a seat already out: stand-in and return", out_seat))

    final = final_round_over(
        Rules(seats=2, starting_dice=1, first_starter=FirstStarter.SEAT0, turn_timer=30), 3
    )
    fragments["final_round_over"] = final
    n = len(final.lines)
    fstate, _ = final.state()
    assert fstate.game is not None and fstate.game.winner is not None
    winner = fstate.game.winner
    loser = 1 - winner
    last = fstate.game.round
    nexts: list[Case] = []
    for seat, who in ((winner, "the winner"), (loser, "the loser, now out")):
        b = Builder(final, n).message(seat, "next_round", round=last)
        nexts.append(
            Case(
                f"next_round after the final round from {who} (seat {seat}): WRONG_PHASE, "
                "whoever sends it",
                "final_round_over",
                n,
                b.lines,
                "WRONG_PHASE",
                n,
            )
        )
    b = Builder(final, n).event(
        events.Forced(
            round=last,
            seat=winner,
            reason="timer",
            action=events.ForcedMove(type="next_round"),
        )
    )
    nexts.append(
        Case(
            "a forced next_round after the final round (a table with a turn timer): WRONG_PHASE, "
            "as the message",
            "final_round_over",
            n,
            b.lines,
            "WRONG_PHASE",
            n,
        )
    )
    b = Builder(final, n).event(events.GameOver(ranking=(winner, loser), reason="finished"))
    nexts.append(
        Case("the game-over entry that belongs there", "final_round_over", n, b.lines, None)
    )
    assert final.state()[0].rules.time_bank > 0
    for reason, verdict, why in (
        (
            "stalled",
            "BAD_EVENT",
            "no next round, so no designated starter the table waits for",
        ),
        (
            "no_reply",
            None,
            "accepted: the row asks only that the seat survives and is not absent already",
        ),
    ):
        b = Builder(final, n).event(events.Absent(round=last, seat=winner, reason=reason))
        nexts.append(
            Case(
                f"an `absent` ({reason}) for the winner after the final round, at a table with "
                f"a time bank: {why}",
                "final_round_over",
                n,
                b.lines,
                verdict,
                None if verdict is None else n,
            )
        )
    mid = loser_out_mid_game()
    fragments["loser_out_mid_game"] = mid
    n = len(mid.lines)
    mstate, _ = mid.state()
    assert mstate.game is not None
    result = mstate.game.last_result
    assert result is not None and result.loser is not None and result.eliminated
    starter = mstate.game.next_starter
    b = Builder(mid, n).message(result.loser, "next_round", round=mstate.game.round)
    nexts.append(
        Case(
            f"next_round from round {mstate.game.round}'s loser (seat {result.loser}, out) "
            f"when seat {starter} starts the next round: NOT_YOUR_TURN",
            "loser_out_mid_game",
            n,
            b.lines,
            "NOT_YOUR_TURN",
            n,
        )
    )
    assert starter is not None
    b = Builder(mid, n).message(starter, "next_round", round=mstate.game.round)
    nexts.append(
        Case(
            f"next_round from the designated starter (seat {starter})",
            "loser_out_mid_game",
            n,
            b.lines,
            None,
        )
    )
    groups.append(("next_round after the final round, from the loser, forced", nexts))
    groups.append(("acknowledgements of a result", _ack_cases(mid)))

    hall = lobby()
    fragments["lobby"] = hall
    n = len(hall.lines)
    ends: list[Case] = []
    for ranking, reason, code, comment in (
        ((), "abandoned", None, "a game abandoned in the lobby ranks nobody: ranking []"),
        ((0,), "abandoned", "RESULT_MISMATCH", "a lobby game-over ranking a seated player"),
        ((), "finished", "BAD_EVENT", "a lobby game cannot be finished: nobody won"),
    ):
        b = Builder(hall, n).event(events.GameOver(ranking=ranking, reason=reason))
        ends.append(Case(comment, "lobby", n, b.lines, code, None if code is None else n))
    groups.append(("the ranking of a game abandoned in the lobby", ends))

    sets: list[Case] = []
    honest_set = parse_entry(out.lines[commit])
    assert honest_set.event is not None and honest_set.event["type"] == "commit_set"
    b = Builder(out, commit)
    stranger = SigningKey(random.Random(12).randbytes(32))
    extra = b.sign(
        3,
        "commit",
        key=stranger,
        round=r2,
        attempt=1,
        seed_commit=random.Random(13).randbytes(32),
        contrib_commit=random.Random(14).randbytes(32),
    )
    commits = [*honest_set.event["commits"], extra.to_json()]
    b.event({**honest_set.event, "commits": commits})
    sets.append(
        Case(
            "a commit_set whose last item is a commit for seat 3 of a 3-seat table: that item's "
            "own checks (SPEC.md 4.1) refuse it, NOT_SEATED, before the set as a whole",
            "out_by_forfeit",
            commit,
            b.lines,
            "NOT_SEATED",
            commit,
        )
    )
    groups.append(("a commit_set item for a seat the table lacks", sets))

    orders: list[Case] = []
    honest = list(honest_set.event["commits"])
    for commits, code, comment in (
        (
            honest[::-1],
            "COMMIT_SET_MISMATCH",
            "a commit_set holding every seat's own commit, in reverse seat order: each item "
            "passes its own checks, the set is refused as a whole (SPEC.md 7: seat order)",
        ),
        (
            honest[:-1],
            "COMMIT_SET_MISMATCH",
            "a commit_set missing the last seat's commit: the host may not post the set before "
            "every seat of the attempt has committed",
        ),
        (
            [*honest, honest[-1]],
            "REPLAY",
            "a commit_set naming the last seat's commit twice: the second copy's counter is not "
            "above the first's, refused by its own checks in list order before the set's seats",
        ),
    ):
        b = Builder(out, commit).event({**honest_set.event, "commits": commits})
        orders.append(Case(comment, "out_by_forfeit", commit, b.lines, code, commit))
    beacon_at = _index_of(out.lines, "beacon", round=1, attempt=1)
    honest_beacon = parse_entry(out.lines[beacon_at])
    assert honest_beacon.event is not None
    contributions = list(honest_beacon.event["contributions"])
    b = Builder(out, beacon_at).event({**honest_beacon.event, "contributions": contributions[::-1]})
    orders.append(
        Case(
            "a beacon holding every seat's contribution in reverse seat order: BAD_EVENT (R is "
            "defined over the contributions in ascending seat order, SPEC.md 5.4)",
            "out_by_forfeit",
            beacon_at,
            b.lines,
            "BAD_EVENT",
            beacon_at,
        )
    )
    groups.append(("commit_set and beacon items: seat order, each seat once", orders))

    firsts: list[Case] = []
    host = hall.host
    game_over = build_entry(
        host, 0, ZERO_HASH, event=events.GameOver(ranking=(), reason="abandoned")
    )
    firsts.append(
        Case(
            "entry 0 is a game_over event, not a genesis: BAD_EVENT at index 0 (before its seq, "
            "prev or signature: only a genesis names the host key)",
            "lobby",
            0,
            [game_over.line],
            "BAD_EVENT",
            0,
        )
    )
    join_entry = parse_entry(hall.lines[1])
    as_first = build_entry(host, 0, ZERO_HASH, msg=join_entry.msg, table=join_entry.msg.table)
    firsts.append(
        Case(
            "entry 0 carries a player's message (a join): BAD_EVENT at index 0",
            "lobby",
            0,
            [as_first.line],
            "BAD_EVENT",
            0,
        )
    )
    genesis = parse_entry(hall.lines[0])
    assert genesis.event is not None
    own = decode(hall.lines[0])["event"]
    for change, reason, why in (
        ({"protocol": 2}, "SCHEMA", "protocol 2: the schema's const"),
        ({"host_cpu": 4}, "SCHEMA", "host_cpu 4 at a 3-seat table: the schema's allOf"),
        ({"rules": {**own["rules"], "undo": True}}, "SCHEMA", "undo at a standard table"),
        ({"rules": {**own["rules"], "starting_dice": 6}}, "SCHEMA", "starting_dice 6"),
        (
            {"rules": {**own["rules"], "first_starter": "seat3"}},
            "BAD_EVENT",
            "first_starter seat3 at a 3-seat table: a value the schema allows, a seat the "
            "table lacks",
        ),
    ):
        odd = build_entry(host, 0, ZERO_HASH, event={**own, **change})
        firsts.append(
            Case(
                f"a genesis with {why}: {reason} at index 0 (a genesis that fails the schema "
                "is a shape error; a first_starter seat the table lacks is the one defect the "
                "schema cannot state)",
                "lobby",
                0,
                [odd.line],
                reason,
                0,
            )
        )
    b = Builder(hall, n).event(genesis.event)
    firsts.append(
        Case(
            "a second genesis later in the log: no row takes it, WRONG_PHASE",
            "lobby",
            n,
            b.lines,
            "WRONG_PHASE",
            n,
        )
    )
    groups.append(("entry 0 that is not a genesis", firsts))

    names: list[Case] = []
    hstate, _ = hall.state()
    rng = random.Random(15)
    for seat, name, code, comment in (
        (
            1,
            "CPU´7",
            "NAME_RESERVED",
            "U+00B4 is U+0020 U+0301 under NFKC: the key is 'cpu', U+0020, U+0301, '7', its "
            "first word 'cpu'",
        ),
        (1, "cpu medium 1", "NAME_RESERVED", "the key's first word is 'cpu'"),
        (1, "CPU-7", None, "no U+0020 in the key: its first word is 'cpu-7', not 'cpu'"),
        (1, "CPUs", None, "the first word 'cpus' only begins with 'cpu'"),
        (1, "Ana CPU", None, "'cpu' is the second word"),
    ):
        joiner = SigningKey(rng.randbytes(32))
        b = Builder(hall, n)
        msg = sign_message(
            joiner,
            kind="join",
            table=hstate.table_id,
            seat=seat,
            counter=0,
            head=parse_entry(hall.lines[-1]).hash,
            key=joiner.public,
            name=name,
            cpu=False,
            host_run=False,
            host=host.public,
            nonce=rng.randbytes(16),
        )
        b.lines.append(b.signed_entry(msg))
        names.append(
            Case(
                f"a person's join named {name!r}: {comment}",
                "lobby",
                n,
                b.lines,
                code,
                None if code is None else n,
            )
        )
    groups.append(("the first word of a name in the CPU form (SPEC.md 10.5)", names))
    groups.append(("joins in the lobby: seat, key, host and name", _join_cases(hall, n)))
    fragments["room"], room = _host_run_room_cases()
    groups.append(("joins in the lobby: room kept for the host-run seats", room))
    groups.append(("which seat an `absent` for running out of time (`stalled`) may name", []))
    for bank in (180, 0):
        key = f"bidding_bank_{bank}"
        fragments[key] = first_bids(bank)
        groups[-1][1].extend(_stalled_cases(fragments[key], key, bank))
    contribute = out_by_forfeit()[0]
    state, _ = contribute.state()
    assert state.phase == TablePhase.CONTRIBUTE and state.attempt is not None
    seat = min(state.attempt.seats)
    b = Builder(contribute, len(contribute.lines)).event(
        events.Absent(round=state.attempt.round, seat=seat, reason="stalled")
    )
    groups[-1][1].append(
        Case(
            f"seat {seat} out of time while the table waits for contributions, not for a move: "
            "the bank runs only while the table waits for a seat's own move",
            "out_by_forfeit",
            len(contribute.lines),
            b.lines,
            "BAD_EVENT",
            len(contribute.lines),
        )
    )
    groups.append(
        (
            "a message made on another history, which also breaks the rules of this one: "
            "UNKNOWN_HEAD (FORK at a peer) before the phase, the turn and the bids",
            _forked_cases(fragments["bidding_bank_180"], "bidding_bank_180"),
        )
    )
    # Added after the first release of these vectors: last, so earlier tc_ids stay as they were.
    groups.append(("the order of checks among a beacon's items", _beacon_item_cases(out)))
    late, out_seat = bidding_after_an_elimination()
    fragments["bidding_after_an_elimination"] = late
    groups.append(
        (
            "a move from a seat that is out; an entry wrong in two ways",
            _out_and_shape_cases(late, out_seat),
        )
    )
    return fragments, groups


def _beacon_item_cases(out: Fragment) -> list[Case]:
    """A beacon whose first item breaks one check and whose second breaks another: the items
    are checked one by one in list order, each against both checks, so the first item's own
    failure is the one reported, whichever check it is."""
    at = _index_of(out.lines, "beacon", round=1, attempt=1)
    honest = parse_entry(out.lines[at])
    assert honest.event is not None
    items = [decode(encode(item)) for item in honest.event["contributions"]]
    assert len(items) >= 2

    def resigned(item: dict[str, Any], **changes: Any) -> dict[str, Any]:
        body = {k: v for k, v in item["body"].items() if k not in ("type", "seat", "table")}
        body.update(changes)
        head = bytes.fromhex(body.pop("head"))
        counter = body.pop("counter")
        msg = sign_message(
            out.seats[item["body"]["seat"]],
            kind="contribute",
            table=bytes.fromhex(item["body"]["table"]),
            seat=item["body"]["seat"],
            counter=counter,
            head=head,
            **body,
        )
        return msg.to_json()

    other = "ab" * 32  # neither the set's hash nor the contribution committed to
    cases = []
    for first, second, code in (
        ({"contribution": other}, {"commit_set": other}, "OPENING_MISMATCH"),
        ({"commit_set": other}, {"contribution": other}, "WRONG_COMMIT_SET"),
    ):
        b = Builder(out, at)
        changed = [resigned(items[0], **first), resigned(items[1], **second), *items[2:]]
        b.event({**honest.event, "contributions": changed})
        what = {
            "OPENING_MISMATCH": "a contribution that does not match its commitment",
            "WRONG_COMMIT_SET": "another commitment set's hash",
        }
        cases.append(
            Case(
                f"a beacon whose first item has {what[code]} and whose second has "
                f"{what['WRONG_COMMIT_SET' if code == 'OPENING_MISMATCH' else 'OPENING_MISMATCH']}: "
                f"{code}, the first item's (items are checked one by one in list order, "
                "both checks for one item before the next)",
                "out_by_forfeit",
                at,
                b.lines,
                code,
                at,
            )
        )
    return cases


def _out_and_shape_cases(late: Fragment, out_seat: int) -> list[Case]:
    n = len(late.lines)
    state, _ = late.state()
    assert state.game is not None and state.game.turn is not None
    cases = []
    b = Builder(late, n).message(out_seat, "bid", round=state.game.round, quantity=1, face=2)
    cases.append(
        Case(
            f"a bid from seat {out_seat}, out since round 1, while seat {state.game.turn} is to "
            "move: NOT_YOUR_TURN (UNKNOWN_SEAT is only for a seat number the table does not "
            "have; a seat that is out never has the turn)",
            "bidding_after_an_elimination",
            n,
            b.lines,
            "NOT_YOUR_TURN",
            n,
        )
    )
    b = Builder(late, n).message(state.game.turn, "bid", round=state.game.round, quantity=1, face=2)
    cases.append(
        Case(
            f"the same bid from seat {state.game.turn}, whose turn it is: accepted",
            "bidding_after_an_elimination",
            n,
            b.lines,
            None,
        )
    )
    last = parse_entry(late.lines[-1])
    unknown = {"type": "shuffle", "round": state.game.round}
    for comment, entry, code in (
        (
            "an entry with an event of a type that does not exist, its own fields well formed: "
            "UNKNOWN_TYPE",
            {"seq": n, "prev": last.hash.hex(), "event": unknown, "sig": "00" * 64},
            "UNKNOWN_TYPE",
        ),
        (
            "the same entry without its `prev`: SCHEMA, since the entry's own fields (seq, prev, "
            "sig, exactly one of event and msg) are checked before the type of what it carries",
            {"seq": n, "event": unknown, "sig": "00" * 64},
            "SCHEMA",
        ),
    ):
        cases.append(Case(comment, "bidding_after_an_elimination", n, [encode(entry)], code, n))
    return cases


def _forked_cases(fragment: Fragment, key: str) -> list[Case]:
    """Seat 0 to bid, no standing bid. The other history is the one where seat 0's bid
    (`theirs`) is entry n instead: seat 1's answer, made on it, is posted here."""
    state, _ = fragment.state()
    assert state.phase == TablePhase.BIDDING and state.game is not None
    assert state.game.turn == 0
    n = len(fragment.lines)
    theirs = parse_entry(
        Builder(fragment, n).message(0, "bid", round=1, quantity=1, face=2).lines[0]
    )
    elsewhere = theirs.hash  #: host-signed, at seq n, in the other history only
    stranger = SigningKey(b"\x07" * 32)
    cases = []
    for comment, build, reason, at in (
        (
            "seat 1's bid, made on another history where seat 0 had bid: seat 0 is on turn "
            "here, and the head comes first",
            lambda b: b.message(1, "bid", head=elsewhere, round=1, quantity=2, face=2),
            "UNKNOWN_HEAD",
            0,
        ),
        (
            "the same bid made on this log: NOT_YOUR_TURN (the rules, once the head is ours)",
            lambda b: b.message(1, "bid", round=1, quantity=2, face=2),
            "NOT_YOUR_TURN",
            0,
        ),
        (
            "seat 0 bids 3 x 5s here; seat 1's 2 x 5s, made on another history, is lower than "
            "the standing bid, and the head comes first",
            lambda b: b.message(0, "bid", round=1, quantity=3, face=5).message(
                1, "bid", head=elsewhere, round=1, quantity=2, face=5
            ),
            "UNKNOWN_HEAD",
            1,
        ),
        (
            "the same lower bid made on this log: BID_NOT_HIGHER",
            lambda b: b.message(0, "bid", round=1, quantity=3, face=5).message(
                1, "bid", round=1, quantity=2, face=5
            ),
            "BID_NOT_HIGHER",
            1,
        ),
        (
            "seat 1's opening made on another history, during this log's bidding: the head "
            "comes before the phase",
            lambda b: b.message(
                1, "open", head=elsewhere, round=1, attempt=1, salt=bytes(32), seed=bytes(32)
            ),
            "UNKNOWN_HEAD",
            0,
        ),
        (
            "the same opening made on this log: WRONG_PHASE",
            lambda b: b.message(1, "open", round=1, attempt=1, salt=bytes(32), seed=bytes(32)),
            "WRONG_PHASE",
            0,
        ),
        (
            "seat 1's bid on a head this log does not hold, under a signature seat 1's key did "
            "not make: a forgery (BAD_SIGNATURE), which proves no other history",
            lambda b: b.message(
                1, "bid", key=stranger, head=elsewhere, round=1, quantity=2, face=2
            ),
            "BAD_SIGNATURE",
            0,
        ),
        (
            "an opening from seat 5, which this two-seat table does not have, on a head this "
            "log does not hold: no key to check it under, so NOT_SEATED at the history check "
            "(on this log's head, the phase would refuse it first: WRONG_PHASE)",
            lambda b: b.message(
                5,
                "open",
                key=stranger,
                head=elsewhere,
                round=1,
                attempt=1,
                salt=bytes(32),
                seed=bytes(32),
            ),
            "NOT_SEATED",
            0,
        ),
        (
            "seat 1's bid naming another table: WRONG_TABLE comes first (its head is that "
            "table's, which proves nothing about this one)",
            lambda b: b.message(
                1, "bid", head=elsewhere, table=bytes(32), round=1, quantity=2, face=2
            ),
            "WRONG_TABLE",
            0,
        ),
        (
            "an acknowledgement made on this log naming a result this log does not hold, "
            "during bidding: only the head is checked first (a result lies before the head), "
            "so the phase refuses it",
            lambda b: b.message(1, "ack", round=1, result=elsewhere),
            "WRONG_PHASE",
            0,
        ),
    ):
        b = build(Builder(fragment, n))
        cases.append(Case(comment, key, n, b.lines, reason, n + at))
    return cases


def _ack_cases(mid: Fragment) -> list[Case]:
    """Acknowledgements of round 1's result in `loser_out_mid_game()`, cut right after the
    result entry (no acknowledgement in yet). SPEC.md 7's `msg:ack` row: the round, then the
    result named (another entry's hash is `UNKNOWN_HEAD`: an acknowledgement names a head),
    then once per seat, and only then SPEC.md 4.1's checks of the message itself."""
    at = _index_of(mid.lines, "result", round=1)
    length = at + 1
    result = parse_entry(mid.lines[at]).hash
    before = parse_entry(mid.lines[at - 1]).hash
    state, _ = mid.state(length)
    assert state.phase == TablePhase.RESULT and state.game is not None
    out = next(s for s, dice in enumerate(state.game.dice) if dice == 0)
    alive = next(s for s, dice in enumerate(state.game.dice) if dice > 0)
    stranger = SigningKey(random.Random(17).randbytes(32))
    cases: list[Case] = []
    for comment, make, code, extra in (
        (
            f"seat {alive} acknowledges the result: accepted",
            lambda b: b.message(alive, "ack", round=1, result=result),
            None,
            0,
        ),
        (
            f"seat {out}, out since this result, acknowledges it: accepted (an eliminated seat "
            "still acknowledges)",
            lambda b: b.message(out, "ack", round=1, result=result),
            None,
            0,
        ),
        (
            f"seat {alive} acknowledges the entry before the result: UNKNOWN_HEAD",
            lambda b: b.message(alive, "ack", round=1, result=before),
            "UNKNOWN_HEAD",
            0,
        ),
        (
            f"seat {alive} acknowledges round 2's result: WRONG_ROUND",
            lambda b: b.message(alive, "ack", round=2, result=result),
            "WRONG_ROUND",
            0,
        ),
        (
            f"seat {alive} acknowledges twice: DUPLICATE at the second",
            lambda b: b.message(alive, "ack", round=1, result=result).message(
                alive, "ack", round=1, result=result
            ),
            "DUPLICATE",
            1,
        ),
        (
            f"seat {alive} acknowledges, then a second acknowledgement for seat {alive} signed "
            "by another key: DUPLICATE, before its signature is checked",
            lambda b: b.message(alive, "ack", round=1, result=result).message(
                alive, "ack", key=stranger, round=1, result=result
            ),
            "DUPLICATE",
            1,
        ),
    ):
        lines = make(Builder(mid, length)).lines
        index = None if code is None else length + extra
        cases.append(Case(comment, "loser_out_mid_game", length, lines, code, index))
    return cases


Join = Callable[..., list[bytes]]


def _joiner(hall: Fragment, n: int, rng: random.Random) -> Join:
    """join(builder, signer, seat, name, **changes): a person's join appended to `hall` cut
    at `n`, and what the builder holds after it."""
    state, _ = hall.state()

    def join(b: Builder, signer: SigningKey, seat: int, name: str, **changes: Any) -> list[bytes]:
        body: dict[str, Any] = {
            "table": state.table_id,
            "seat": seat,
            "counter": 0,
            "head": parse_entry([*hall.lines[:n], *b.lines][-1]).hash,
            "key": signer.public,
            "name": name,
            "cpu": False,
            "host_run": False,
            "host": hall.host.public,
            "nonce": rng.randbytes(16),
        }
        b.lines.append(b.signed_entry(sign_message(signer, kind="join", **{**body, **changes})))
        return b.lines

    return join


def _host_run_room_cases() -> tuple[Fragment, list[Case]]:
    """Joins at a 3-seat table whose genesis promises one host-run seat (`host_cpu` 1), after
    Hana took seat 0: a person's join is refused once the seats left after it could not hold
    the host-run seat still to come (SPEC.md 7, "Joins and host-run seats")."""
    table = _table(Rules(seats=3, starting_dice=1), 9, host_cpu=1, name="room")
    table.add_player(load_bot("medium"), name="Hana", cpu=False)
    table.run_until_idle()
    hall = Fragment(table.host.lines(), table.host.key, _keys(table))
    n = len(hall.lines)
    rng = random.Random(17)
    join = _joiner(hall, n, rng)
    cpu = {"cpu": True, "host_run": True}
    cases: list[Case] = []
    for comment, make, code in (
        (
            "a person joins seat 1: one seat is left after it, for the one host-run seat to "
            "come: accepted",
            lambda b: join(b, SigningKey(rng.randbytes(32)), 1, "Ben"),
            None,
        ),
        (
            "a person joins seat 1, then another seat 2: no seat would be left for the "
            "host-run seat still to come: TABLE_FULL",
            lambda b: join(
                Builder(hall, n, join(b, SigningKey(rng.randbytes(32)), 1, "Ben")),
                SigningKey(rng.randbytes(32)),
                2,
                "Cleo",
            ),
            "TABLE_FULL",
        ),
        (
            "the host-run CPU joins seat 1, then a person seat 2: the host-run seat is taken, "
            "so none is owed: accepted",
            lambda b: join(
                Builder(hall, n, join(b, SigningKey(rng.randbytes(32)), 1, "CPU 1", **cpu)),
                SigningKey(rng.randbytes(32)),
                2,
                "Cleo",
            ),
            None,
        ),
    ):
        lines = make(Builder(hall, n))
        index = None if code is None else n + len(lines) - 1
        cases.append(Case(comment, "room", n, lines, code, index))
    return hall, cases


def _join_cases(hall: Fragment, n: int) -> list[Case]:
    """Joins after `lobby()`'s: Hana holds seat 0 of 3. Each refusal is one row check of
    SPEC.md 7's `msg:join`, listed there in the order they apply; a key that left starts its
    counters afresh (§4.1)."""
    hana = hall.seats[0]
    rng = random.Random(16)
    join = _joiner(hall, n, rng)

    def fresh() -> SigningKey:
        return SigningKey(rng.randbytes(32))

    cases: list[Case] = []
    for comment, make, code in (
        (
            "Hana's key joins seat 1 too: ALREADY_SEATED (before its counter, 0 again, is "
            "checked: the row's checks come before SPEC.md 4.1's)",
            lambda b: join(b, hana, 1, "Hana two"),
            "ALREADY_SEATED",
        ),
        (
            "a new key joins seat 0, Hana's: SEAT_TAKEN",
            lambda b: join(b, fresh(), 0, "Ben"),
            "SEAT_TAKEN",
        ),
        (
            "a new key joins seat 3 of a 3-seat table (a seat number the schema allows): "
            "UNKNOWN_SEAT",
            lambda b: join(b, fresh(), 3, "Ben"),
            "UNKNOWN_SEAT",
        ),
        (
            "a join whose `host` names another key than the genesis's: BAD_CHALLENGE (the "
            "joiner was shown another host)",
            lambda b: join(b, fresh(), 1, "Ben", host=fresh().public),
            "BAD_CHALLENGE",
        ),
        (
            "a join named 'hana': the same comparison key as seated 'Hana' (SPEC.md 10.5), "
            "NAME_TAKEN",
            lambda b: join(b, fresh(), 1, "hana"),
            "NAME_TAKEN",
        ),
        (
            "a person's join with `host_run` true at a table of no host-run seats: TABLE_FULL "
            "(the host-run limit comes before `host_run` only with `cpu`, SCHEMA)",
            lambda b: join(b, fresh(), 1, "Ben", host_run=True),
            "TABLE_FULL",
        ),
        (
            "a join with counter 1: SCHEMA (a join is a key's first message)",
            lambda b: join(b, fresh(), 1, "Ben", counter=1),
            "SCHEMA",
        ),
        (
            "seat 0 leaves, and Hana's key joins seat 1 with counter 0 again: accepted (leaving "
            "ends the key's counter record)",
            lambda b: join(b.event(events.Leave(seat=0)), hana, 1, "Hana"),
            None,
        ),
        (
            "a leave for seat 2, which nobody holds: BAD_EVENT",
            lambda b: b.event(events.Leave(seat=2)).lines,
            "BAD_EVENT",
        ),
    ):
        lines = make(Builder(hall, n))
        index = None if code is None else n + len(lines) - 1
        cases.append(Case(comment, "lobby", n, lines, code, index))
    return cases


def first_bids(bank: int) -> Fragment:
    """Two seats, `time_bank` = `bank`: the log stops in round 1's BIDDING before the first
    bid (seat 0 opens and has not moved)."""
    rules = Rules(seats=2, starting_dice=2, first_starter=FirstStarter.SEAT0, time_bank=bank)
    table = _table(rules, 1)
    table.seat_everyone()
    lines = table.host.lines()
    return Fragment(lines[: _index_of(lines, "beacon") + 1], table.host.key, _keys(table))


def _stalled_cases(fragment: Fragment, key: str, bank: int) -> list[Case]:
    state, _ = fragment.state()
    assert state.phase == TablePhase.BIDDING and state.game is not None
    turn = state.game.turn
    assert turn == 0
    n = len(fragment.lines)
    cases = []
    for seat in (0, 1):
        b = Builder(fragment, n).event(events.Absent(round=1, seat=seat, reason="stalled"))
        if bank == 0:
            verdict, why = "BAD_EVENT", "a table without a time bank (`time_bank` 0)"
        elif seat == turn:
            verdict, why = None, "the seat whose turn it is, on a table with a bank: accepted"
        else:
            verdict, why = "BAD_EVENT", "not the seat whose turn it is"
        cases.append(
            Case(
                f"seat {seat} out of time in BIDDING, seat {turn} to bid: {why}",
                key,
                n,
                b.lines,
                verdict,
                None if verdict is None else n,
            )
        )
    return cases


def document() -> dict[str, Any]:
    fragments, groups = build()
    test_groups = []
    tc = 0
    for comment, cases in groups:
        tests = []
        for case in cases:
            tc += 1
            lines = [*fragments[case.prefix].lines[: case.length], *case.lines]
            report = verify_lines(lines, partial=True)
            got = (
                None
                if report.failure is None
                else (report.failure.index, str(report.failure.reason))
            )
            want = None if case.reason is None else (case.index, case.reason)
            assert got == want, (case.comment, got, want, report.failure)
            tests.append(case.to_json(tc))
        test_groups.append({"comment": comment, "tests": tests})
    return {
        "schema": "transition_cases_v1",
        "spec": SPEC_REFS,
        "number_of_tests": tc,
        "transcripts": {
            name: [line.decode() for line in fragment.lines] for name, fragment in fragments.items()
        },
        "test_groups": test_groups,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(Path(__file__).parent / "vectors" / "v1"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    text = json.dumps(document(), indent=1, ensure_ascii=False) + "\n"
    (out / "transition_cases.json").write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
