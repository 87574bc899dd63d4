"""A seat that ran out of its time bank while connected is absent, but its client is still
there and opens its hand at the challenge on its own (SPEC.md 8, "Missing opening"): the host
waits for that opening as it waits for any seat's, so running out of time costs the seat its
turns, never its whole stack of dice at once (`forfeit`, `no_opening`).

The host is driven by the in-memory harness with a fake clock; the staller is a connected,
caught-up seat whose player simply never chooses a move (its client still commits,
contributes and opens)."""

from __future__ import annotations

from typing import Any

from p2pdice.core.client_intents import SendMessage
from p2pdice.core.messages import Message, MessageType
from p2pdice.core.rules import FirstStarter, Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.verify import verify_lines
from tests.core.test_a_seat_out_of_time_is_handed_to_a_cpu import host_events, stalling_table


def _until_the_first_showdown_is_settled(lt: Any) -> None:
    for _ in range(400):  # bounded: until round 1 has its result or a forfeit
        lt.run_until_idle()
        if host_events(lt, "result") or host_events(lt, "forfeit"):
            return
        if not lt.advance_clock():
            break
    raise AssertionError("round 1 was never settled")


def _openings_of_seat_0(lt: Any, *, after: float | None) -> None:
    """Seat 0's openings reach the host `after` seconds late (over Wi-Fi, the other seat's
    came first), or never (None)."""
    held: set[bytes] = set()

    def late(conn: int, msg: Message) -> Message | None:
        if conn != 1 or msg.type != MessageType.OPEN or msg.digest() in held:
            return msg
        held.add(msg.digest())
        if after is not None:
            lt._schedule(lt.now + after, lambda: lt._handle_client(conn, SendMessage(msg)))
        return None

    lt.on_send = late


def test_a_staller_whose_hand_the_challenge_needs_opens_it_and_loses_at_most_one_die() -> None:
    rules = Rules(seats=2, starting_dice=3, time_bank=5, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    _openings_of_seat_0(lt, after=0.5)
    _until_the_first_showdown_is_settled(lt)
    (_, stalled), *_ = host_events(lt, "absent")
    assert (stalled["seat"], stalled["reason"]) == (0, "stalled")
    assert host_events(lt, "forfeit") == []  # its opening came, as a connected client's does
    (_, result), *_ = host_events(lt, "result")
    assert result["dice_after"][0] >= rules.starting_dice - 1
    lt.play(max_rounds=40)
    assert lt.host.phase == TablePhase.OVER
    assert verify_lines(lt.host.lines()).ok


def test_a_staller_that_also_never_opens_forfeits_after_the_grace_period() -> None:
    """A connected seat whose client withholds its opening gains nothing by being out of time:
    it forfeits, after the grace period any seat's opening gets."""
    rules = Rules(seats=2, starting_dice=3, time_bank=5, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    _openings_of_seat_0(lt, after=None)
    _until_the_first_showdown_is_settled(lt)
    (_, forfeit), *_ = host_events(lt, "forfeit")
    assert forfeit["reason"] == "no_opening" and forfeit["seats"] == [0]
    called = max(seq for seq, e in host_events(lt, "forced") if e["action"]["type"] == "challenge")
    assert lt.now >= rules.grace_period  # the fake clock ran the grace period, not 0 s
    assert called < min(seq for seq, _ in host_events(lt, "forfeit"))
    assert verify_lines(lt.host.lines()).ok


def test_an_opening_the_result_did_not_need_is_refused_quietly() -> None:
    """The other seat's hand decided the round: the host posts the result without waiting, and
    the staller's opening, sent by its client alone, comes too late. The refusal is kept in
    its records, and nobody is told of an error nobody made."""
    rules = Rules(seats=2, starting_dice=4, time_bank=5, first_starter=FirstStarter.SEAT0)
    lt = stalling_table(rules, 0)
    _openings_of_seat_0(lt, after=0.5)
    _until_the_first_showdown_is_settled(lt)
    (_, result), *_ = host_events(lt, "result")
    assert result["hands"][0] is None  # decided without it
    client = lt.seats[1].client
    for _ in range(20):  # bounded: until the late opening has its answer
        if any("rejected" in r for r in client.sent_log) or not lt.advance_clock():
            break
        lt.run_until_idle()
    assert [r["rejected"] for r in client.sent_log if "rejected" in r] == ["WRONG_PHASE"]
    assert client.errors == []
