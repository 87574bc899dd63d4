"""A message of ours that never reached the log is the host's doing only when the host showed
it read it (core/delivery.py, SPEC.md 7.1 and 9): it answered it, or a message sent after it
on the same connection. Otherwise (the connection dropped while it was on its way, or stayed
up and the host answered nothing sent from it on) nobody can tell whether the network,
someone on the path or the host lost it: the player is told it did not reach the table, with
the drops counted, and neither the client nor `verify --mine` accuses the host.

A core client against the core host (tests/support/client_link.py), with a link that can
lose what a client sends; the host acts as it does in play (grace period, absent, forfeit).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from p2pdice.core.bids import Bid
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import Intent, RecordDelivery, SavedSeat, SendMessage
from p2pdice.core.delivery import Delivery, Undelivered, delivery_facts
from p2pdice.core.errors import Reason
from p2pdice.core.game import Challenge, PlaceBid
from p2pdice.core.messages import Message
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines
from tests.support.client_link import Link

VICTIM = 1  #: the victim's connection (its client is `client(0)`)


@dataclass
class Wire(Link):
    """A link whose connections lose what a client sends when `lose` says so."""

    lose: Any = None  #: (conn, message) -> bool
    lost: list[tuple[int, Message]] = field(default_factory=list)

    def _execute(self, conn: int, client: ClientConnection, intents: list[Intent]) -> None:  # type: ignore[override]
        kept: list[Intent] = []
        for intent in intents:
            if isinstance(intent, SendMessage) and self.lose and self.lose(conn, intent.message):
                self.lost.append((conn, intent.message))
            else:
                kept.append(intent)
        super()._execute(conn, client, kept)


def client(n: int) -> ClientConnection:
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), name=f"P{n}", cpu=True)


def to_the_call(lose: Any) -> tuple[Wire, ClientConnection, ClientConnection]:
    """Two seats with one die each, dealt; a bid, then a call: the table waits for openings.
    From the call on, the victim's messages matching `lose` are lost on the way."""
    wire = Wire.table(Rules(seats=2, starting_dice=1, ones="natural"))
    assert isinstance(wire, Wire)
    wire.saved = {1: SavedSeat(), 2: SavedSeat()}  # both keep records: what verify --mine reads
    victim, other = client(0), client(1)
    wire.connect(1, victim)
    wire.connect(2, other)
    game = wire.host.state.game
    assert game is not None and wire.host.state.phase == TablePhase.BIDDING
    by_seat = {victim.seat: (1, victim), other.seat: (2, other)}
    conn, bidder = by_seat[game.turn]
    wire.run(conn, bidder.act(PlaceBid(game.turn, Bid(2, 6)), wire.now))
    game = wire.host.state.game
    conn, caller = by_seat[game.turn]
    wire.lose = lose
    wire.run(conn, caller.act(Challenge(game.turn), wire.now))
    return wire, victim, other


def until_the_host_acts(wire: Wire) -> None:
    for _ in range(10):
        if not wire.tick() or wire.host.state.phase != TablePhase.SHOWDOWN:
            break
    assert wire.host.state.phase != TablePhase.SHOWDOWN


def records(of: ClientConnection, key: str) -> list[dict[str, Any]]:
    return [dict(r) for r in of.sent_log if key in r]


def read(of: ClientConnection) -> set[str]:
    """The messages the host showed it read before they were posted (each commitment and
    contribution: the host answers `accepted` to those while it waits for the others')."""
    return {r["read"] for r in records(of, "read")}


