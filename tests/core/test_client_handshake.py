"""A client's whole connection, in the core, with no asyncio: the core ClientConnection
against the core HostTable (tests/support/client_link.py carries the frames).

challenge -> join with a password (SPAKE2) -> welcome with the host's proof -> catch-up ->
a round played -> the game over and the client's own end-of-game check.
"""

from __future__ import annotations

import random
from typing import Any

from p2pdice.bots.driver import bot_move
from p2pdice.bots.registry import load_bot
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import (
    SaveSecrets,
    SendFrame,
    SendMessage,
    StretchPassword,
)
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.version import PROTOCOL_VERSION
from tests.support.client_link import Link

PASSWORD = "correct horse"


def player(n: int, *, name: str | None = None, **kwargs: Any) -> ClientConnection:
    return ClientConnection(
        key=SigningKey(bytes([n + 1]) * 32), name=name or f"P{n}", cpu=True, **kwargs
    )


def play_to_the_end(link: Link, conns: list[int], *, limit: int = 500) -> None:
    """Let an easy bot play each seat (as bots/driver does for a real client) until game over."""
    bot, rng = load_bot("easy"), random.Random(3)
    for _ in range(limit):
        if link.host.phase == TablePhase.OVER:
            return
        moved = False
        for conn in conns:
            client = link.clients[conn]
            assert client.peer is not None
            action = bot_move(client.peer, bot, rng) if client.resumed else None
            if action is not None:
                link.run(conn, client.act(action, link.now))
                moved = True
        if not moved and not link.tick():
            raise AssertionError(f"stuck in {link.host.phase}")
    raise AssertionError("the game did not end")


def test_a_password_join_catches_up_plays_a_round_and_checks_the_game() -> None:
    link = Link.table(Rules(seats=2, starting_dice=1), password=PASSWORD)
    first, second = player(0, password=PASSWORD), player(1, password=PASSWORD)
    link.connect(1, first)
    link.connect(2, second)

    for conn, client in ((1, first), (2, second)):
        intents = link.intents[conn]
        # Challenge answered: the log is asked for, the password stretched (by the
        # adapter, off the loop), the join sent with the SPAKE2 message and confirmation.
        kinds = [type(i).__name__ for i in intents[:3]]
        assert kinds == ["OpenStore", "SendFrame", "StretchPassword"], kinds
        assert isinstance(intents[1], SendFrame) and intents[1].kind == "sync"
        (join,) = link.sent(conn, "join")
        assert isinstance(join, SendFrame)
        assert join.fields["pake"] is not None and join.fields["proof"] is not None
        assert client.connected and client.resumed and client.fatal is None
        assert client.password_verifier is not None  # kept for a reconnect
    assert first.seat == 0 and second.seat == 1

    play_to_the_end(link, [1, 2])

    for client in (first, second):
        assert client.finished and client.errors == [] and client.alarms == []
        assert client.peer is not None
        assert client.peer.replayer.chain.hashes == link.host.chain.hashes
        assert client.comparison_code is not None
        check = client.final_check
        assert check is not None and check.verified and check.clean and check.complete
    assert first.comparison_code == second.comparison_code
    results = [e for e in link.host.entries if e.event and e.event["type"] == "result"]
    assert results, "a round was played to its result"


def test_the_verifier_is_stretched_once_and_reused_on_a_reconnect() -> None:
    link = Link.table(Rules(seats=3, starting_dice=1), password=PASSWORD)
    client = player(0, password=PASSWORD)
    link.connect(1, client)
    link.drop(1)  # in the lobby: the host posts that the seat left
    link.connect(2, client)  # it tries its seat, is told it holds none, and asks again
    assert [type(i).__name__ for i in link.intents[2]] == ["SendFrame", "Reconnect"]
    link.connect(3, client)
    asks = [i for i in link.intents[1] + link.intents[3] if isinstance(i, StretchPassword)]
    assert [a.password for a in asks] == [PASSWORD, None]  # scrypt only for the first
    assert client.connected and client.seat is not None and client.fatal is None


def test_a_late_password_answer_for_a_gone_challenge_is_ignored() -> None:
    link = Link.table(Rules(seats=2, starting_dice=1), password=PASSWORD)
    client = player(0, password=PASSWORD)
    link.clients[1] = client
    challenge = link.host.challenge(1, b"\x01" * 16, pake_entropy=b"\x02" * 64)
    frame = {"type": "challenge", "protocol": PROTOCOL_VERSION, "entries": 1, **challenge}
    intents = client.receive_frame(frame, link.now)  # OpenStore
    intents = client.store_opened(None)
    (ask,) = [i for i in intents if isinstance(i, StretchPassword)]
    client.connection_lost()
    assert client.password_ready(ask.attempt, b"\x00" * 32, b"\x03" * 64) == []


def test_secrets_are_saved_before_the_commitment_and_messages_recorded_before_they_leave() -> None:
    from p2pdice.core.client_intents import SavedSeat

    link = Link.table(Rules(seats=2, starting_dice=1))
    link.saved = {1: SavedSeat(), 2: SavedSeat()}  # both keep records
    link.connect(1, player(0))
    link.connect(2, player(1))
    for conn in (1, 2):
        intents = link.intents[conn]
        saved = next(i for i, x in enumerate(intents) if isinstance(x, SaveSecrets))
        commit = next(
            i
            for i, x in enumerate(intents)
            if isinstance(x, SendMessage) and x.message.type == "commit"
        )
        assert saved < commit
        for index, intent in enumerate(intents):
            if isinstance(intent, SendMessage) and intent.message.type == "commit":
                recorded = intents[index - 1]
                assert type(recorded).__name__ == "RecordSent"
                assert recorded.message == intent.message.to_json()  # type: ignore[union-attr]


def test_a_spectator_catches_up_and_keeps_asking_now_and_then() -> None:
    from p2pdice.core.client import SPECTATOR_KEEPALIVE
    from p2pdice.core.client_intents import StartTimer, Timer

    link = Link.table(Rules(seats=2, starting_dice=1))
    link.connect(1, player(0))
    link.connect(2, player(1))
    watcher = ClientConnection(key=SigningKey(b"\x09" * 32), name="watcher", mode="spectate")
    link.connect(3, watcher)
    assert link.sent(3, "spectate") and watcher.connected and watcher.seat is None
    assert watcher.peer is not None
    assert watcher.peer.replayer.chain.hashes == link.host.chain.hashes
    assert StartTimer(Timer.KEEPALIVE, SPECTATOR_KEEPALIVE) in link.intents[3]
    again = watcher.timer_fired(Timer.KEEPALIVE)
    assert again == [
        SendFrame("sync", {"from": len(link.host.entries)}),
        StartTimer(Timer.KEEPALIVE, SPECTATOR_KEEPALIVE),
    ]
