"""The table machine's transitions are one table: dispatch, refusals, declared next phases,
the tables derived from it, and SPEC.md 7 generated from it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core import table
from p2pdice.core.errors import LocalError, Reason
from p2pdice.core.frozen import replace
from p2pdice.core.messages import sign_message
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import PhaseRefusal, Replayer, TablePhase, TableState, advance
from p2pdice.core.transitions import (
    BUFFERED_MESSAGES,
    DROPPED_BY,
    ENDS_ATTEMPT_EARLY,
    ENTRY_ROWS,
    GOES_ON_WITHOUT,
    MESSAGE_PHASE,
    SEAT_MESSAGES,
    TRANSITIONS,
    spec_section,
)
from protocol.gen_transitions import with_generated_section

SPEC = Path(__file__).resolve().parents[2] / "protocol" / "SPEC.md"


def _finished_game() -> LocalTable:
    lt = LocalTable(Rules(seats=3, starting_dice=1), [load_bot("easy")] * 3, rng=random.Random(5))
    lt.seat_everyone()
    lt.play(max_rounds=40)
    return lt


def _replayed_until(lt: LocalTable, kind: str) -> tuple[Replayer, TableState, int]:
    """The host's log replayed up to (not including) its first entry of `kind`."""
    index = next(i for i, e in enumerate(lt.host.entries) if e.kind == kind)
    replayer = Replayer()
    for entry in lt.host.entries[:index]:
        replayer.feed(entry)
    assert replayer.state is not None
    return replayer, replayer.state, index


def test_spec_section_7_is_the_text_generated_from_the_transitions_table() -> None:
    text = SPEC.read_text(encoding="utf-8")
    assert spec_section() in text, "run: python protocol/gen_transitions.py"
    assert with_generated_section(text) == text


def test_every_phase_and_entry_pair_has_at_most_one_row_and_every_row_a_declared_outcome() -> None:
    for row in TRANSITIONS:
        assert row.handler is not None or row.refused is not None or row.carried_in is not None
        if row.handler is not None:
            assert row.stays or row.next, row
    assert ENTRY_ROWS[(TablePhase.BIDDING, "msg:bid")].next == (
        TablePhase.BIDDING,
        TablePhase.SHOWDOWN,
    )


def test_an_entry_the_phase_does_not_take_is_refused_naming_the_entry_and_the_phase() -> None:
    lt = _finished_game()
    replayer, state, index = _replayed_until(lt, "event:start")
    # Made on the lobby's head: a bid made later, on a head the lobby does not hold, would be
    # refused for that first (SPEC.md 7, "Order of checks", step 0).
    bid = sign_message(
        SigningKey(b"\x01" * 32),
        kind="bid",
        table=state.table_id,
        seat=0,
        counter=1,
        head=replayer.chain.head,
        round=1,
        quantity=1,
        face=2,
    )
    with pytest.raises(PhaseRefusal) as err:
        advance(state, seq=index, chain=replayer.chain, msg=bid)
    assert err.value.reason == Reason.WRONG_PHASE
    assert (err.value.entry, err.value.phase) == ("msg:bid", TablePhase.LOBBY)
    assert err.value.detail == "bid is not allowed during lobby"


def test_a_fresh_attempt_after_the_commitment_set_is_refused_with_its_own_code() -> None:
    lt = _finished_game()
    replayer, state, index = _replayed_until(lt, "event:beacon")
    round_event = next(e for e in lt.host.entries if e.kind == "event:round").event
    with pytest.raises(PhaseRefusal) as err:
        advance(state, seq=index, chain=replayer.chain, event=round_event)
    assert err.value.reason == Reason.FRESH_RANDOMNESS
    assert (err.value.entry, err.value.phase) == ("event:round", TablePhase.CONTRIBUTE)


def test_a_handler_that_lands_in_an_undeclared_phase_is_a_local_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lt = _finished_game()
    replayer, state, index = _replayed_until(lt, "event:start")
    start = lt.host.entries[index].event
    row = ENTRY_ROWS[(TablePhase.LOBBY, "event:start")]
    wrong = replace(row, next=(TablePhase.COMMIT,))
    monkeypatch.setattr(
        table, "ENTRY_ROWS", {**ENTRY_ROWS, (TablePhase.LOBBY, "event:start"): wrong}
    )
    with pytest.raises(LocalError) as err:
        advance(state, seq=index, chain=replayer.chain, event=start)
    assert err.value.reason == Reason.INTERNAL
    assert "event:start during lobby led to between" in err.value.detail


def test_the_derived_phase_tables_say_where_each_message_belongs() -> None:
    assert dict(MESSAGE_PHASE) == {
        "join": TablePhase.LOBBY,
        "commit": TablePhase.COMMIT,
        "contribute": TablePhase.CONTRIBUTE,
        "bid": TablePhase.BIDDING,
        "challenge": TablePhase.BIDDING,
        "exact": TablePhase.BIDDING,
        "undo": TablePhase.BIDDING,
        "open": TablePhase.SHOWDOWN,
        "ack": TablePhase.RESULT,
        "next_round": TablePhase.RESULT,
    }
    assert SEAT_MESSAGES[TablePhase.BIDDING] == ("bid", "challenge", "exact", "undo")
    assert SEAT_MESSAGES[TablePhase.BETWEEN] == SEAT_MESSAGES[TablePhase.OVER] == ()
    assert dict(BUFFERED_MESSAGES) == {
        "commit": TablePhase.COMMIT,
        "contribute": TablePhase.CONTRIBUTE,
    }


def test_the_derived_dropped_message_rules_match_what_each_host_act_can_hide() -> None:
    assert dict(DROPPED_BY) == {
        "forced": {"bid", "challenge", "exact", "next_round"},
        "abort": {"commit"},
        "forfeit": {"contribute", "open"},
        # An absence settles no step: messages the host collects until the step ends are
        # left to the act that ends it (abort, forfeit).
        "absent": {"bid", "challenge", "exact", "open", "next_round"},
    }
    assert {"ack"} == GOES_ON_WITHOUT
    assert {"abort", "forfeit"} == ENDS_ATTEMPT_EARLY


def test_a_message_kind_sent_in_another_phase_is_refused_in_every_phase_but_its_own() -> None:
    """MESSAGE_PHASE is what advance enforces: each message type has rows in one phase only."""
    for (phase, entry), row in ENTRY_ROWS.items():
        if entry.startswith("msg:"):
            assert MESSAGE_PHASE[entry[4:]] == phase
            assert row.handler is not None


def test_the_state_after_every_entry_of_a_game_is_in_a_phase_its_row_declares() -> None:
    lt = _finished_game()
    replayer = Replayer()
    for entry in lt.host.entries:
        before = replayer.state
        replayer.feed(entry)
        after = replayer.state
        if isinstance(before, TableState) and after is not None:
            row = ENTRY_ROWS[(before.phase, entry.kind)]
            assert after.phase in row.next_phases(before.phase)
