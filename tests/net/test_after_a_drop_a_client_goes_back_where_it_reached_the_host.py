"""After a drop, a client goes back to an address where its table's host (the pinned key)
welcomed it, the one whose connections dropped least first, before anything newly
advertised: a stranger relaying the table's TCP from a copied advertisement is a route only
while it is the only one that worked (net/client.py `Routes`; the whole path with a real
relay, host and players is tests/net/test_a_relay_that_cuts_openings_frames_nobody.py)."""

from __future__ import annotations

from p2pdice.net.client import Routes

HOST = "wss://10.0.0.2:4000/t/ab"
RELAY = "wss://10.0.0.1:4000/t/ab"
MOVED = "wss://10.0.0.2:4100/t/ab"


def test_a_relay_that_cuts_loses_the_client_to_the_hosts_own_address() -> None:
    routes = Routes()
    routes.welcomed(HOST)  # joined directly
    routes.failed(HOST)  # the host paused: its address fails meanwhile
    routes.welcomed(RELAY)  # an advertised copy got the client back through a relay
    assert routes.best() == RELAY  # the route that worked last, until it drops
    routes.dropped(RELAY)  # the relay cuts it
    assert routes.best() == HOST
    routes.welcomed(HOST)
    routes.dropped(HOST)
    assert routes.best() == HOST  # one drop each: the first reached


def test_the_route_that_drops_least_is_preferred_even_if_reached_later() -> None:
    routes = Routes()
    routes.welcomed(RELAY)  # given the relay's address
    routes.dropped(RELAY)
    routes.welcomed(HOST)  # found the host's own after the cut
    assert routes.best() == HOST
    routes.dropped(HOST)
    routes.dropped(HOST)  # a flaky Wi-Fi drops more than the relay cut
    assert routes.best() == RELAY


def test_an_address_that_failed_is_passed_over_until_a_welcome_or_a_new_round_of_tries() -> None:
    routes = Routes()
    routes.welcomed(HOST)
    routes.failed(HOST)  # the host restarted elsewhere
    assert routes.best() is None  # so the client looks for its advertisement
    routes.failed(MOVED)  # an address never reached counts for nothing
    routes.retry()  # nothing new was heard: the reached addresses are tried again
    assert routes.best() == HOST
    routes.failed(HOST)
    routes.welcomed(MOVED)  # found where it moved
    assert routes.best() == MOVED  # the old address failed since it last welcomed us
    routes.dropped(MOVED)
    assert routes.best() == HOST  # dropping counts first: the old one is worth a try


def test_nothing_reached_means_nothing_to_prefer() -> None:
    routes = Routes()
    routes.dropped(RELAY)
    routes.failed(RELAY)
    assert routes.best() is None
