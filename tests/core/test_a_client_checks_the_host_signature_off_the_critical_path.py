"""A client applies a player's entry on the player's signature and the chain, and checks the
host's signature on it at its adapter's next turn (SPEC.md 6.3): one Ed25519 check on a bid's
critical path. The check still comes before the client signs or sends anything, before the
next host event is applied, and before its own opening after a challenge; an entry the host
did not sign is the same BAD_SIGNATURE alarm as ever. Core clients against the core host."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from p2pdice.bots.driver import bot_move
from p2pdice.bots.registry import load_bot
from p2pdice.core.client import ClientConnection
from p2pdice.core.client_intents import RaiseAlarm, SendMessage, StartTimer, Timer
from p2pdice.core.codec import decode, encode
from p2pdice.core.errors import Reason
from p2pdice.core.peer import Alarm, Peer
from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.core.signing import SigningKey, ed25519_check, signature_checker
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import build_entry, parse_entry
from tests.support.client_link import Link
from tests.support.played import honest_game


def client(n: int, **kwargs: Any) -> ClientConnection:
    kwargs.setdefault("name", f"P{n}")
    return ClientConnection(key=SigningKey(bytes([n + 1]) * 32), cpu=True, **kwargs)


def _unsigned_by_the_host(frame: dict[str, Any]) -> dict[str, Any]:
    """The entry as relayed with its host signature spoilt: the player's signature inside
    still holds, so only the host's check can catch it."""
    sig = bytearray(bytes.fromhex(frame["entry"]["sig"]))
    sig[40] ^= 0x01
    return {**frame, "entry": {**frame["entry"], "sig": sig.hex()}}


