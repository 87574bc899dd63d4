"""Practice and pass-and-play tables (issue 4 item 3; rules-spec "People, seats and views", R3.1).

A practice table lets one owner hold several seats and switch between them; a pass-and-play
table seats several people on one device. In protocol terms each seat still has its own key:
here the "owner" (or the shared device) is the test, holding one `Peer` per seat, and
switching seats is simply acting through the other Peer. Undo (when the table allows it)
retracts one's own last bid while nobody has acted after it, as a signed `undo` message
recorded in the transcript.
"""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.protosim import Conn, LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.bids import Bid
from p2pdice.core.errors import OptionError, Reason
from p2pdice.core.game import PlaceBid, PlacedBid, Undo
from p2pdice.core.host import Output, Posted, Rejected
from p2pdice.core.peer import Peer, Send
from p2pdice.core.rules import Rules, TableKind
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import Report, verify_lines

EASY = load_bot("easy")


def owned_table(
    rules: Rules, *, people: int, cpus: int = 1, seed: int = 7
) -> tuple[LocalTable, dict[int, tuple[Conn, Peer]]]:
    """Seats 0..people-1 are held by people at one device (the test), the rest are CPUs.

    The table is run up to the first bidding turn; nobody has acted yet.
    """
    lt = LocalTable(rules, [], rng=random.Random(seed), name="practice")
    held: dict[int, tuple[Conn, Peer]] = {}
    for n in range(people):
        conn = lt.add_player(EASY, name=f"Person {n}", cpu=False)
        peer = lt.seats[conn].peer
        held[peer.seat] = (conn, peer)
    for n in range(cpus):
        lt.add_player(EASY, name=f"CPU {n}", cpu=True)
    lt.run_until_idle(decide=False)  # commit, contribute, deal; nobody moves yet
    assert lt.host.phase == TablePhase.BIDDING
    return lt, held


def submit(lt: LocalTable, conn: Conn, send: Send) -> list[Output]:
    """Send a signed action from the device to the host and deliver what it posts."""
    outputs = lt.host.receive(conn, send.message.to_json(), lt.now)
    lt._host_outputs(outputs)  # the harness's own queue: posted entries reach every peer
    lt.run_until_idle(decide=False)
    return outputs


def posted(outputs: list[Output]) -> list[Posted]:
    return [o for o in outputs if isinstance(o, Posted)]


def bids_now(lt: LocalTable) -> tuple[PlacedBid, ...]:
    game = lt.host.state.game
    assert game is not None
    return game.bids


def check_log(lt: LocalTable) -> Report:
    for conn, seat in lt.seats.items():
        if seat.connected:
            assert not seat.peer.halted, (conn, seat.peer.alarms)
            assert seat.peer.replayer.chain.hashes == lt.host.chain.hashes
    report = verify_lines(lt.host.lines())
    assert report.ok, report.failure
    assert report.ended == "finished"
    return report


