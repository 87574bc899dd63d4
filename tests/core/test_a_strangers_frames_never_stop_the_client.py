"""Until a peer has proved it holds the host key (its TLS certificate, `connection_opened`)
or the host welcomed us, nothing it sends can stop the client: a bad entry, a refusal that
would be fatal, an unreadable frame are transport faults (drop, and look for the table
again). From the pinned host, a bad entry is an alarm as ever. Every state of a connection
has a bounded wait (SPEC.md 10.1)."""

from __future__ import annotations

import json

from p2pdice.core.client import (
    CATCH_UP_WAIT,
    CHALLENGE_WAIT,
    WELCOME_WAIT,
    ClientConnection,
)
from p2pdice.core.client_intents import Fatal, RaiseAlarm, Reconnect
from p2pdice.core.codec import encode
from p2pdice.core.errors import Reason
from p2pdice.core.game import blind_action
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from tests.support.client_link import Link

STRANGER = SigningKey(b"\x5a" * 32)


def _client() -> ClientConnection:
    return ClientConnection(key=SigningKey(b"\x01" * 32), name="Ada", cpu=True)


def _challenged(link: Link, conn: int, client: ClientConnection, now: float) -> None:
    """The host's challenge reaches `client`, and nothing else the host would send."""
    link.holding = True
    link.connect(conn, client)
    _, challenge = link.held.pop(0)
    link.held.clear()
    link.holding = False
    link.rewrite = lambda _conn, _frame: None  # nothing the host answers reaches the client
    link.run(conn, client.receive_frame(challenge, now))
    link.rewrite = None


def _bad_genesis(link: Link) -> bytes:
    """The table's genesis entry with its signature's last byte changed."""
    entry = json.loads(link.host.lines()[0])
    sig = bytes.fromhex(entry["sig"])
    entry["sig"] = (sig[:-1] + bytes([sig[-1] ^ 1])).hex()
    return encode(entry)


def test_a_bad_entry_from_a_peer_that_proved_nothing_is_a_transport_fault() -> None:
    link = Link.table(Rules(seats=2))
    client = _client()
    link.clients[1] = client
    assert client.connection_opened(None, link.now) == []  # a transport without TLS
    _challenged(link, 1, client, link.now)
    out = client.receive_entry_line(_bad_genesis(link), link.now)
    assert any(isinstance(i, Reconnect) for i in out)
    assert not any(isinstance(i, (RaiseAlarm, Fatal)) for i in out)
    assert client.transport_fault and client.fatal is None
    assert client.alarms == [] and (client.peer is None or not client.peer.halted)


def test_a_fatal_refusal_from_a_peer_that_proved_nothing_does_not_stop_the_client() -> None:
    client = _client()
    client.connection_opened(None, 0.0)
    refusal = {"type": "error", "reason": "TABLE_FULL", "detail": "go away", "ref": None}
    out = client.receive_frame(refusal, 0.0)
    assert [type(i) for i in out] == [Reconnect]
    assert client.fatal is None and client.transport_fault


def test_a_bad_entry_from_the_pinned_host_is_still_an_alarm() -> None:
    link = Link.table(Rules(seats=2))
    client = _client()
    link.clients[1] = client
    client.connection_opened(link.host.key.public, link.now)  # TLS proved the host key
    _challenged(link, 1, client, link.now)
    out = client.receive_entry_line(_bad_genesis(link), link.now)
    assert any(isinstance(i, RaiseAlarm) for i in out)
    assert client.peer is not None and client.peer.halted
    assert not client.transport_fault


def test_a_peer_holding_another_key_gets_nothing_and_is_a_transport_fault() -> None:
    host = SigningKey(b"\x33" * 32)
    client = ClientConnection(
        key=SigningKey(b"\x01" * 32), name="Ada", expect_table=b"\x44" * 32, expect_host=host.public
    )
    out = client.connection_opened(STRANGER.public, 0.0)
    assert [type(i) for i in out] == [Reconnect]
    assert client.transport_fault and client.wrong_host and client.fatal is None
    assert client.errors[-1][0] == Reason.BAD_CHALLENGE


def test_a_challenge_naming_a_key_the_peer_does_not_hold_is_a_transport_fault() -> None:
    link = Link.table(Rules(seats=2))
    client = _client()
    link.clients[1] = client
    client.connection_opened(STRANGER.public, link.now)  # first contact: the key is pinned
    link.connect(1, client)  # ... and the challenge names the real host's key
    assert client.transport_fault and client.wrong_host
    assert client.peer is None and client.fatal is None


