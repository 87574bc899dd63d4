"""Fuzz targets: a host table mid-game and a follower peer, and the invariants they must keep.

Invariants: hostile bytes never raise anything but the protocol's own RemoteError; a frame
the host refuses leaves its log head and state unchanged; an entry a peer refuses leaves its
chain where it was. Valid inputs that happen to be accepted are rolled back from a snapshot,
so every input meets the same table.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.auth import sign_auth
from p2pdice.core.codec import encode
from p2pdice.core.errors import RemoteError
from p2pdice.core.host import HostTable, Posted
from p2pdice.core.messages import MessageType
from p2pdice.core.peer import Alarm, Applied, Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.net.frames import TO_HOST, decode_frame, encode_frame

FRESH = "fuzz-connection"


def _mid_game() -> LocalTable:
    """A seeded 3-seat game stopped at the first turn of round 2 (bots hold back)."""
    table = LocalTable(
        Rules(seats=3, exact_call=True), [load_bot("medium")] * 3, rng=random.Random(7)
    )
    for index in range(3):
        table.add_player(load_bot("medium"), name=f"P{index}")
    for _ in range(2000):
        table.run_until_idle(decide=False)
        state = table.host.state
        if state.game is not None and state.game.round == 2 and state.phase == TablePhase.BIDDING:
            break
        if not table._decide_one():  # one bot move at a time until round 2 bidding
            table.advance_clock()
    else:
        raise RuntimeError("the seeded game never reached round 2")
    return table


class HostTarget:
    def __init__(self) -> None:
        self.table = _mid_game()
        self.template: HostTable = copy.deepcopy(self.table.host)
        self.host = copy.deepcopy(self.template)
        self.seated = next(iter(self.table.seats))
        self.now = self.table.now

    def seeds(self) -> list[bytes]:
        """Valid frames of every kind, as starting points for mutation."""
        peer = self.table.seats[self.seated].peer
        state = self.host.state
        game = state.game
        assert game is not None and game.turn is not None
        turn_peer = next(s.peer for s in self.table.seats.values() if s.peer.seat == game.turn)
        bid = turn_peer._send(
            MessageType.BID, round=game.round, quantity=game.dice_in_play // 3 + 1, face=5
        ).message
        challenge = self.host.challenge(FRESH, b"\x11" * 16)
        stranger = Peer(key=SigningKey(b"\x22" * 32))
        for line in self.host.lines():
            stranger.receive_line(line)
        join = stranger.make_join({**challenge, "seat": 0}, name="intruder")
        auth = sign_auth(
            peer.key, table=state.table_id, host=self.host.key.public, nonce=b"\x11" * 16
        )
        return [
            encode_frame("send", msg=bid.to_json()).encode(),
            encode_frame("sync", **{"from": 3}).encode(),
            encode_frame("spectate").encode(),
            encode_frame("join", msg=join.to_json(), pake=None, proof=None).encode(),
            encode_frame("auth", auth=auth).encode(),
        ]

    def fingerprint(self) -> Any:
        state = self.host.state
        return (self.host.chain.head, state.phase, state.game, state.counters, state.step_seq)

    def run(self, data: bytes) -> None:
        try:
            frame = decode_frame(data, TO_HOST)
        except RemoteError:
            return
        before = self.fingerprint()
        host, kind, now = self.host, frame["type"], self.now
        self.host.challenge(FRESH, b"\x11" * 16)
        if kind == "send":
            outputs = host.receive(self.seated, frame["msg"], now)
        elif kind == "join":
            proof = bytes.fromhex(frame["proof"]) if frame["proof"] else None
            pake = bytes.fromhex(frame["pake"]) if frame["pake"] else None
            outputs = host.join(FRESH, frame["msg"], proof, now, pake=pake)
        elif kind == "auth":
            outputs = host.authenticate(FRESH, frame["auth"], now)
        elif kind == "sync":
            host.lines(frame["from"])
            outputs = []
        else:
            outputs = host.spectate(FRESH)
        if any(isinstance(o, Posted) for o in outputs):
            self.host = copy.deepcopy(self.template)  # accepted: start the next input afresh
            return
        assert self.fingerprint() == before, f"a refused {kind} frame changed the table"
        host.disconnected(FRESH, now)


class ClientTarget:
    """A spectator peer that has followed the game so far, offered one more entry line."""

    def __init__(self) -> None:
        table = _mid_game()
        self.lines = table.host.lines()
        self.template = Peer(key=SigningKey(b"\x33" * 32))
        for line in self.lines[:-1]:
            self.template.receive_line(line)
        self.peer = copy.deepcopy(self.template)

    def seeds(self) -> list[bytes]:
        return [self.lines[-1], *self.lines[-6:-1], encode({"seq": 1})]

    def run(self, data: bytes) -> None:
        peer = self.peer
        before = len(peer.replayer.chain)
        outputs = peer.receive_line(data)
        after = len(peer.replayer.chain)
        applied = any(isinstance(o, Applied) for o in outputs)
        alarmed = any(isinstance(o, Alarm) for o in outputs)
        # A spectator owes the table nothing, so an Alarm (or a halt) only ever means the
        # entry was refused, and a refused entry leaves the chain where it was; an accepted
        # one adds exactly one link and says so.
        assert not (after != before and (alarmed or peer.halted)), "a refused entry grew the chain"
        assert after == before + (1 if applied else 0), f"the chain went from {before} to {after}"
        if after != before or peer.halted or outputs:
            self.peer = copy.deepcopy(self.template)  # start the next input afresh
