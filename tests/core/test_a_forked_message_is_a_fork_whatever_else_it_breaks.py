"""A message made on a history the receiver was never shown is FORK at a peer whatever else is
wrong with it (SPEC.md 7 "Order of checks", 7.1): its head is checked before the phase, the
turn and the bid order. A forking host picks the message it posts; had the rules come first,
a forked bid from a seat whose turn it is not in our history read NOT_YOUR_TURN, an alarm
with no proof. A verifier of the one file says UNKNOWN_HEAD at the same entry, and the two
players' files side by side hold the two host-signed entries that prove the fork.

Each history here is cut from a real game: the host's own log is the history one player
was shown; the other was shown the same log up to entry `k` and then, as entry `k` (and
after it), entries the host signed on another branch, the message of the first carried
over from the host's log.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.compare import Transcript, compare_table
from p2pdice.core.errors import Reason
from p2pdice.core.game import PlaceBid, check
from p2pdice.core.messages import Message
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import Replayer, TablePhase
from p2pdice.core.transcript import Entry, messages_in, parse_entry
from p2pdice.core.verify import verify_lines
from tests.support.cheats import Game, kinds

RULES = Rules(seats=2, starting_dice=3)


@pytest.fixture(scope="module")
def played() -> Game:
    g = Game(seed=3, rules=RULES).start()
    g.play()
    return g


@dataclass
class Forked:
    """The history a second player was shown: the host's log up to `k`, then `branch` (host-
    signed), the last of which carries `message`, made on the host's own history."""

    host_lines: list[bytes]
    k: int
    branch: list[Entry]
    message: Message

    @property
    def lines(self) -> list[bytes]:
        return [*self.host_lines[: self.k], *(e.line for e in self.branch)]

    @property
    def posted(self) -> Entry:
        return self.branch[-1]


def entries(g: Game) -> list[Entry]:
    return [parse_entry(line) for line in g.host.lines()]


def state_before(lines: list[bytes]) -> Replayer:
    replayer = Replayer()
    for line in lines:
        replayer.feed(parse_entry(line))
    return replayer


def fork(g: Game, k: int, carried: Entry, before: list[Message] = ()) -> Forked:
    """The host's log up to `k`, then `before` (messages of the branch), then the message of
    `carried` (an entry of the host's log, after `k`), each signed by the host key in turn."""
    lines = g.host.lines()
    prev = parse_entry(lines[k - 1]).hash
    branch: list[Entry] = []
    for n, msg in enumerate(before):
        branch.append(g.forge(msg=msg, seq=k + n, prev=prev))
        prev = branch[-1].hash
    seq = k + len(branch)
    if carried.msg is not None:
        branch.append(g.forge(msg=carried.msg, seq=seq, prev=prev))
        message = carried.msg
    else:
        branch.append(g.forge(event=carried.event, seq=seq, prev=prev))
        message = messages_in(carried)[0]
    assert message.head not in {parse_entry(line).hash for line in lines[:k]}
    return Forked(lines, k, branch, message)


def resigned(g: Game, msg: Message, head: bytes) -> Message:
    """`msg` as its seat would have signed it on `head`: what the rules alone say of it."""
    body = {k: v for k, v in msg.body.items() if k not in ("type", "table", "seat", "counter")}
    body.pop("head")
    return g.sign(msg.seat, msg.type, counter=msg.counter, head=head, **body)


def caught(g: Game, forked: Forked, rules_say: Reason) -> None:
    """The peer shown the forked history raises FORK with its proof; verify of that file
    says UNKNOWN_HEAD there; the two files side by side hold two host-signed entries of one
    seq. And the message, made on our own history instead, is what the rules refuse."""
    shown = forked.lines
    at = len(shown) - 1
    prefix = shown[:at]
    if forked.posted.msg is not None:
        # What the rules alone say of this message on this history (what it breaks besides).
        honest_head = parse_entry(prefix[-1]).hash
        plain = g.forge(msg=resigned(g, forked.message, honest_head), seq=at, prev=honest_head)
        report = verify_lines([*prefix, plain.line], partial=True)
        assert report.failure is not None
        assert (report.failure.index, report.failure.reason) == (at, rules_say)

    peer = g.follower(prefix)
    alarm = g.refused_by_peer(forked.posted.line, Reason.FORK, peer=peer)
    assert alarm.seq == at and alarm.seats == (forked.message.seat,)
    entry_line, message_line = alarm.proof
    assert entry_line.encode() == forked.posted.line  # signed by the host
    assert json.loads(message_line) == forked.message.to_json()  # signed by the seat
    assert forked.message.head.hex()[:16] in alarm.detail

    g.refused_by_verify(forked.posted.line, Reason.UNKNOWN_HEAD, prefix=prefix)

    comparison = compare_table(
        [Transcript("host.jsonl", forked.host_lines), Transcript("shown.jsonl", shown)]
    )
    (proof,) = comparison.forks
    assert proof.seq == forked.k
    assert {proof.first_line, proof.second_line} == {
        forked.host_lines[forked.k],
        shown[forked.k],
    }


def test_a_forked_bid_from_a_seat_whose_turn_it_is_not_here_is_a_fork(played: Game) -> None:
    log = entries(played)
    j = next(
        i for i, e in enumerate(log[:-1]) if e.kind == "msg:bid" and log[i + 1].kind == "msg:bid"
    )
    # Shown without the bid at j, it is still the bidder of j's turn when j+1's bid arrives.
    forked = fork(played, j, log[j + 1])
    assert forked.message.seat != log[j].msg.seat
    caught(played, forked, Reason.NOT_YOUR_TURN)


