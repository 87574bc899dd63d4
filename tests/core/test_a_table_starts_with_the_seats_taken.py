"""A table opened for up to `seats` starts with the seats taken once two or more are (SPEC.md
3.3): the host asks to start, empty seats are left out or, on a `cpu_fill` table, taken first
by host-run CPUs; every peer and the verifier refuse a start that breaks the rule."""

from __future__ import annotations

import random

import pytest

from p2pdice.core.errors import LocalError, OptionError, Reason, RemoteError
from p2pdice.core.events import check_event
from p2pdice.core.host import HostTable
from p2pdice.core.peer import Peer
from p2pdice.core.rules import MAX_SEATS, FirstStarter, Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import Replayer, TableError
from p2pdice.core.transcript import build_entry, parse_entry
from p2pdice.core.verify import verify_lines
from tests.support.joins import refusal


def _table(
    seats: int, *, cpu_fill: bool = False, host_cpu: int = 0
) -> tuple[HostTable, random.Random]:
    rng = random.Random(seats * 10 + cpu_fill)
    host = HostTable(
        key=SigningKey(rng.randbytes(32)), name="Kitchen", rules=Rules(seats=seats),
        nonce=rng.randbytes(16), host_cpu=host_cpu, cpu_fill=cpu_fill, now=0.0,
    )  # fmt: skip
    return host, rng


def _join(host: HostTable, rng: random.Random, conn: int, name: str, *, host_run: bool = False):
    peer = Peer(key=SigningKey(rng.randbytes(32)))
    for line in host.lines():
        peer.receive_line(line)
    challenge = host.challenge(conn, rng.randbytes(16), host_run=host_run)
    signed = peer.make_join(challenge, name=name, cpu=host_run, host_run=host_run)
    return host.join(conn, signed.to_json(), None, 0.0, trusted=True)


def _events(host: HostTable) -> list[str]:
    return [e.event["type"] for e in host.entries if e.event is not None]


def test_two_seated_players_start_a_six_seat_table_and_the_game_has_two_seats() -> None:
    host, rng = _table(6)
    for conn, name in enumerate(("Ann", "Bea")):
        assert refusal(_join(host, rng, conn, name)) is None
    assert "start" not in _events(host)  # not every seat is taken: the host decides
    host.request_start(0.0)
    assert "start" in _events(host)
    assert [s.name for s in host.state.roster] == ["Ann", "Bea"]
    assert host.state.rules.seats == 2 and host.state.game is not None
    assert host.state.game.dice == (5, 5)
    assert verify_lines(host.lines(), partial=True).ok


def test_start_when_starts_once_that_many_seats_are_taken() -> None:
    host, rng = _table(5)
    host.start_when = 3
    for conn, name in enumerate(("Ann", "Bea")):
        _join(host, rng, conn, name)
    assert "start" not in _events(host)
    _join(host, rng, 2, "Cid")
    assert "start" in _events(host) and host.state.rules.seats == 3


def test_a_start_with_one_seat_taken_is_refused_in_words() -> None:
    host, rng = _table(4)
    _join(host, rng, 0, "Ann")
    with pytest.raises(LocalError) as err:
        host.request_start(0.0)
    assert err.value.reason == Reason.BAD_EVENT and "2 seats taken, 1 is" in err.value.detail
    assert "start" not in _events(host)


def test_a_lobby_leaver_s_empty_seat_must_be_taken_before_a_table_without_fill_starts() -> None:
    host, rng = _table(4)
    for conn, name in enumerate(("Ann", "Bea", "Cid")):
        _join(host, rng, conn, name)
    host.disconnected(1, 0.0)  # Bea leaves seat 1: seats 0 and 2 are taken
    with pytest.raises(LocalError) as err:
        host.request_start(0.0)
    assert "seat 1 is free" in err.value.detail
    _join(host, rng, 3, "Dan")  # takes seat 1
    host.request_start(0.0)
    assert [s.name for s in host.state.roster] == ["Ann", "Dan", "Cid"]


def test_a_fill_table_starts_once_host_run_cpus_take_every_empty_seat() -> None:
    host, rng = _table(4, cpu_fill=True)
    for conn, name in enumerate(("Ann", "Bea")):
        _join(host, rng, conn, name)
    assert host.seats_to_fill() == []  # nobody asked to start yet
    host.request_start(0.0)
    assert "start" not in _events(host) and host.seats_to_fill() == [2, 3]
    assert refusal(_join(host, rng, 2, "CPU easy 1", host_run=True)) is None
    assert "start" not in _events(host)
    _join(host, rng, 3, "CPU hard 2", host_run=True)
    assert "start" in _events(host)
    assert [(s.name, s.host_run) for s in host.state.roster] == [
        ("Ann", False), ("Bea", False), ("CPU easy 1", True), ("CPU hard 2", True),
    ]  # fmt: skip
    assert host.state.rules.seats == 4
    assert verify_lines(host.lines(), partial=True).ok