def test_practice_owner_switches_seats_and_undoes_a_bid_nobody_answered() -> None:
    rules = Rules(seats=3, starting_dice=2, kind="practice", undo=True, first_starter="seat0")
    lt, held = owned_table(rules, people=2)
    (c0, seat0), (c1, seat1) = held[0], held[1]
    assert seat0.key.public != seat1.key.public  # one key per seat, even at one device
    assert lt.host.state.game is not None and lt.host.state.game.turn == 0

    first = submit(lt, c0, seat0.act(PlaceBid(0, Bid(1, 3))))
    assert len(posted(first)) == 1
    assert lt.host.state.game.turn == 1

    # Before seat 1 acts, the owner takes seat 0's bid back.
    outputs = submit(lt, c0, seat0.act(Undo(0)))
    (entry,) = [p.entry for p in posted(outputs)]
    assert entry.msg is not None and entry.msg.type == "undo" and entry.msg.seat == 0
    assert entry.msg.signature_ok(seat0.key.public)  # a signed action of the seat itself
    assert entry.msg.body["round"] == 1
    assert bids_now(lt) == ()  # the bid is gone from the state ...
    assert lt.host.state.game.turn == 0  # ... and the turn is back with its bidder
    for _, peer in held.values():  # every seat's view agrees
        assert peer.state is not None and peer.state.game is not None
        assert peer.state.game.bids == () and peer.state.game.turn == 0

    # Bid again, then switch to seat 1 and answer it.
    submit(lt, c0, seat0.act(PlaceBid(0, Bid(2, 3))))
    submit(lt, c1, seat1.act(PlaceBid(1, Bid(2, 4))))
    assert bids_now(lt) == (PlacedBid(0, Bid(2, 3)), PlacedBid(1, Bid(2, 4)))

    # Seat 1 acted after seat 0's bid: that bid can no longer be taken back.
    head = len(lt.host.entries)
    late = submit(lt, c0, seat0.act(Undo(0)))
    assert [(type(o), getattr(o, "reason", None)) for o in late] == [
        (Rejected, Reason.NOTHING_TO_UNDO)
    ]
    assert len(lt.host.entries) == head
    assert bids_now(lt) == (PlacedBid(0, Bid(2, 3)), PlacedBid(1, Bid(2, 4)))

    # The CPU seat cannot take back somebody else's bid either.
    cpu_conn = next(c for c, s in lt.seats.items() if s.peer.seat == 2)
    cpu = lt.seats[cpu_conn].peer
    other = submit(lt, cpu_conn, cpu.act(Undo(2)))
    assert [getattr(o, "reason", None) for o in other] == [Reason.NOTHING_TO_UNDO]

    # Seat 1's own bid is still unanswered: it may take it back.
    assert posted(submit(lt, c1, seat1.act(Undo(1))))
    assert bids_now(lt) == (PlacedBid(0, Bid(2, 3)),)
    assert lt.host.state.game.turn == 1

    lt.play()
    report = check_log(lt)
    assert report.practice and report.rules["kind"] == "practice"
    undos = [e.msg for e in lt.host.entries if e.msg is not None and e.msg.type == "undo"]
    assert [(m.seat, m.body["round"]) for m in undos] == [(0, 1), (1, 1)]
    # The round's record keeps only the bids that stood.
    game = lt.host.state.game
    assert game is not None
    assert game.results[0].bids[:1] == (PlacedBid(0, Bid(2, 3)),)
    assert PlacedBid(0, Bid(1, 3)) not in game.results[0].bids
    assert not report.host_acts  # undo is the player's own act, not the host's


def test_undo_before_any_bid_is_nothing_to_undo() -> None:
    rules = Rules(seats=2, starting_dice=1, kind="practice", undo=True, first_starter="seat0")
    lt, held = owned_table(rules, people=1)
    conn, seat0 = held[0]
    outputs = submit(lt, conn, seat0.act(Undo(0)))
    assert [getattr(o, "reason", None) for o in outputs] == [Reason.NOTHING_TO_UNDO]
    lt.play()
    check_log(lt)


def test_undo_is_refused_where_the_table_does_not_allow_it() -> None:
    # A standard table never allows undo: the rules refuse the combination at creation.
    with pytest.raises(OptionError) as err:
        Rules(undo=True)
    assert err.value.key == "undo" and err.value.reason == Reason.BAD_OPTION
    with pytest.raises(OptionError):
        Rules.from_json({**Rules().to_json(), "undo": True})
    # Practice and pass-and-play tables may enable it.
    assert Rules(kind="practice", undo=True).undo
    assert Rules(kind="pass_and_play", undo=True).undo

    # A table without undo (even a practice one) refuses the action: UNDO_DISABLED.
    for rules in (
        Rules(seats=3, starting_dice=2, first_starter="seat0"),
        Rules(seats=3, starting_dice=2, kind="practice", first_starter="seat0"),
    ):
        lt, held = owned_table(rules, people=2)
        (c0, seat0), _ = held[0], held[1]
        submit(lt, c0, seat0.act(PlaceBid(0, Bid(1, 3))))
        outputs = submit(lt, c0, seat0.act(Undo(0)))
        assert [getattr(o, "reason", None) for o in outputs] == [Reason.UNDO_DISABLED]
        assert bids_now(lt) == (PlacedBid(0, Bid(1, 3)),)
        lt.play()
        check_log(lt)


def test_pass_and_play_seats_share_one_device_and_play_a_whole_game() -> None:
    rules = Rules(seats=4, starting_dice=2, kind="pass_and_play", undo=True)
    lt, held = owned_table(rules, people=3)
    assert sorted(held) == [0, 1, 2]
    assert len({peer.key.public for _, peer in held.values()}) == 3
    lt.play()
    report = check_log(lt)
    assert report.practice and report.rules["kind"] == str(TableKind.PASS_AND_PLAY)
    assert [(s["seat"], s["cpu"]) for s in report.roster] == [
        (0, False),
        (1, False),
        (2, False),
        (3, True),
    ]


def test_standard_table_transcript_is_not_marked_practice() -> None:
    lt, _ = owned_table(Rules(seats=2, starting_dice=1), people=1)
    lt.play()
    assert not check_log(lt).practice
