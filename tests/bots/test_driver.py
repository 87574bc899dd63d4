"""When the bot driver lets a CPU move: at once, or after a think pause that lasts as long as
the move it thinks about is still owed."""

from __future__ import annotations

import random

from p2pdice.bots.driver import BotDriver, Play, StopThinking, Think, bot_due
from p2pdice.bots.registry import load_bot
from p2pdice.core.client import ClientConnection
from p2pdice.core.peer import Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from tests.support.client_link import Link


def to_move() -> tuple[Link, int, Peer]:
    """A started two-seat table and the connection and peer whose turn it is."""
    link = Link.table(Rules(seats=2, starting_dice=2))
    for n in range(2):
        who = ClientConnection(key=SigningKey(bytes([n + 1]) * 32), name=f"P{n}", cpu=True)
        link.connect(n + 1, who)
    for conn, client in link.clients.items():
        if client.peer is not None and bot_due(client.peer) is not None:
            return link, conn, client.peer
    raise AssertionError("nobody is to move")


def test_without_think_time_the_bot_moves_at_once() -> None:
    _, _, peer = to_move()
    driver = BotDriver(load_bot("easy"), random.Random(1))
    step = driver.review(peer, may_play=True)
    assert isinstance(step, Play) and step.action.seat == peer.seat


def test_a_bot_thinks_for_about_its_think_time_then_moves() -> None:
    _, _, peer = to_move()
    driver = BotDriver(load_bot("easy"), random.Random(1), think=2.0, jitter=random.Random(5))
    step = driver.review(peer, may_play=True)
    assert isinstance(step, Think) and 1.4 <= step.seconds <= 2.6
    assert driver.review(peer, may_play=True) is None  # still thinking about the same move
    played = driver.think_over(peer, may_play=True)
    assert played is not None and played.action.seat == peer.seat


def test_a_bot_stops_thinking_when_it_may_no_longer_play() -> None:
    _, _, peer = to_move()
    driver = BotDriver(load_bot("easy"), random.Random(1), think=2.0)
    assert isinstance(driver.review(peer, may_play=True), Think)
    assert driver.review(peer, may_play=False) == StopThinking()
    assert driver.review(peer, may_play=False) is None
    assert driver.think_over(peer, may_play=False) is None


def test_a_bot_owes_nothing_while_its_own_move_waits_for_the_log() -> None:
    link, conn, peer = to_move()
    driver = BotDriver(load_bot("easy"), random.Random(1), think=1.0)
    assert isinstance(driver.review(peer, may_play=True), Think)
    move = driver.think_over(peer, may_play=True)
    assert move is not None
    link.holding = True  # the move leaves, the log does not show it yet
    link.run(conn, link.clients[conn].act(move.action, link.now))
    assert bot_due(peer) is None and driver.review(peer, may_play=True) is None