def test_an_opening_lost_with_its_connection_did_not_reach_the_table_and_blames_nobody() -> None:
    wire, victim, other = to_the_call(lambda conn, m: conn == VICTIM and m.type == "open")
    ((_, opening),) = wire.lost
    wire.drop(VICTIM)  # the connection drops while the opening is on its way
    until_the_host_acts(wire)
    wire.connect(3, victim)  # back: it catches up with the host's acts in its place
    assert wire.host.state.phase == TablePhase.OVER
    assert victim.alarms == [] and other.alarms == []
    (notice,) = victim.notices
    assert (notice.kind, notice.counter, notice.lost, notice.act) == (
        "open",
        opening.counter,
        1,
        "absent",
    )
    assert "did not reach the table: the connection dropped 1 time" in notice.describe()
    assert "Nobody can tell whether the network, someone on the path or the host" in (
        notice.describe()
    )
    # Its record says so, for `verify --mine` to decide from the file alone.
    ref = opening.digest().hex()
    assert records(victim, "lost") == [{"at": 1_000_000, "lost": [ref]}]
    assert ref not in read(victim)
    written = [i.record for i in wire.intents[VICTIM] if isinstance(i, RecordDelivery)]
    assert {"at": 1_000_000, "lost": [ref]} in written
    report = verify_lines(wire.host.lines(), mine=victim.sent_log)
    assert report.ok, report.failure
    assert [(u.kind, u.lost) for u in report.mine_undelivered] == [("open", 1)]
    check = victim.final_check
    assert check is not None and check.verified and check.clean
    kinds = [n.kind for n in check.notes]  # then any forfeit, and what verify warns of
    assert kinds[0] == "undelivered" and set(kinds[1:]) <= {"forfeit", "host_claim"}, kinds


def test_an_opening_on_a_connection_that_stays_up_but_is_never_answered_blames_nobody() -> None:
    """Someone on the path stops passing what the victim sends while the host's frames still
    reach it (a stall): the host's act arrives on a live connection. That proves nothing."""
    wire, victim, _ = to_the_call(lambda conn, m: conn == VICTIM and m.type != "challenge")
    until_the_host_acts(wire)
    assert victim.alarms == []
    (notice,) = victim.notices
    assert (notice.kind, notice.lost, notice.act) == ("open", 0, "absent")
    assert "the host answered neither it nor anything sent after it" in notice.describe()
    wire.drop(VICTIM)  # the stall ends in a cut
    report = verify_lines(wire.host.lines(), mine=victim.sent_log)
    assert report.ok and [(u.kind, u.lost) for u in report.mine_undelivered] == [("open", 1)]


def test_a_message_the_host_acknowledged_and_then_acted_without_is_message_dropped() -> None:
    """The host answers `accepted` to the victim's opening (it says it has it), posts nothing
    and forfeits the seat: that is the host's doing, and both the client and verify say so."""
    wire, victim, _ = to_the_call(lambda conn, m: conn == VICTIM and m.type == "open")
    ((_, opening),) = wire.lost
    wire.deliver(VICTIM, {"type": "accepted", "ref": opening.digest().hex(), "seq": None})
    assert opening.digest().hex() in read(victim)
    until_the_host_acts(wire)
    assert [a.reason for a in victim.alarms][:1] == [Reason.MESSAGE_DROPPED]
    assert victim.notices == []
    report = verify_lines(wire.host.lines(), mine=victim.sent_log)
    assert report.failure is not None and report.failure.reason == Reason.MESSAGE_DROPPED
    assert "the host showed it had it" in report.failure.detail


def test_a_host_that_answers_a_later_message_had_the_one_it_acted_without() -> None:
    """The opening goes missing on a connection that stays up; the host acts in the seat's
    place (the player is told the opening did not reach the table), then answers the seat's
    next message on that connection: it read the opening first, and never posted nor refused
    it. The alarm comes then."""
    wire, victim, _ = to_the_call(lambda conn, m: conn == VICTIM and m.type == "open")
    ((_, opening),) = wire.lost
    until_the_host_acts(wire)
    (notice,) = victim.notices
    assert (notice.kind, notice.counter) == ("open", opening.counter)
    # Its acknowledgement of the result, sent on the same connection, is posted.
    posted = [e.msg for e in wire.host.entries if e.msg is not None]
    assert [m.type for m in posted if m.seat == victim.seat][-1:] == ["ack"]
    dropped = [a for a in victim.alarms if a.reason == Reason.MESSAGE_DROPPED]
    assert len(dropped) == 1 and dropped[0].dropped == "open"
    assert "the host has now shown it had it" in dropped[0].detail
    report = verify_lines(wire.host.lines(), mine=victim.sent_log)
    assert report.failure is not None and report.failure.reason == Reason.MESSAGE_DROPPED