def test_a_forked_bid_lower_than_the_standing_bid_here_is_a_fork(played: Game) -> None:
    log = entries(played)
    j = next(
        i for i, e in enumerate(log[:-1]) if e.kind == "msg:bid" and log[i + 1].kind == "msg:bid"
    )
    answer = log[j + 1].msg
    assert answer is not None and answer.bid is not None
    # On the branch, the bidder of j bid above the answer made to its bid on the host's log.
    higher = Bid(answer.bid.quantity + 1, answer.bid.face)
    state = state_before(played.host.lines()[:j]).state
    assert state is not None and state.game is not None
    bidder = log[j].msg.seat
    assert check(state.game, PlaceBid(bidder, higher)) is None
    head = parse_entry(played.host.lines()[j - 1]).hash
    raised = played.sign(
        bidder,
        "bid",
        head=head,
        round=state.game.round,
        quantity=higher.quantity,
        face=higher.face,
    )
    forked = fork(played, j, log[j + 1], before=[raised])
    caught(played, forked, Reason.BID_NOT_HIGHER)


def test_a_forked_opening_during_our_bidding_is_a_fork(played: Game) -> None:
    log = entries(played)
    call = next(i for i, e in enumerate(log) if e.kind in ("msg:challenge", "msg:exact"))
    opening = next(e for e in log[call:] if e.kind == "msg:open")
    forked = fork(played, call, opening)
    caught(played, forked, Reason.WRONG_PHASE)


def test_a_forked_next_round_before_our_result_is_a_fork(played: Game) -> None:
    log = entries(played)
    result = next(i for i, e in enumerate(log) if e.kind == "event:result")
    next_round = next(e for e in log[result:] if e.kind == "msg:next_round")
    forked = fork(played, result, next_round)
    assert state_before(forked.lines[:-1]).state.phase == TablePhase.SHOWDOWN
    caught(played, forked, Reason.WRONG_PHASE)


def test_a_commitment_set_of_forked_commitments_during_our_bidding_is_a_fork(
    played: Game,
) -> None:
    log = entries(played)
    call = next(i for i, e in enumerate(log) if e.kind in ("msg:challenge", "msg:exact"))
    later = next(e for e in log[call:] if e.kind == "event:commit_set")
    forked = fork(played, call, later)
    caught(played, forked, Reason.WRONG_PHASE)


# ---- what the host answers, and what a foreign head does not prove ----------------------------


def at_bidding() -> Game:
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=3))
    g.hold(kinds("bid", "challenge", "exact"))
    g.start()
    g.run_until(lambda: g.phase == TablePhase.BIDDING)
    return g


ELSEWHERE = bytes(range(32))  #: the head of a history this table never had


def test_the_host_refuses_a_message_made_on_another_history_before_its_rules() -> None:
    """UNKNOWN_HEAD, whatever else the message breaks: the turn, the phase of a message the
    host collects, the designated starter of a next round it holds."""
    g = at_bidding()
    game = g.host.state.game
    other = next(s for s in range(3) if s != game.turn)
    bid = g.sign(other, "bid", head=ELSEWHERE, round=game.round, quantity=9, face=6)
    g.refused_by_host(other, bid, Reason.UNKNOWN_HEAD)
    commit = g.sign(
        other,
        "commit",
        head=ELSEWHERE,
        round=game.round,
        attempt=1,
        seed_commit="11" * 32,
        contrib_commit="22" * 32,
    )
    g.refused_by_host(other, commit, Reason.UNKNOWN_HEAD)


def test_the_host_refuses_a_next_round_made_on_another_history_before_the_starter_check() -> None:
    g = Game(seed=3, rules=Rules(seats=3, starting_dice=3))
    g.hold(kinds("ack"))
    g.start()
    g.run_until(lambda: g.phase == TablePhase.RESULT)
    game = g.host.state.game
    other = next(s for s in range(3) if s != game.next_starter and game.dice[s])
    msg = g.sign(other, "next_round", head=ELSEWHERE, round=game.round)
    g.refused_by_host(other, msg, Reason.UNKNOWN_HEAD)


def test_a_foreign_head_under_a_signature_that_does_not_verify_proves_no_fork() -> None:
    """Only the seat's signature makes a foreign head proof that the seat was shown another
    history: under any other, it is a forgery, and refused as one everywhere."""
    g = at_bidding()
    game = g.host.state.game
    other = next(s for s in range(3) if s != game.turn)
    forged = g.sign(
        other,
        "bid",
        signer=SigningKey(b"\x07" * 32),
        head=ELSEWHERE,
        round=game.round,
        quantity=9,
        face=6,
    )
    g.refused_everywhere(other, forged, Reason.BAD_SIGNATURE)


def test_another_tables_message_is_wrong_table_not_a_fork() -> None:
    """Another table's message names that table's entries: its head proves nothing about
    this table's history, so the table comes first."""
    g = at_bidding()
    game = g.host.state.game
    other = next(s for s in range(3) if s != game.turn)
    moved = g.sign(
        other,
        "bid",
        head=ELSEWHERE,
        table=bytes(32),
        round=game.round,
        quantity=9,
        face=6,
    )
    g.refused_everywhere(other, moved, Reason.WRONG_TABLE)