def spoil_first(conn: int, kind: str) -> Callable[[int, dict[str, Any]], dict[str, Any] | None]:
    """A rewrite that spoils the host signature of the first `kind` message entry sent to
    connection `conn`."""
    done = False

    def rewrite(to: int, frame: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal done
        msg = frame.get("entry", {}).get("msg") if frame["type"] == "entry" else None
        if to == conn and not done and msg is not None and msg["body"]["type"] == kind:
            done = True
            return _unsigned_by_the_host(frame)
        return frame

    return rewrite


def play(link: Link, conns: list[int], *, until: Callable[[], bool], rounds: int = 400) -> None:
    """Easy bots move for every seat whose client says it may, until `until()`."""
    bot, rng = load_bot("easy"), random.Random(4)
    for _ in range(rounds):
        if until() or link.host.phase == TablePhase.OVER:
            return
        moved = False
        for conn in conns:
            who = link.clients[conn]
            if who.peer is None or who.peer.halted:
                continue
            action = bot_move(who.peer, bot, rng) if who.may_move else None
            if action is not None:
                link.run(conn, who.act(action, link.now))
                moved = True
        if not moved and not link.tick():
            return


@contextmanager
def counted() -> Iterator[list[bytes]]:
    """Every Ed25519 verification made inside the block, by public key."""
    calls: list[bytes] = []

    def check(public: bytes, data: bytes, signature: bytes) -> bool:
        calls.append(public)
        return ed25519_check(public, data, signature)

    with signature_checker(check):
        yield calls


def seated_pair(
    *, next_turn: bool = True, first_starter: FirstStarter = FirstStarter.RANDOM, **kwargs: Any
) -> Link:
    link = Link.table(Rules(seats=2, starting_dice=2, first_starter=first_starter))
    link.next_turn = next_turn
    for conn in (1, 2):
        link.connect(conn, client(conn, **kwargs))
    return link


def test_a_bid_entry_costs_one_signature_check_on_arrival_and_the_hosts_at_the_next_turn() -> None:
    link = seated_pair()
    play(link, [1, 2], until=lambda: link.host.phase == TablePhase.BIDDING)
    link.next_turn = False  # the test fires the timer itself
    starter = link.host.state.game.turn  # type: ignore[union-attr]
    bidder, other = (1, 2) if link.clients[1].seat == starter else (2, 1)
    watcher = link.clients[other]
    bot, rng = load_bot("easy"), random.Random(1)
    action = bot_move(link.clients[bidder].peer, bot, rng)  # type: ignore[arg-type]
    assert action is not None
    held = len(link.intents.get(other, []))
    with counted() as calls:
        link.run(bidder, link.clients[bidder].act(action, link.now))
    host_key = link.host.key.public
    bidder_key = link.clients[bidder].key.public
    # The host checked the bidder's signature; the bidder and the other seat each checked
    # the bidder's signature (the bidder its own entry's) and not yet the host's.
    assert calls.count(host_key) == 0, calls
    assert calls.count(bidder_key) == 3, calls
    assert watcher.peer is not None and len(watcher.peer.unchecked) == 1
    armed = [i for i in link.intents[other][held:] if isinstance(i, StartTimer)]
    assert armed == [StartTimer(Timer.HOST_SIGNATURES, 0.0)]
    with counted() as later:
        assert watcher.timer_fired(Timer.HOST_SIGNATURES) == []
    assert later == [host_key]
    assert watcher.peer.unchecked == [] and not watcher.peer.halted


def holds_a_spoilt_entry(link: Link, conn: int) -> bool:
    """Whether `conn`'s client applied an entry unlike the host's and has not checked it."""
    peer = link.clients[conn].peer
    lines = link.host.lines()
    return peer is not None and any(e.line != lines[e.seq] for e in peer.unchecked)


def test_an_entry_the_host_did_not_sign_is_an_alarm_at_the_next_turn() -> None:
    link = seated_pair(next_turn=False)
    link.rewrite = spoil_first(2, "bid")
    play(link, [2], until=lambda: holds_a_spoilt_entry(link, 2))
    peer = link.clients[2].peer
    assert peer is not None and holds_a_spoilt_entry(link, 2) and not peer.halted
    spoilt = next(e.seq for e in peer.unchecked if e.line != link.host.lines()[e.seq])
    out = link.clients[2].timer_fired(Timer.HOST_SIGNATURES)
    alarms = [i.alarm for i in out if isinstance(i, RaiseAlarm)]
    assert [(a.reason, a.seq) for a in alarms] == [(Reason.BAD_SIGNATURE, spoilt)]
    assert peer.halted and peer.unchecked == []


def test_the_client_checks_before_it_signs_and_sends_a_move() -> None:
    link = seated_pair(next_turn=False, first_starter=FirstStarter.SEAT0)
    seat_two = link.clients[2]
    assert link.clients[1].seat == 0 and seat_two.seat == 1
    link.rewrite = spoil_first(2, "bid")
    # Only seat 0 moves: it opens, and seat 1 comes to move over the spoilt bid.
    play(link, [1], until=lambda: holds_a_spoilt_entry(link, 2))
    peer = seat_two.peer
    assert peer is not None and holds_a_spoilt_entry(link, 2) and seat_two.may_move
    view = peer.view()
    assert view is not None and view.turn == peer.seat
    action = bot_move(peer, load_bot("easy"), random.Random(2))
    assert action is not None
    out = seat_two.act(action, link.now)
    assert not [i for i in out if isinstance(i, SendMessage)], out
    assert [i.alarm.reason for i in out if isinstance(i, RaiseAlarm)] == [Reason.BAD_SIGNATURE]
    assert peer.halted and peer.pending == {}


def test_the_client_checks_before_it_opens_its_hand_after_a_challenge() -> None:
    link = seated_pair(next_turn=False)
    link.rewrite = spoil_first(2, "challenge")
    play(link, [1, 2], until=lambda: bool(link.clients[2].peer and link.clients[2].peer.halted))
    peer = link.clients[2].peer
    assert peer is not None and peer.halted
    assert [a.reason for a in peer.alarms] == [Reason.BAD_SIGNATURE]
    spoilt = peer.alarms[0].seq
    assert spoilt is not None
    assert not [
        i for i in link.intents[2] if isinstance(i, SendMessage) and i.message.type == "open"
    ]
    # Nothing was sent over the spoilt history: no message of ours names it as its head.
    heads_sent = {i.message.head for i in link.intents[2] if isinstance(i, SendMessage)}
    chain = peer.replayer.chain
    assert all(chain.seq_of(h) is None or chain.seq_of(h) < spoilt for h in heads_sent)


def test_nothing_after_an_entry_the_host_did_not_sign_is_applied() -> None:
    link = Link.table(Rules(seats=2, starting_dice=2))
    link.next_turn = False
    for conn in (1, 2):
        link.connect(conn, client(conn))
    link.connect(3, client(3, mode="spectate"))
    link.rewrite = spoil_first(3, "bid")
    play(link, [1, 2], until=lambda: link.host.phase == TablePhase.OVER)
    watcher = link.clients[3].peer
    assert watcher is not None and watcher.halted
    [alarm] = watcher.alarms
    assert alarm.reason == Reason.BAD_SIGNATURE and alarm.seq is not None
    assert len(watcher.replayer.chain) == alarm.seq + 1


def _unsigned_then_chained(lines: list[bytes], host: SigningKey, table: bytes) -> list[bytes]:
    """A host that posts a player message entry it did not sign and chains its next entry,
    a host event, onto it as it stands: the chain links, only the signature is missing."""
    entries = [parse_entry(line) for line in lines]
    k = next(
        i
        for i in range(1, len(entries) - 1)
        if entries[i].msg is not None and entries[i + 1].event is not None
    )
    spoilt_line = _unsigned_by_the_host({"type": "entry", "entry": decode(lines[k])})["entry"]
    spoilt = parse_entry(encode(spoilt_line))
    nxt = entries[k + 1]
    relinked = build_entry(host, k + 1, spoilt.hash, event=nxt.event, table=table)
    return [*lines[:k], spoilt.line, relinked.line]


@pytest.mark.parametrize("defer", [False, True])
def test_an_unsigned_entry_is_refused_before_the_host_event_chained_onto_it(defer: bool) -> None:
    game = honest_game()
    host = game.host
    lines = _unsigned_then_chained(host.lines(), host.key, host.state.table_id)
    spoilt = len(lines) - 2
    peer = Peer(key=SigningKey(bytes([9]) * 32))
    outputs = []
    for line in lines:
        outputs += peer.receive_entry(parse_entry(line), defer_host_signature=defer)
    alarms = [o for o in outputs if isinstance(o, Alarm)]
    assert [(a.reason, a.seq) for a in alarms] == [(Reason.BAD_SIGNATURE, spoilt)]
    # Checked at once, the entry is refused; checked later, it was applied and the host
    # event chained onto it is refused: either way nothing after it is taken.
    assert len(peer.replayer.chain) == spoilt + (1 if defer else 0)
    assert peer.halted


@pytest.mark.parametrize("defer", [False, True])
def test_a_game_ends_the_same_with_and_without_the_later_check(defer: bool) -> None:
    link = seated_pair(defer_host_signatures=defer)
    play(link, [1, 2], until=lambda: False)
    assert link.host.phase == TablePhase.OVER
    for conn in (1, 2):
        who = link.clients[conn]
        assert who.lines == link.host.lines(), conn
        assert who.peer is not None and not who.peer.halted and who.peer.alarms == []
        assert who.peer.unchecked == []
