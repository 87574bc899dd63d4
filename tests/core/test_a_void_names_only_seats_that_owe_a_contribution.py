"""A void (`forfeit`, `no_contribution`) re-deals every hand, so it may name only seats of the
attempt whose contribution the log cannot show: never a seat already out, never a host-run
seat, whose contribution the host signs itself (SPEC.md 7, 8). Otherwise a host could void a
round in which every needed contribution arrived, up to the cap, to re-roll its CPU's hand."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.events import Absent
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase, expected_forfeit
from p2pdice.core.verify import verify_lines
from tests.support.cheats import Game

GONE = 1  #: the seat whose round-1 opening is lost, so it forfeits and is out


def _round_two_with_a_seat_out() -> Game:
    """Seat 1's round-1 opening never arrives: declared absent, it forfeits and is out (still
    marked absent); round 2 waits in CONTRIBUTE for seat 0's contribution."""
    g = Game(seed=2)
    g.hold(lambda s, m: s == GONE and m.type == "open" and m.body["round"] == 1)
    g.hold(lambda s, m: s == 0 and m.type == "contribute" and m.body["round"] == 2)
    g.start()
    g.run_until(lambda: g.phase == TablePhase.CONTRIBUTE and g.host.state.game.round == 2)
    state = g.host.state
    assert state.game is not None and state.game.dice[GONE] == 0 and GONE in state.absent
    assert state.game.results[0].forfeited == (GONE,)
    return g


def test_a_void_naming_a_seat_already_out_is_refused_by_every_peer_and_verify() -> None:
    g = _round_two_with_a_seat_out()
    state = g.host.state
    void = g.forge(event=expected_forfeit(state, (GONE,), "no_contribution").to_json())
    alarm = g.refused_by_peer(void.line, Reason.BAD_EVENT, peer=g.peer(2))
    assert "not a seat of this attempt" in alarm.detail
    g.refused_by_verify(void.line, Reason.BAD_EVENT)


def test_a_void_naming_a_host_run_seat_is_refused_even_once_it_is_declared_absent() -> None:
    g = Game(seed=7, rules=Rules(seats=3, starting_dice=1), host_cpu=1)
    cpu = 2  # the last seat is the host-run one (LocalTable seats its bots in order)
    g.hold(lambda s, m: s == 0 and m.type == "contribute")
    g.start()
    g.run_until(lambda: g.phase == TablePhase.CONTRIBUTE)
    assert g.host.state.roster[cpu].host_run
    absent = g.forge(event=Absent(round=1, seat=cpu, reason="no_reply").to_json())
    lines = [*g.host.lines(), absent.line]
    assert verify_lines(lines, partial=True).ok  # the absence alone is the host's claim
    peer = g.follower(lines)
    void = g.forge(
        event=expected_forfeit(peer.replayer.state, (cpu,), "no_contribution").to_json(),
        seq=len(lines),
        prev=absent.hash,
    )
    alarm = g.refused_by_peer(void.line, Reason.BAD_EVENT, peer=peer)
    assert "host-run" in alarm.detail
    g.refused_by_verify(void.line, Reason.BAD_EVENT, prefix=lines)


def test_a_host_whose_own_seat_is_silent_ends_the_game_instead_of_voiding() -> None:
    """The host never posts a void the table refuses: with its host-run seat's contribution
    missing, it declares the seat absent and ends the game (`abandoned`)."""
    g = Game(seed=7, rules=Rules(seats=3, starting_dice=1), host_cpu=1)
    g.hold(lambda s, m: s == 2 and m.type == "contribute")
    g.start()
    g.play()
    assert g.host.state.roster[2].host_run
    kinds = [e.kind for e in g.host.entries]
    assert "event:forfeit" not in kinds
    assert g.last("event:absent").event["seat"] == 2
    assert g.last("event:game_over").event["reason"] == "abandoned"
    assert verify_lines(g.host.lines()).ok
    for seat in (0, 1):  # their contributions to the attempt the game ended were not needed
        check = g.table.seats[g.conn(seat)].client.final_check
        assert check is not None and check.verified and check.alarms == (), check


def test_a_void_naming_a_seat_a_stand_in_plays_is_refused() -> None:
    """A stand-in is a CPU the host runs with a key it chose: its contribution never travels,
    so a void naming its seat would re-deal a round whose contributions all arrived."""
    g = Game(seed=3)
    g.hold(
        lambda s, m: (
            m.type == "contribute"
            and ((s == 0 and m.seat == 0 and g.host.state.voids == 0) or (s == 2 and m.seat == 2))
            and (s == 0 or g.host.state.voids == 1)
        )
    )
    g.start()
    g.run_until(lambda: g.host.state.voids == 1 and g.phase == TablePhase.CONTRIBUTE)
    state = g.host.state
    assert 0 in state.stand_ins and 0 in state.absent
    void = g.forge(event=expected_forfeit(state, (0,), "no_contribution").to_json())
    alarm = g.refused_by_peer(void.line, Reason.BAD_EVENT, peer=g.peer(1))
    assert "host-run" in alarm.detail
    g.refused_by_verify(void.line, Reason.BAD_EVENT)


def test_a_host_whose_stand_in_is_silent_ends_the_game_instead_of_voiding_again() -> None:
    """Seat 0's contributions never arrive, its stand-in's neither: one void for the player,
    then the host, which may not void its own stand-in, ends the game."""
    g = Game(seed=3)
    g.hold(lambda s, m: s == 0 and m.type == "contribute")
    g.start()
    g.play()
    voids = [e for e in g.entries_of("event:forfeit") if e.event["reason"] == "no_contribution"]
    assert [v.event["seats"] for v in voids] == [[0]]
    assert g.last("event:stand_in").event["seat"] == 0
    assert g.last("event:game_over").event["reason"] == "abandoned"
    assert verify_lines(g.host.lines()).ok
    # The others' contributions to the attempt the game ended were never needed: their own
    # records (verify --mine) do not count them as dropped (SPEC.md 9 step 5).
    for seat in (1, 2):
        check = g.table.seats[g.conn(seat)].client.final_check
        assert check is not None and check.verified and check.alarms == (), check
