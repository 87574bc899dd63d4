"""A restarted seat whose own records were damaged (a seat record or a round's secrets that
cannot be read) keeps what it still can and accuses nobody: the seat comes back from its
verified transcript and its record is saved again; lost secrets are said as this device's
loss, never as the host's misconduct, and the game is followed to its end, where the rules'
forfeit for a hand that cannot be shown is explained by that loss."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest

from p2pdice.core.bids import Bid
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import RaiseAlarm, SavedSeat, SaveSeat, SendMessage
from p2pdice.core.errors import Reason
from p2pdice.core.game import Challenge, PlaceBid
from p2pdice.core.messages import MessageType
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from tests.support.client_link import Link


def client(n: int) -> ClientConnection:
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), name=f"P{n}", cpu=True)


def restarted(link: Link, before: ClientConnection, saved: SavedSeat) -> ClientConnection:
    """`before`'s process dies; a new one opens its (damaged) records and connects."""
    link.saved[3] = saved
    link.drop(1)
    after = ClientConnection(key=before.key, name="P0", cpu=True)
    link.connect(3, after)
    return after


def records(link: Link, before: ClientConnection, **changes: Any) -> SavedSeat:
    """What `before` left on disk, with `changes` for the damaged parts."""
    assert before.peer is not None
    fields: dict[str, Any] = {
        "secrets": dict(before.peer.secrets),
        "sent": tuple(before.sent_log),
        "transcript": tuple(before.lines),
        "seat": before.seat,
        "seat_host": link.host.key.public.hex(),
    }
    return SavedSeat(**{**fields, **changes})


def started() -> Link:
    link = Link.table(Rules(seats=2, starting_dice=2))
    link.connect(1, client(0))
    link.connect(2, client(1))
    assert link.host.phase == TablePhase.BIDDING
    return link


def test_a_lost_seat_record_is_read_back_from_the_transcript_and_saved_again() -> None:
    link = started()
    before = link.clients[1]
    assert before.peer is not None and before.peer.hand
    after = restarted(link, before, records(link, before, seat=None, seat_host=None))
    # It authenticates for its seat (a join would find the game started and only watch).
    assert link.sent(3, "auth") and not link.sent(3, "join") and not link.sent(3, "spectate")
    assert after.seat == before.seat and after.connected and after.errors == []
    assert after.peer is not None and after.peer.hand == before.peer.hand
    saves = [i for i in link.intents[3] if isinstance(i, SaveSeat)]
    assert [(s.seat, s.host) for s in saves] == [(before.seat, link.host.key.public.hex())]


def test_a_seat_record_that_reads_is_used_as_it_is_and_not_written_again() -> None:
    link = started()
    before = link.clients[1]
    restarted(link, before, records(link, before))
    assert link.sent(3, "auth")
    saves = [i for i in link.intents[3] if isinstance(i, SaveSeat)]
    assert saves == []  # nothing was lost, so nothing is written again


