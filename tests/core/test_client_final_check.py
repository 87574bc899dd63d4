"""Every client checks the game once it is over, the same way whatever runs it (the headless
`join`, the terminal client, host-run CPUs, the protocol simulation): `final_check` replays
the log with the seat's record of what it sent, and names forfeits a host could use to
re-roll hands."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from tests.support.cheats import Game, kinds


def test_every_client_of_an_honest_simulated_game_finds_it_clean() -> None:
    table = LocalTable(
        Rules(seats=3, starting_dice=2), [load_bot("easy")] * 3, rng=random.Random(5)
    )
    table.seat_everyone()
    table.play()
    for seat in table.seats.values():
        check = seat.client.final_check
        assert check is not None and check.complete and check.verified and check.clean
        assert check is seat.client.final_check  # run once


def test_a_host_that_loses_a_contribution_is_named_by_its_victims_check() -> None:
    """The host acknowledges seat 0's contribution, never posts it and forfeits the seat: the
    log verifies, but seat 0's own record shows a message the host had and the log lacks.
    The forfeit of its seat is said too, as what it is: the host's word, no alarm of its own."""
    g = Game(seed=2)
    g.hold(kinds("contribute", seat=0), acknowledged=True)
    g.start()
    g.run_until(lambda: bool(g.entries_of("event:forfeit")))
    g.stop_holding()
    g.held.clear()  # what the host "lost" stays lost
    g.play()
    victim = g.table.seats[g.conn(0)].client.final_check
    assert victim is not None and not victim.verified and not victim.clean
    described = [a.describe() for a in victim.alarms]
    assert described[0].startswith("verify --mine: ") and "never appears in the log" in described[0]
    assert victim.alarms[0].kind == "verify" and victim.alarms[0].mine
    assert len(victim.alarms) == 1
    forfeits = [n for n in victim.notes if n.kind == "forfeit"]
    assert forfeits and all("your seat" in n.describe() for n in forfeits)
    for seat in (1, 2):
        other = g.table.seats[g.conn(seat)].client.final_check
        assert other is not None and other.verified and other.alarms == () and other.clean
        # What the log shows seat 0 lost on the host's word is said to everyone, as that.
        claims = [n for n in other.notes if n.kind == "host_claim"]
        assert claims and len(claims) == len(other.notes)
        assert all("seat 0" in n.describe() for n in claims)


def test_a_game_that_stopped_early_is_checked_as_partial() -> None:
    table = LocalTable(Rules(seats=2, starting_dice=2), [], rng=random.Random(6))
    first = table.add_player(load_bot("easy"), name="A")
    table.add_player(load_bot("easy"), name="B")
    table.run_until_idle(decide=False)  # dealt; nobody bids
    client = table.seats[first].client
    assert client.final_check is None
    check = client.self_check(complete=False)
    assert check is not None and check.verified and not check.complete
    whole = client.self_check(complete=True)
    assert whole is not None and not whole.verified  # no game-over entry yet
    assert [a.kind for a in whole.alarms] == ["verify"]