def test_a_silent_peer_times_out_in_each_state() -> None:
    link = Link.table(Rules(seats=2))
    client = _client()
    link.clients[1] = client
    client.connection_opened(link.host.key.public, 0.0)
    assert client.deadline == CHALLENGE_WAIT
    assert client.time_passed(CHALLENGE_WAIT - 0.001) == []
    out = client.time_passed(CHALLENGE_WAIT)
    assert [type(i) for i in out] == [Reconnect]
    assert client.errors[-1][0] == Reason.HANDSHAKE_TIMEOUT and client.transport_fault

    # A challenge that comes, then no welcome: the welcome's wait runs from the challenge.
    again = _client()
    again.connection_opened(link.host.key.public, 0.0)
    _challenged(link, 2, again, 1.0)  # nothing the host would send after it arrives
    assert again.deadline == 1.0 + WELCOME_WAIT
    assert [type(i) for i in again.time_passed(1.0 + WELCOME_WAIT)] == [Reconnect]


def test_the_waits_end_once_the_client_is_welcomed_and_caught_up() -> None:
    link = Link.table(Rules(seats=2))
    client = _client()
    client.connection_opened(link.host.key.public, link.now)
    link.connect(1, client)
    assert client.connected and client.resumed
    assert client.deadline is None  # caught up: an idle socket is the heartbeat's to find
    assert client.time_passed(link.now + CATCH_UP_WAIT + WELCOME_WAIT) == []


def test_a_host_that_stops_sending_while_we_catch_up_is_a_transport_fault_after_the_wait() -> None:
    """The catch-up after a reconnect is bounded too: each verified entry gives the host
    another CATCH_UP_WAIT, and a host that stops sending before the log it announced is all
    there is dropped (a transport fault, never an alarm), so the client looks again."""
    link = Link.table(Rules(seats=2, starting_dice=2))
    for conn, name in ((1, "Ada"), (2, "Bo")):
        link.connect(conn, ClientConnection(key=SigningKey(bytes([conn]) * 32), name=name))
    player, other = link.clients[1], link.clients[2]
    held = len(player.lines)
    link.drop(1)
    del link.clients[1]  # gone: what the host posts meanwhile does not reach it
    for _ in range(20):  # the table goes on without it (the other moves; absent, forced)
        state = link.host.state
        if len(link.host.entries) >= held + 3:
            break
        assert state.game is not None
        if state.phase == TablePhase.BIDDING and state.game.turn == other.seat:
            link.run(2, other.act(blind_action(state.game, other.seat), link.now))
        else:
            assert link.tick(), link.host.phase
    assert len(link.host.entries) >= held + 3

    withheld: list[bytes] = []

    def slow_host(conn: int, frame: dict) -> dict | None:
        if conn == 3 and frame["type"] == "entry":
            withheld.append(encode(frame["entry"]))  # sent by hand below, or never
            return None
        return frame

    link.rewrite = slow_host
    player.connection_opened(link.host.key.public, link.now)
    link.connect(3, player)
    start = link.now
    assert player.connected and not player.resumed
    assert player.deadline == start + CATCH_UP_WAIT
    assert len(withheld) >= 3  # the catch-up the host owes, from what the player holds

    # Two entries, 20 s apart, then nothing: each one's arrival restarts the wait.
    for n, at in enumerate((start + 20, start + 40)):
        out = player.receive_entry_line(withheld[n], at)
        assert not any(isinstance(i, (RaiseAlarm, Fatal, Reconnect)) for i in out)
        assert player.deadline == at + CATCH_UP_WAIT
    assert player.time_passed(start + CATCH_UP_WAIT) == []  # the first wait is long past
    assert player.time_passed(start + 40 + CATCH_UP_WAIT - 0.001) == []
    out = player.time_passed(start + 40 + CATCH_UP_WAIT)
    assert [type(i) for i in out] == [Reconnect]
    assert player.errors[-1][0] == Reason.HANDSHAKE_TIMEOUT
    assert player.transport_fault and player.fatal is None and not player.stopped
    assert player.alarms == [] and player.peer is not None and not player.peer.halted
    assert player.time_passed(start + 1_000) == []  # one fault per connection
