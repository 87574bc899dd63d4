"""Fork and rollback evidence at a peer (SPEC.md 1.2.4, 7.1, 8): an entry carrying another
player's message made on a history we were never shown is FORK, with the two signed items
as its proof; a host that offers a log shorter than the one we verified is ROLLBACK, and we
stop following it instead of signing on a second history."""

from __future__ import annotations

import json
import secrets

from p2pdice.core.client import ClientConnection
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import build_entry, parse_entry
from tests.support.cheats import Game
from tests.support.client_link import Link


def test_a_message_made_on_a_history_we_were_not_shown_is_a_fork_with_its_proof() -> None:
    g = Game(seed=1).start()
    g.play()
    lines = g.host.lines()
    first_result = next(
        i for i, line in enumerate(lines) if parse_entry(line).kind == "event:result"
    )
    peer = g.follower(lines[: first_result + 1])
    elsewhere = secrets.token_bytes(32)  # the head of a history this peer never saw
    ack = g.sign(
        1, "ack", head=elsewhere, round=1, result=peer.replayer.chain.hashes[first_result].hex()
    )
    posted = g.forge(msg=ack, seq=first_result + 1, prev=peer.head)
    alarm = g.refused_by_peer(posted.line, Reason.FORK, peer=peer)
    assert alarm.seats == (1,) and alarm.seq == first_result + 1
    entry_line, message_line = alarm.proof
    assert entry_line.encode() == posted.line  # host-signed
    assert json.loads(message_line) == ack.to_json()  # signed by seat 1, naming the head
    assert elsewhere.hex()[:16] in alarm.detail


def client(n: int) -> ClientConnection:
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), name=f"P{n}", cpu=True)


def test_a_host_that_offers_a_shorter_log_than_ours_is_a_rollback_and_we_stop() -> None:
    link = Link.table(Rules(seats=2, starting_dice=2))
    for n in range(2):
        link.connect(n + 1, client(n))
    assert link.host.phase == TablePhase.BIDDING
    player = link.clients[1]
    held = len(player.lines)
    link.drop(1)
    served = held - 2

    def shorter(conn: int, frame: dict) -> dict:
        # What a host restarted on a log that lost (or dropped) its last two entries says.
        return {**frame, "entries": served} if frame["type"] == "challenge" else frame

    link.rewrite = shorter
    link.connect(3, player)
    assert player.peer is not None and player.peer.halted
    assert [(a.reason, a.seq) for a in player.alarms] == [(Reason.ROLLBACK, served)]
    assert f"{served} entries" in player.alarms[0].detail and f"{held}" in player.alarms[0].detail
    assert not link.sent(3, "auth") and not link.sent(3, "send")  # nothing signed on it


def test_a_host_that_offers_the_log_we_hold_is_followed() -> None:
    link = Link.table(Rules(seats=2, starting_dice=2))
    for n in range(2):
        link.connect(n + 1, client(n))
    player = link.clients[1]
    link.drop(1)
    link.connect(3, player)
    assert player.alarms == [] and player.resumed


def test_a_host_signed_entry_on_top_of_an_entry_we_do_not_hold_is_a_fork_with_both_entries() -> (
    None
):
    link = Link.table(Rules(seats=2, starting_dice=2))
    for n in range(2):
        link.connect(n + 1, client(n))
    player = link.clients[1]
    assert player.peer is not None
    ours = len(player.lines) - 1
    elsewhere = build_entry(
        link.host.key,
        ours + 1,
        secrets.token_bytes(32),
        event={"type": "leave", "seat": 0},
        table=player.peer.state.table_id,
    )
    player.receive_entry_line(elsewhere.line, 0)
    assert player.peer.halted
    (alarm,) = player.alarms
    assert (alarm.reason, alarm.seq) == (Reason.FORK, ours + 1)
    assert alarm.proof == (player.lines[ours].decode(), elsewhere.line.decode())
