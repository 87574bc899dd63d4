"""What a host, the one peer a client must trust to pass the game on, can still do against
it is stop the game: it cannot hold a connection past the waits SPEC.md 10.1 bounds, make the
client record or keep without limit what it sends, nor have two entries for one place in the
log forgotten instead of proved. Each case failed on the client before (found by an outside
review playing a hostile host against the real client)."""

from __future__ import annotations

import os

from p2pdice.core import events
from p2pdice.core.client import (
    CATCH_UP_WAIT,
    ERRORS_KEPT,
    WELCOME_WAIT,
    ClientConnection,
)
from p2pdice.core.client_intents import Fatal, Reconnect, RecordRefused
from p2pdice.core.closing import Closing
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.transcript import build_entry
from tests.support.client_link import Link


def _seated(link: Link, conn: int, byte: int, name: str) -> ClientConnection:
    client = ClientConnection(key=SigningKey(bytes([byte]) * 32), name=name, cpu=True)
    client.connection_opened(link.host.key.public, link.now)
    link.connect(conn, client)
    return client


def test_an_entry_sent_again_is_not_progress_and_the_catch_up_wait_runs_out() -> None:
    link = Link.table(Rules(seats=2))
    ada = _seated(link, 1, 1, "Ada")
    _seated(link, 2, 9, "Zed")
    link.drop(1)
    ada.connection_opened(link.host.key.public, link.now)
    # The challenge claims a longer log than the host will send: the client waits to catch up.
    link.rewrite = lambda conn, f: (
        {**f, "entries": f["entries"] + 1000} if f["type"] == "challenge" else f
    )
    link.connect(1, ada)
    link.rewrite = None
    assert ada.connected and not ada.resumed
    genesis = link.host.lines()[0]
    now = link.now
    faults: list[object] = []
    while now < link.now + 10 * CATCH_UP_WAIT and not faults:
        now += CATCH_UP_WAIT / 3
        ada.receive_entry_line(genesis, now)  # an entry it holds, sent again
        faults = [i for i in ada.time_passed(now) if isinstance(i, Reconnect)]
    assert faults, "an entry sent again kept the catch-up wait open"
    assert now <= link.now + CATCH_UP_WAIT + CATCH_UP_WAIT / 3


def test_a_challenge_sent_again_does_not_restart_the_welcome_wait() -> None:
    link = Link.table(Rules(seats=2))
    bo = ClientConnection(key=SigningKey(b"\x02" * 32), name="Bo", cpu=True)
    bo.connection_opened(link.host.key.public, link.now)
    link.holding = True
    link.connect(2, bo)
    (_, challenge), *_ = link.held
    link.held.clear()
    link.holding = False
    link.rewrite = lambda conn, f: None  # the host never welcomes
    started = 0.0
    link.run(2, bo.receive_frame(challenge, started))
    now, faults = started, []
    while now < 10 * WELCOME_WAIT and not faults:
        now += WELCOME_WAIT / 3
        faults = [i for i in bo.time_passed(now) if isinstance(i, Reconnect)]
        link.run(2, bo.receive_frame(challenge, now))  # the same challenge, again
    assert faults and now <= started + WELCOME_WAIT + WELCOME_WAIT / 3, now


def test_refusals_of_messages_never_sent_are_not_recorded_and_errors_stay_bounded() -> None:
    link = Link.table(Rules(seats=2))
    cy = _seated(link, 3, 3, "Cy")
    cy.keeps_records = True  # as a player with a home folder
    logged = len(cy.sent_log)
    recorded = 0
    for i in range(3 * ERRORS_KEPT):
        out = cy.receive_frame(
            {"type": "error", "reason": "SCHEMA", "detail": "x" * 500, "ref": os.urandom(32).hex()},
            link.now + i,
        )
        out += cy.receive_frame({"type": f"nope{i}"}, link.now + i)  # unknown frame types too
        recorded += sum(isinstance(x, RecordRefused) for x in out)
    assert recorded == 0 and len(cy.sent_log) == logged
    assert len(cy.errors) == ERRORS_KEPT and cy.errors.total >= 6 * ERRORS_KEPT
    assert "nope" in cy.errors[-1][1]  # the most recent are the ones kept


def test_a_refusal_of_our_own_message_is_still_recorded() -> None:
    link = Link.table(Rules(seats=2))
    cy = _seated(link, 3, 3, "Cy")
    _seated(link, 4, 4, "Di")
    cy.keeps_records = True
    sent = [i for i in link.intents[3] if type(i).__name__ == "SendMessage"]
    assert sent, link.intents[3]
    ref = sent[-1].message.digest().hex()
    out = cy.receive_frame(
        {"type": "error", "reason": "WRONG_PHASE", "detail": "late", "ref": ref}, link.now
    )
    assert [x.ref for x in out if isinstance(x, RecordRefused)] == [ref]


def test_two_entries_for_one_seq_held_ahead_of_a_gap_raise_equivocation() -> None:
    link = Link.table(Rules(seats=2))
    ada = _seated(link, 1, 1, "Ada")
    link.rewrite = lambda conn, f: None if conn == 1 and f["type"] == "entry" else f
    _seated(link, 2, 9, "Zed")  # Zed's join is the entry Ada misses: the gap
    link.rewrite = None
    assert ada.peer is not None
    held = len(ada.peer.replayer.chain)
    missing = link.host.entries[held]
    key, table = link.host.key, link.host.table_id
    first = build_entry(key, held + 1, missing.hash, event=events.Leave(seat=1), table=table)
    second = build_entry(key, held + 1, missing.hash, event=events.Leave(seat=0), table=table)
    for entry in (first, second, missing):  # the two overtake the entry before them
        ada.receive_entry_line(entry.line, link.now)
    assert [a.reason for a in ada.alarms] == [Reason.EQUIVOCATION]
    proof = ada.alarms[0].proof
    assert first.line.decode() in proof and second.line.decode() in proof


def test_a_table_closed_for_good_before_its_end_stops_the_client_with_the_reason() -> None:
    link = Link.table(Rules(seats=2))
    ada = _seated(link, 1, 1, "Ada")
    out = ada.receive_frame(
        {"type": "closing", "reason": str(Closing.ENDED), "detail": "bye"}, link.now
    )
    assert [(f.reason) for f in out if isinstance(f, Fatal)] == [Reason.MISSING_GAME_OVER]
    assert ada.fatal is not None and "closed the table for good" in ada.fatal[1]
    link2 = Link.table(Rules(seats=2))
    bo = _seated(link2, 1, 2, "Bo")
    paused = bo.receive_frame(
        {"type": "closing", "reason": str(Closing.PAUSED), "detail": "back soon"}, link2.now
    )
    assert not [f for f in paused if isinstance(f, Fatal)] and bo.fatal is None
