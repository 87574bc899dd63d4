"""A stand-in key is one never used at the table: not the host key, not a key that joined
(a lobby leaver's included) or stood in, not of small order (SPEC.md 7, the `stand_in` row;
SPEC.md 2.4). One of the clarifications an independent implementer of SPEC.md asked for; the
rule itself is written in protocol/SPEC.md."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import Replayer, TableError, TablePhase, TableState, advance
from p2pdice.core.verify import verify_lines

EASY = load_bot("easy")


def _lobby_leave_then_stand_in(seed: int) -> tuple[LocalTable, bytes]:
    """Seat 0 is taken, left and taken again by the same key; in the game seat 2 drops and a
    stand-in takes it. Returns the table and the key of a lobby leaver that never came back."""
    rules = Rules(seats=3, starting_dice=3, first_starter="seat0")
    lt = LocalTable(rules, [EASY] * 3, rng=random.Random(seed))
    gone = lt.add_player(EASY, name="Gone")
    lt.run_until_idle()
    gone_key = lt.seats[gone].peer.key.public
    lt.disconnect(gone)
    lt.run_until_idle()
    del lt.seats[gone]
    for name in ("Ann", "Bob", "Cat"):
        lt.add_player(EASY, name=name)
    lt.run_until_idle(decide=False)
    assert lt.host.state.phase != TablePhase.LOBBY
    return lt, gone_key


def _before_stand_in(lt: LocalTable) -> tuple[Replayer, dict]:
    """The table replayed up to the first stand_in entry, and that entry's event."""
    index = next(
        i for i, e in enumerate(lt.host.entries) if e.event and e.event["type"] == "stand_in"
    )
    replayer = Replayer()
    for entry in lt.host.entries[:index]:
        replayer.feed(entry)
    return replayer, lt.host.entries[index].event


def _stand_in_refused(replayer: Replayer, event: dict, key: bytes) -> str:
    state = replayer.state
    assert isinstance(state, TableState)
    with pytest.raises(TableError) as err:
        advance(
            state,
            seq=len(replayer.chain),
            chain=replayer.chain,
            event={**event, "key": key.hex()},
        )
    assert err.value.reason == Reason.BAD_EVENT
    return err.value.detail


def test_a_stand_in_key_is_never_the_host_key_nor_a_lobby_leavers_nor_a_seats() -> None:
    """SPEC.md 7: 'used at the table' covers the host key and every key that joined (also one
    that left the lobby) or stood in."""
    # Which seeded game lets the stand-in in depends on the table id (so on the rules
    # object): take the first that does rather than one seed.
    for seed in range(4, 24):
        lt, gone_key = _lobby_leave_then_stand_in(seed)
        seat = 2
        conn = next(c for c, s in lt.seats.items() if s.peer.seat == seat)
        lt.disconnect(conn)
        lt.play(max_rounds=30)
        if any(e.event and e.event["type"] == "stand_in" for e in lt.host.entries):
            break
    replayer, event = _before_stand_in(lt)
    for key in (lt.host.key.public, gone_key, replayer.state.keys[0]):
        assert "never used" in _stand_in_refused(replayer, event, key)
    # A small-order key is refused too; a fresh one is taken.
    assert "small order" in _stand_in_refused(replayer, event, (1).to_bytes(32, "little"))
    fresh = SigningKey(b"\x31" * 32).public
    state, _ = advance(
        replayer.state,
        seq=len(replayer.chain),
        chain=replayer.chain,
        event={**event, "key": fresh.hex()},
    )
    assert state.keys[event["seat"]] == fresh
    assert verify_lines(lt.host.lines()).ok
