"""A player whose time bank ran out while their client stayed connected gets the seat back when
they come back to it: the host gives a seat back only when its own key authenticates again
(SPEC.md 8, `return`), and a connected client never did, so a CPU played the seat for the
rest of the game. The client now authenticates afresh when its player moves while the seat
is played for it, once per absence.

The host is driven by the in-memory harness with a fake clock; the staller is a connected,
caught-up seat whose player never chooses a move until the test says it is back."""

from __future__ import annotations

from p2pdice.core.client_intents import Reconnect
from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines
from tests.core.test_a_seat_out_of_time_is_handed_to_a_cpu import host_events, stalling_table

RULES = Rules(seats=2, starting_dice=3, time_bank=5, first_starter=FirstStarter.SEAT0)


def test_a_connected_staller_that_moves_again_authenticates_afresh_and_returns() -> None:
    lt = stalling_table(RULES, 0)
    client = lt.seats[1].client
    assert client.take_seat_back() == []  # not absent: nothing to take back
    asked: list[list[object]] = []
    absent_seen: list[bool] = []

    def back_at_the_keyboard(conn: int, line: bytes) -> bytes:
        if conn != 1:
            return line
        if b'"type":"absent"' in line:
            absent_seen.append(True)  # the client holds it once this call returns
        elif absent_seen and not asked:  # the next entry: the player presses a move key
            assert not client.back_next_round
            asked.append(list(client.take_seat_back()))
            asked.append(list(client.take_seat_back()))  # asked once: the link is replaced
            assert lt.seats[1].connected  # out of time, not gone
            lt.staller = None  # its player is back and moves from now on
            lt.disconnect(1)  # what the adapter does for Reconnect: hang up, connect again
            lt.reconnect(1)
            asked.append(list(client.take_seat_back()))  # authenticated after the absence
            assert client.back_next_round  # the host knows: the screen says so
        return line

    lt.on_deliver = back_at_the_keyboard
    lt.play(max_rounds=40)
    assert asked == [[Reconnect()], [], []]
    (back_at, back), *_ = host_events(lt, "return")
    assert back["seat"] == 0
    assert lt.host.phase == TablePhase.OVER
    assert any(e.msg is not None and e.msg.seat == 0 and e.seq > back_at for e in lt.host.entries)
    report = verify_lines(lt.host.lines())
    assert report.ok, report.failure
    assert "it came back in round" in report.stalls[0]


def test_a_staller_that_never_comes_back_keeps_its_stand_in() -> None:
    lt = stalling_table(RULES, 0)
    lt.play(max_rounds=40)
    assert host_events(lt, "stand_in") and not host_events(lt, "return")
    assert verify_lines(lt.host.lines()).ok


def test_a_call_made_while_the_client_reconnects_to_take_the_seat_back_costs_one_die() -> None:
    """The client hangs up to authenticate afresh, and the call on the seat's forced move
    comes before it is back (a socket client waits a backoff and a TLS handshake): the seat
    was there at the call, so its opening still gets the grace period."""
    lt = stalling_table(RULES, 0)
    client = lt.seats[1].client
    seen: dict[str, bool] = {"absent": False, "back": False}

    def back_while_the_round_goes_on(conn: int, line: bytes) -> bytes:
        if conn != 1:
            return line
        if b'"type":"absent"' in line:
            seen["absent"] = True
        elif seen["absent"] and not seen["back"]:
            seen["back"] = True
            assert client.take_seat_back() == [Reconnect()]
            lt.staller = None
            lt.disconnect(1)  # the adapter hangs up, and is back 0.3 s later
            lt._schedule(lt.now + 0.3, lambda: lt.reconnect(1))
        return line

    lt.on_deliver = back_while_the_round_goes_on
    lt.play(max_rounds=40)
    assert host_events(lt, "forfeit") == []
    (_, first), *_ = host_events(lt, "result")
    assert first["dice_after"][0] == RULES.starting_dice - 1
    assert verify_lines(lt.host.lines()).ok