def withhold_from_seat_0(event: str) -> Callable[[int, dict[str, Any]], dict[str, Any] | None]:
    """A rewrite that loses every `event` entry on its way to seat 0's first connection."""

    def rewrite(conn: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        withheld = frame["type"] == "entry" and frame["entry"].get("event", {}).get("type") == event
        return None if conn == 1 and withheld else frame

    return rewrite


def play_to_the_call(link: Link) -> None:
    """Whoever is on turn opens low; the other calls it."""
    for move in range(2):
        state = link.host.state
        assert state.game is not None
        turn = state.game.turn
        conn = next(c for c, cl in link.clients.items() if cl.seat == turn and cl.connected)
        seat_client = link.clients[conn]
        action = PlaceBid(turn, Bid(1, 2)) if move == 0 else Challenge(turn)
        link.run(conn, seat_client.act(action, link.now))


def run_out_the_clock(link: Link, limit: int = 50) -> None:
    for _ in range(limit):
        if link.host.phase == TablePhase.OVER or not link.tick():
            return
    pytest.fail("the table did not finish")


def assert_said_as_our_own_loss(link: Link, after: ClientConnection) -> None:
    assert after.alarms == [] and not any(isinstance(i, RaiseAlarm) for i in link.intents[3])
    assert after.peer is not None and not after.peer.halted and not after.stopped
    assert len(after.local_problems) == 1
    problem = after.local_problems[0]
    assert "round 1" in problem and "Nobody at the table is at fault" in problem
    assert list(after.errors) == [(Reason.INTERNAL, problem)]


def test_secrets_lost_in_the_bidding_are_our_loss_and_the_game_is_followed_to_its_end() -> None:
    link = started()
    before = link.clients[1]
    after = restarted(link, before, records(link, before, secrets={}))
    assert_said_as_our_own_loss(link, after)
    assert after.peer is not None and after.peer.hand == ()  # no hand to show: none to make up
    play_to_the_call(link)
    run_out_the_clock(link)
    kinds = [e.kind for e in link.host.entries]
    assert "event:forfeit" in kinds and kinds[-1] == "event:game_over"
    assert after.peer.replayer.chain.hashes == link.host.chain.hashes
    assert_said_as_our_own_loss(link, after)  # nothing more was raised on the way
    check = after.final_check
    assert check is not None and check.verified and check.alarms == ()
    forfeits = [n.detail for n in check.notes if n.kind == "forfeit"]
    assert len(forfeits) == 1 and "lost its secrets for that round" in forfeits[0]
    # Had the secrets lost been another attempt's of the round (one aborted before), the loss
    # was not this forfeit's cause: the note then says only what the host says.
    after.peer.lost = {(1, 2)}
    again = after.self_check(complete=True)
    assert again is not None
    forfeits = [n.detail for n in again.notes if n.kind == "forfeit"]
    assert len(forfeits) == 1 and "lost its secrets" not in forfeits[0]
    assert "never arrived" in forfeits[0]


def test_secrets_lost_before_the_contribution_are_our_loss_not_a_changed_commitment() -> None:
    link = Link.table(Rules(seats=2, starting_dice=2))
    # The commitment set never reaches seat 0's process before it dies: the table waits in
    # the contribution step for it.
    link.rewrite = withhold_from_seat_0("commit_set")
    link.connect(1, client(0))
    link.connect(2, client(1))
    assert link.host.phase == TablePhase.CONTRIBUTE
    link.rewrite = None
    before = link.clients[1]
    assert before.peer is not None and before.peer.secrets
    after = restarted(link, before, records(link, before, secrets={}))
    assert_said_as_our_own_loss(link, after)
    assert not link.sent(3, "send")  # nothing to contribute, and nothing made up
    run_out_the_clock(link)
    assert after.peer is not None and after.peer.replayer.chain.hashes == link.host.chain.hashes
    assert after.alarms == [] and not after.peer.halted
    assert len(after.local_problems) == 1  # said once, not again at each entry


def test_the_seat_is_found_in_the_transcript_also_while_a_stand_in_signs_for_it() -> None:
    link = started()
    before = link.clients[1]
    state = link.host.state
    stood_in = replace(state, keys={**state.keys, before.seat: bytes(range(32))})
    assert stood_in.seat_of_key(before.key.public) is None
    assert stood_in.seat_joined_by(before.key.public) == before.seat
    assert state.seat_joined_by(bytes(32)) is None


def test_secrets_lost_with_a_contribution_still_pending_hold_it_back() -> None:
    """A contribution that would carry the round on to a showdown the seat cannot open (a
    forfeit: the seat out of the game) is not resent: the table voids the round instead
    (a `no_contribution` forfeit: replayed, nobody loses a die)."""
    link = Link.table(Rules(seats=2, starting_dice=2))
    receive = link.host.receive

    def lose_seat_0s_contribution(conn: int, message: dict[str, Any], now: float) -> list:
        if conn == 1 and message["body"]["type"] == "contribute":
            return []  # lost with the connection
        return receive(conn, message, now)

    link.host.receive = lose_seat_0s_contribution  # type: ignore[method-assign]
    link.connect(1, client(0))
    link.connect(2, client(1))
    assert link.host.phase == TablePhase.CONTRIBUTE
    link.host.receive = receive  # type: ignore[method-assign]
    before = link.clients[1]
    assert any(
        r.get("msg", {}).get("body", {}).get("type") == "contribute" for r in before.sent_log
    )
    after = restarted(link, before, records(link, before, secrets={}))
    assert_said_as_our_own_loss(link, after)
    assert not link.sent(3, "send")  # neither resent nor made up
    run_out_the_clock(link)
    forfeits = [e.host_event for e in link.host.entries if e.kind == "event:forfeit"]
    reasons = [getattr(event, "reason", None) for event in forfeits]
    assert reasons[:1] == ["no_contribution"], reasons  # void: replayed, nobody loses a die
    assert "no_opening" not in reasons, reasons


def test_secrets_lost_before_a_missed_result_still_acknowledge_it() -> None:
    """The acknowledgement of a result needs no secrets: a seat that died before the result
    reached it, and came back without its secrets, acknowledges it as any seat would, so the
    table is not left waiting on it."""
    link = started()
    before = link.clients[1]
    link.rewrite = withhold_from_seat_0("result")
    play_to_the_call(link)
    link.rewrite = None
    assert link.host.phase == TablePhase.RESULT
    assert before.seat not in link.host.state.acks
    after = restarted(link, before, records(link, before, secrets={}))
    acks = [
        i
        for i in link.sent(3, "send")
        if isinstance(i, SendMessage) and i.message.type == MessageType.ACK
    ]
    assert len(acks) == 1
    assert link.host.phase != TablePhase.RESULT or before.seat in link.host.state.acks
    assert after.alarms == [] and after.peer is not None and not after.peer.halted
