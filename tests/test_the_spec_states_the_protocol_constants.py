"""SPEC.md states every timeout and size of the protocol as a number, for implementations that
never read this code; each is defined once in the code, and this test holds the two equal
(the client's connection waits: tests/core/test_the_spec_states_the_clients_waits.py; the
reader's bounds on advertisements: tests/net/test_the_spec_and_docs_state_the_lobby_bounds_in_force.py).
A constant newly written into the SPEC gets its line here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from p2pdice.core import client
from p2pdice.core.host_clock import (
    ACK_WAIT,
    BANK_SHOWN,
    COMMIT_WAIT,
    STRIKES_TO_ABSENT,
    TIMER_SLACK,
)
from p2pdice.core.rules import TIME_BANK_FREE_PER_TURN
from p2pdice.net import server
from p2pdice.net.client import PAUSED_RETRY
from p2pdice.net.frames import MAX_FRAME
from tests.support.vectors import PROTOCOL

SPEC = " ".join((PROTOCOL / "SPEC.md").read_text(encoding="utf-8").split())
LIMITS = server.Limits()


def s(value: float) -> str:
    return f"{value:g} s"


def kib(value: int) -> str:
    return f"{value // 1024} KiB"


STATED = {
    # section 8
    "COMMIT_WAIT": f"silent for `COMMIT_WAIT` ({s(COMMIT_WAIT)})",
    "STRIKES_TO_ABSENT": f"blamed for {['', 'one', 'two', 'three'][STRIKES_TO_ABSENT]} aborts",
    "TIMER_SLACK": f"arrives `TIMER_SLACK` ({s(TIMER_SLACK)}) later",
    "TIME_BANK_FREE_PER_TURN": f"first `TIME_BANK_FREE_PER_TURN` ({TIME_BANK_FREE_PER_TURN}) seconds",
    "ACK_WAIT": f"waits up to `ACK_WAIT` ({s(ACK_WAIT)})",
    # section 10.1
    "HEARTBEAT": f"pings its peer once {s(client.HEARTBEAT)} (`HEARTBEAT`) have passed",
    "HEARTBEAT / 2": f"answers none within {s(client.HEARTBEAT / 2)}",
    "HANDSHAKE_TIMEOUT": f"welcomed within {s(LIMITS.handshake_timeout)} of its WebSocket upgrade",
    "MAX_FRAME": f"at most {kib(MAX_FRAME)}. A host MAY",
    "rate": f"to {LIMITS.rate:g} frames a second sustained (bursts of {LIMITS.burst:g})",
    "strikes": f"and the {['', 'first', 'second', 'third'][LIMITS.strikes]} such refusal closes",
    "RESEND_AFTER": f"pending {s(client.RESEND_AFTER)} later, once for a burst",
    "head_timeout": f"must be over within {s(LIMITS.head_timeout)} of the connection",
    "sockets_per_address": f"one address may hold {LIMITS.sockets_per_address} sockets open",
    "max_sockets": f"the port holds at most {LIMITS.max_sockets:,} sockets from all addresses",
    "per_address": f"One address may hold {LIMITS.per_address} connections to a table",
    "max_pending": f"At most {LIMITS.max_pending} connections may be answering",
    "max_connections": f"table's cap ({LIMITS.max_connections}, `--max-connections`)",
    "outbox": f"holds at most {LIMITS.outbox_bytes // 2**20} MiB (and {server.OUTBOX_LIMIT:,} frames)",
    "address frames": (
        f"may spend {LIMITS.address_frame_burst:g} units at once, refilled at"
        f" {LIMITS.address_frame_rate:g} a second"
    ),
    "connection cost": f"costs its address {LIMITS.address_connection_cost:g} units as it is let in",
    "catch-up": (
        f"two copies of the log plus {kib(LIMITS.catch_up_slack)} at once, refilled at"
        f" {kib(int(LIMITS.catch_up_rate))} a second"
    ),
    "stranger catch-up": (
        f"eight copies plus {kib(LIMITS.stranger_catch_up_slack)} at once, refilled at"
        f" {kib(int(LIMITS.stranger_catch_up_rate))} a second"
    ),
    "lobby joins": (
        f"may take {LIMITS.lobby_join_burst:g} seats in a lobby at once, then one every"
        f" {s(1 / LIMITS.lobby_join_rate)}"
    ),
    # section 10.2
    "RESERVE_GRACE": f"a reservation older than {s(LIMITS.reserve_grace)} goes to the newcomer",
    # section 10.3
    "sync resend": (
        f"only within a budget of {kib(int(LIMITS.sync_resend_burst))}, refilled at"
        f" {kib(int(LIMITS.sync_resend_rate))} a second"
    ),
    "SPECTATOR_KEEPALIVE": f"at least every {s(client.SPECTATOR_KEEPALIVE)}: it is a keep-alive",
    "SPECTATOR_IDLE": f"sent none for {s(LIMITS.spectator_idle)}, with `closing` `idle`",
    "BANK_SHOWN": f"less than {s(BANK_SHOWN)} (`BANK_SHOWN`)",
    "PAUSED_RETRY": f"it retries at most every {s(PAUSED_RETRY)}",
}


@pytest.mark.parametrize("name", list(STATED))
def test_the_spec_states_the_codes_constant(name: str) -> None:
    assert STATED[name] in SPEC, f"SPEC.md should say: {STATED[name]!r}"


def test_the_catch_up_copies_are_the_codes() -> None:
    words = {2: "two", 8: "eight"}
    assert words[LIMITS.catch_up_copies] == "two"
    assert words[LIMITS.stranger_catch_up_copies] == "eight"


def test_the_host_pings_as_often_as_the_client() -> None:
    """One heartbeat for both sides (SPEC.md 10.1): the server's WebSocket uses the client's."""
    source = Path(server.__file__).read_text(encoding="utf-8")
    assert re.search(r"heartbeat=HEARTBEAT\b", source)
    assert "heartbeat=15" not in source