def test_an_answer_to_a_later_message_shows_the_host_read_the_earlier_ones() -> None:
    """TCP and TLS deliver a connection's messages in order or not at all: the host's answer
    to one message (an `accepted`, an `error` naming it, its posting when it left on that
    connection alone) shows it read every message sent before it there."""
    track = Delivery()
    for ref in ("a", "b", "c"):
        track.sent(ref, "bid", 1, 1)
    assert track.answered("b", 5) == [{"at": 5, "read": "a"}, {"at": 5, "read": "b"}]
    assert not track.reached("c")
    assert track.posted("c", 6) == []  # everything before it was read already
    assert track.connection_lost(7) == []  # nothing unanswered was lost with it


def test_a_refusal_naming_no_message_leaves_what_was_sent_before_it_unproven() -> None:
    """An `error` naming no message says the host dropped a frame unread (too many frames):
    any message sent before it may be that frame, so later answers prove nothing about it."""
    track = Delivery()
    track.sent("a", "open", 3, 1)
    track.dropped_unread()
    track.sent("b", "ack", 4, 1)
    assert track.answered("b", 5) == [{"at": 5, "read": "b"}]
    assert not track.reached("a")
    assert track.connection_lost(6) == [{"at": 6, "lost": ["a"]}]


def test_a_posting_answers_only_on_the_one_connection_its_message_left_on() -> None:
    """Sent again after a reconnect, a message may have been read from either connection:
    its posting then says nothing about what else was sent on the last one."""
    track = Delivery()
    track.sent("a", "open", 3, 1)
    assert track.connection_lost(1) == [{"at": 1, "lost": ["a"]}]
    track.sent("x", "commit", 5, 2)
    track.sent("a", "open", 3, 1)  # resent on the new connection
    assert track.posted("a", 2) == []
    assert not track.reached("x")
    track.sent("b", "contribute", 6, 2)
    assert track.posted("b", 3) == [{"at": 3, "read": "x"}]


def test_what_a_restarted_client_knew_of_its_messages_comes_back_from_its_record() -> None:
    wire, victim, _ = to_the_call(lambda conn, m: conn == VICTIM and m.type == "open")
    ((_, opening),) = wire.lost
    ref = opening.digest().hex()
    wire.drop(VICTIM)
    again = Delivery()
    again.restore(victim.sent_log, [ref])
    facts = delivery_facts(victim.sent_log)
    assert facts.lost == {ref: 1} and ref not in facts.read
    notice = again.undelivered(opening, "forfeit", 9)
    assert notice == Undelivered("open", opening.counter, 1, 1, "forfeit", 9)
    assert again.undelivered(opening, "forfeit", 9) is None  # told once


def test_verify_mine_decides_from_the_record_alone() -> None:
    """The same messages, with and without the record's word that the host read them."""
    wire, victim, _ = to_the_call(lambda conn, m: conn == VICTIM and m.type == "open")
    ((_, opening),) = wire.lost
    ref = opening.digest().hex()
    wire.drop(VICTIM)
    until_the_host_acts(wire)
    sent = [r for r in victim.sent_log if "msg" in r]
    unheard = verify_lines(wire.host.lines(), mine=sent)
    assert unheard.ok
    assert unheard.to_json()["mine"]["undelivered"] == [
        {
            "kind": "undelivered",
            "type": "open",
            "counter": opening.counter,
            "round": 1,
            "lost": 0,
            "text": Undelivered("open", opening.counter, 1, 0).describe(),
        }
    ]
    lost_twice = [*sent, {"at": 1, "lost": [ref]}, {"at": 2, "lost": [ref, "00" * 32]}]
    twice = verify_lines(wire.host.lines(), mine=lost_twice)
    assert [u.lost for u in twice.mine_undelivered] == [2]
    assert "dropped 2 times" in twice.mine_undelivered[0].describe()
    read = verify_lines(wire.host.lines(), mine=[*sent, {"at": 3, "read": ref}])
    assert read.failure is not None and read.failure.reason == Reason.MESSAGE_DROPPED
