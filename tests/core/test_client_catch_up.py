"""How a core client follows the log: entries that overtook the answer to a sync are held
until the gap is filled, a link that cannot reorder makes a gap the host's fault, a restarted
seat catches up quietly and then owes what its phase needs, and a client offered no seat
reads the log first, then watches or asks again."""

from __future__ import annotations

from typing import Any

from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import Reconnect, SavedSeat, SendFrame
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.version import PROTOCOL_VERSION
from tests.support.client_link import Link


def client(n: int, **kwargs: Any) -> ClientConnection:
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), name=f"P{n}", cpu=True, **kwargs)


def started(seats: int = 2) -> Link:
    """A table whose game has started: every client seated, the first round dealt."""
    link = Link.table(Rules(seats=seats, starting_dice=2))
    for n in range(seats):
        link.connect(n + 1, client(n))
    assert link.host.phase == TablePhase.BIDDING
    return link


def test_entries_ahead_of_a_gap_wait_for_it() -> None:
    link = Link.table(Rules(seats=2, starting_dice=2))
    link.connect(1, client(0))
    have = len(link.host.entries)
    link.connect(2, client(1))  # the game starts: several entries at once
    lines = link.host.lines(have)
    assert len(lines) >= 3
    watcher = ClientConnection(key=SigningKey(b"\x0a" * 32), name="w", mode="spectate")
    challenge = link.host.challenge(4, b"\x04" * 16, reserve=False)
    watcher.receive_frame(
        {"type": "challenge", "protocol": PROTOCOL_VERSION, "entries": have, **challenge}, 0
    )
    watcher.store_opened(None)
    for line in link.host.lines()[:have]:
        watcher.receive_entry_line(line, 0)
    assert watcher.peer is not None and len(watcher.peer.replayer.chain) == have
    # Broadcasts overtake the rest of the answer to its sync: later entries come first.
    for line in reversed(lines[1:]):
        assert watcher.receive_entry_line(line, 0) == []
    assert len(watcher.peer.replayer.chain) == have
    watcher.receive_entry_line(lines[0], 0)  # the gap is filled: all of them apply, in order
    assert watcher.peer.replayer.chain.hashes == link.host.chain.hashes
    assert watcher.errors == [] and not watcher.peer.halted


def test_on_a_link_that_keeps_order_a_skipped_entry_is_the_hosts_fault() -> None:
    link = started()
    honest = client(5, in_order=True)
    challenge = link.host.challenge(7, b"\x07" * 16, reserve=False)
    honest.receive_frame(
        {"type": "challenge", "protocol": PROTOCOL_VERSION, "entries": 1, **challenge}, 0
    )
    honest.store_opened(None)
    lines = link.host.lines()
    honest.receive_entry_line(lines[0], 0)
    honest.receive_entry_line(lines[2], 0)  # entry 1 never came
    assert honest.peer is not None and honest.peer.halted
    assert [a.reason for a in honest.alarms] == [Reason.BAD_SEQ]


def test_a_restarted_seat_catches_up_quietly_and_takes_up_its_hand() -> None:
    link = started()
    before = link.clients[1]
    assert before.peer is not None and before.peer.hand
    stored = len(before.lines) - 3  # the last entries never reached its disk
    host = link.host.key.public.hex()
    link.saved[3] = SavedSeat(
        secrets=dict(before.peer.secrets),
        sent=tuple(before.sent_log),
        transcript=tuple(before.lines[:stored]),
        seat=before.seat,
        seat_host=host,
    )
    link.drop(1)
    after = ClientConnection(key=before.key, name="P0", cpu=True)
    link.connect(3, after)
    assert link.sent(3, "auth") and not link.sent(3, "join")
    syncs = [i for i in link.sent(3, "sync") if isinstance(i, SendFrame)]
    assert syncs[0].fields == {"from": stored}
    assert after.resumed and after.connected and after.errors == []
    assert after.peer is not None and after.peer.hand == before.peer.hand
    assert after.peer.replayer.chain.hashes == link.host.chain.hashes
    assert not link.sent(3, "send")  # nothing owed in the bidding but its move


def test_a_client_offered_no_seat_in_the_lobby_reads_the_log_then_asks_again() -> None:
    link = Link.table(Rules(seats=2))
    link.host.challenge(8, b"\x08" * 16)  # two connections hold both seats, unanswered
    link.host.challenge(9, b"\x09" * 16)
    who = client(0)
    link.connect(1, who)
    assert link.sent(1) == [SendFrame("sync", {"from": 0})]
    assert link.intents[1][-1] == Reconnect() and who.reconnect_requested
    assert who.peer is not None and len(who.peer.replayer.chain) == len(link.host.entries)


def test_a_client_offered_no_seat_once_the_game_runs_watches() -> None:
    link = started()
    who = client(4)
    link.connect(5, who)
    assert [i.kind for i in link.sent(5) if isinstance(i, SendFrame)][:2] == ["sync", "spectate"]
    assert who.connected and who.seat is None and not who.reconnect_requested