def test_without_fill_a_host_run_join_beyond_the_genesis_count_is_refused() -> None:
    host, rng = _table(4, host_cpu=1)
    assert refusal(_join(host, rng, 0, "CPU medium 1", host_run=True)) is None
    assert refusal(_join(host, rng, 1, "CPU medium 2", host_run=True)) == Reason.TABLE_FULL


def _forged_start(host: HostTable, roster: list[dict]) -> Replayer:
    """A replayer fed the host's log, about to be offered a start the host signed anyway."""
    replayer = Replayer()
    for line in host.lines():
        replayer.feed(parse_entry(line))
    entry = build_entry(
        host.key,
        len(host.entries),
        host.head,
        event={"roster": roster, "type": "start"},
        table=host.table_id,
    )
    with pytest.raises(TableError) as err:
        replayer.feed(parse_entry(entry.line))
    assert err.value.reason == Reason.BAD_EVENT
    return replayer


def _roster(host: HostTable) -> list[dict]:
    return [host.state.joins[s].to_json() for s in sorted(host.state.joins)]


def test_peers_refuse_a_start_that_leaves_a_hole() -> None:
    host, rng = _table(4)
    for conn, name in enumerate(("Ann", "Bea", "Cid")):
        _join(host, rng, conn, name)
    host.disconnected(1, 0.0)
    _forged_start(host, _roster(host))


def test_peers_refuse_a_fill_table_s_start_with_empty_seats() -> None:
    host, rng = _table(4, cpu_fill=True)
    for conn, name in enumerate(("Ann", "Bea")):
        _join(host, rng, conn, name)
    _forged_start(host, _roster(host))


def test_a_genesis_spells_cpu_fill_only_when_true() -> None:
    host, _ = _table(3, cpu_fill=True)
    genesis = host.entries[0].event
    assert genesis is not None and genesis["cpu_fill"] is True
    with pytest.raises(RemoteError) as err:
        check_event({**genesis, "cpu_fill": False})
    assert err.value.reason == Reason.SCHEMA
    plain, _ = _table(3)
    assert plain.entries[0].event is not None and "cpu_fill" not in plain.entries[0].event


def test_a_start_waits_for_the_host_cpu_seats_the_genesis_promised() -> None:
    host, rng = _table(3, host_cpu=1)
    for conn, name in enumerate(("Ann", "Bea")):
        assert refusal(_join(host, rng, conn, name)) is None
    assert [host.state.joins[s].name for s in sorted(host.state.joins)] == ["Ann", "Bea"]
    assert host.start_due() and "start" not in _events(host)  # due: the CPU's seat is owed
    _join(host, rng, 2, "CPU medium 1", host_run=True)
    assert "start" in _events(host)
    assert [(s.name, s.host_run) for s in host.state.roster] == [
        ("Ann", False), ("Bea", False), ("CPU medium 1", True),
    ]  # fmt: skip


def test_a_named_first_starter_opens_round_1_and_must_be_a_seat_that_plays() -> None:
    assert [s.seat for s in FirstStarter] == [None, None, *range(MAX_SEATS)]  # random, host
    with pytest.raises(OptionError):
        Rules(seats=3, first_starter="seat3")
    rng = random.Random(7)
    host = HostTable(
        key=SigningKey(rng.randbytes(32)), name="Kitchen",
        rules=Rules(seats=6, first_starter="seat2"), nonce=rng.randbytes(16), now=0.0,
    )  # fmt: skip
    for conn, name in enumerate(("Ann", "Bea")):
        _join(host, rng, conn, name)
    with pytest.raises(LocalError) as err:
        host.request_start(0.0)  # seat 2 would not play
    assert "seat 2" in err.value.detail
    # A start the host signs anyway is refused by every peer.
    _forged_start(host, _roster(host))
    _join(host, rng, 2, "Cid")
    host.request_start(0.0)
    assert host.state.game is not None and host.state.game.starter == 2
    rounds = [e.event for e in host.entries if e.event is not None and e.event["type"] == "round"]
    assert rounds[0]["starter"] == 2


def test_first_starter_host_opens_round_1_from_the_seat_the_host_plays() -> None:
    """The start names the seat whose key is the host's own player's (`host_seat`), and round
    1 opens there; a host that plays no seat is told it cannot start."""
    rng = random.Random(11)
    host = HostTable(
        key=SigningKey(rng.randbytes(32)), name="Kitchen",
        rules=Rules(seats=4, first_starter="host"), nonce=rng.randbytes(16), now=0.0,
    )  # fmt: skip
    for conn, name in enumerate(("Ann", "Bea")):
        _join(host, rng, conn, name)
    with pytest.raises(LocalError) as err:
        host.request_start(0.0)
    assert "the host has no seat at this table" in err.value.detail
    host.own_key = host.state.joins[1].key  # Bea is the host's own player
    host.request_start(0.0)
    [start] = [e.event for e in host.entries if e.event is not None and e.event["type"] == "start"]
    assert start["host_seat"] == 1
    rounds = [e.event for e in host.entries if e.event is not None and e.event["type"] == "round"]
    assert rounds[0]["starter"] == 1
    assert verify_lines(host.lines(), partial=True).ok
