"""The table screen's model: seats, bids, the entry, pending moves, alarms, odds, names."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.bots.odds import bid_true_chance
from p2pdice.core.bids import Bid
from p2pdice.core.rules import Rules
from p2pdice.core.table import Note
from p2pdice.ui.viewmodel import (
    EntryState,
    SeatFacts,
    Snapshot,
    alarm_seats,
    can_undo,
    table_model,
    timer_text,
)

from .helpers import alarms, bidding, snap_of

HOSTILE = "\x1b]0;pwned\x07Eve\x1b[31m\x1b[2J"


def test_my_turn_offers_legal_bids_and_the_calls_allowed() -> None:
    state = bidding(bids=((0, Bid(2, 4)),))
    model = table_model(snap_of(state, me=1))
    assert model.my_turn and model.entry is not None
    assert model.entry.selected == Bid(3, 4) and model.entry.can_bid
    assert model.entry.can_challenge and not model.entry.can_exact
    keys = dict(model.keys)
    assert keys["l"] == "Liar" and "x" not in keys and keys["Enter"] == "bid"
    assert model.standing == "Current bid: 2 x 4s by Ann"
    assert model.hand == (3, 4, 5, 5, 1)


def test_exact_key_only_when_the_table_allows_it() -> None:
    state = bidding(Rules(seats=3, exact_call=True, first_starter="seat0"))
    model = table_model(snap_of(state, me=1))
    assert model.entry is not None and model.entry.can_exact
    assert dict(model.keys)["x"] == "Exact"


def test_not_my_turn_shows_who_is_thinking_and_no_entry() -> None:
    model = table_model(snap_of(bidding(), me=0))
    assert model.entry is None and not model.my_turn
    assert model.turn_line == "Bob is thinking..."
    rows = {r.name: r for r in model.seats}
    assert rows["Bob"].is_turn and rows["Bob"].status == "thinking"
    assert rows["Cid"].status == "CPU, host-run" and rows["Ann"].status == "you"


def test_opening_turn_cannot_call() -> None:
    model = table_model(snap_of(bidding(bids=()), me=0))
    assert model.entry is not None and not model.entry.can_challenge
    assert model.standing == "No bid yet: you open round 1."
    assert "l" not in dict(model.keys)


def test_statuses_disconnected_away_and_out() -> None:
    snap = snap_of(bidding(), me=0, absent=frozenset({2}))
    snap = replace(snap, connected=frozenset({0, 2}))
    rows = table_model(snap).seats
    assert rows[1].status == "disconnected" and rows[1].trouble
    assert rows[2].status == "away" and rows[2].trouble
    snap = replace(snap, stand_ins=frozenset({2}))
    assert table_model(snap).seats[2].status == "away, CPU stand-in"


def test_typed_bid_preview() -> None:
    snap = snap_of(bidding(), me=1)
    ok = table_model(snap, EntryState(typed="four 5s")).entry
    assert ok is not None and ok.preview_ok and ok.preview == "= 4 x 5s"
    low = table_model(snap, EntryState(typed="2 3")).entry
    assert low is not None and not low.preview_ok and "not a legal bid" in low.preview
    junk = table_model(snap, EntryState(typed="lots")).entry
    assert junk is not None and not junk.preview_ok and "not a number" in junk.preview
    assert dict(table_model(snap, EntryState(typed="4")).keys)["Enter"] == "bid typed"


def test_while_a_bid_is_typed_the_key_bar_lists_only_the_keys_that_act() -> None:
    """Letters go into the typed bid, so l, x, r, ? and q are not offered then."""
    snap = snap_of(bidding(), me=1)
    typed = [key for key, _ in table_model(snap, EntryState(typed="2 5")).keys]
    assert typed == ["Enter", "Esc", "Backspace"]
    untyped = [key for key, _ in table_model(snap).keys]
    assert {"l", "?", "q"} <= set(untyped)


def test_a_sent_move_is_pending_and_hides_the_entry() -> None:
    snap = snap_of(bidding(), me=1, pending=frozenset({"bid"}), pending_action="3 x 4s")
    model = table_model(snap)
    assert model.entry is None and not model.my_turn
    assert model.bids[-1].pending and model.bids[-1].bid == "3 x 4s"


def test_undo_only_for_the_last_bidder_on_undo_tables() -> None:
    rules = Rules(seats=3, undo=True, kind="practice", first_starter="seat0")
    state = bidding(rules)
    assert can_undo(snap_of(state, me=0)) and table_model(snap_of(state, me=0)).can_undo
    assert not can_undo(snap_of(state, me=1))
    assert not can_undo(snap_of(bidding(), me=0))  # standard table: no undo


def test_odds_hint_is_off_by_default_and_matches_the_binomial_tail() -> None:
    snap = snap_of(bidding(), me=1)
    assert table_model(snap).entry.odds == ""
    entry = table_model(snap, EntryState(show_odds=True)).entry
    view = snap.view
    want = round(100 * bid_true_chance(view, Bid(2, 4)))
    assert f"current bid true: {want}%" in entry.odds
    # Bob holds 4 and a wild 1: 2 x 4s is certain
    assert want == 100


def test_timer_and_code_are_shown() -> None:
    model = table_model(snap_of(bidding(), me=1, turn_left=12.2))
    assert model.turn_line == "Your turn.  [0:13 left]"
    assert model.code == "code 12345-67890"
    assert timer_text(None) == "" and timer_text(-3) == "0:00 left"


def test_alarm_is_shown_and_names_the_seat() -> None:
    detail = "seat 2's opening does not match its commitment"
    snap = snap_of(bidding(), me=0, alarms=alarms(("OPENING_MISMATCH", detail, (2,))), halted=True)
    model = table_model(snap)
    assert model.alarm is not None and "OPENING_MISMATCH" in model.alarm
    assert "stopped following" in model.alarm
    assert alarm_seats(snap) == {2: "OPENING_MISMATCH"}


def test_hostile_names_become_harmless_text() -> None:
    snap = snap_of(bidding(), me=0, names=("Ann", HOSTILE, "Cid"))
    model = table_model(snap)
    assert model.seats[1].name == "Eve"
    assert model.turn_line == "Eve is thinking..."
    lobby = Snapshot(
        table_name=HOSTILE,
        seats=(SeatFacts(name="\x07\x1b[5m"), None),
        phase="lobby",
        rules=Rules(seats=2),
        link="connected",
    )
    m = table_model(lobby)
    assert (
        "\x1b" not in m.title and m.seats[0].name == "seat 0" and m.seats[1].name == "(free seat)"
    )
    assert m.turn_line == "Waiting for players: 1 seated of up to 2; a game needs 2."


def test_connecting_and_spectating() -> None:
    connecting = table_model(Snapshot())
    assert connecting.turn_line == "Connecting to the table..."
    # A player still taking a seat is not told they are watching.
    assert "watching" not in connecting.hand_label and "reveal" not in connecting.hand_label
    model = table_model(snap_of(bidding(), me=None, watching=True))
    assert model.entry is None and model.hand == () and "watching" in model.hand_label


def test_faults_are_attributed() -> None:
    notes = (
        Note("forced", 1, 1, "timer: challenge", reason="timer", action="challenge"),
        Note("absent", 1, 2, "no_reply", reason="no_reply"),
    )
    model = table_model(snap_of(bidding(), me=0, notes=notes))
    assert (
        "Cid is away (no answer from their device): the host moves for them when needed"
        in model.notices
    )
    from p2pdice.ui.viewmodel import faults_of_round

    lines = faults_of_round(snap_of(bidding(), notes=notes), 1)
    assert lines[0] == "Bob's time ran out, so the host called Liar for them"


def test_host_moves_and_forfeits_are_said_in_plain_words() -> None:
    from p2pdice.ui.viewmodel import faults_of_round

    notes = (
        Note("forced", 1, 0, "absent: next_round", reason="absent", action="next_round"),
        Note("forced", 1, 1, "absent: bid", reason="absent", action="bid"),
        Note("forfeit", 1, 2, "no_opening", reason="no_opening"),
        Note("forfeit", 1, 1, "no_contribution", reason="no_contribution"),
    )
    lines = faults_of_round(snap_of(bidding(), notes=notes), 1)
    assert lines == [
        "Ann was away, so the host started the next round for them",
        "Bob was away, so the host made the lowest bid for them",
        "Cid never showed their dice at the reveal, so they are out of the game",
        "Bob never sent their part of the dice roll, so they are out of the game",
    ]
    assert not any("'s was" in line or "forfeited (" in line for line in lines)


def test_host_run_cpu_is_disclosed_on_standard_tables() -> None:
    model = table_model(snap_of(bidding(), me=0, host_cpu=1))
    assert any("could read their dice" in n for n in model.notices)


def test_a_finished_round_tells_the_starter_on_the_table_screen() -> None:
    from .helpers import revealed

    state = revealed()  # Cid called and lost: Cid starts round 2
    assert state.next_starter == 2
    cid = table_model(snap_of(state, me=2))
    assert cid.turn_line == "You start the next round: press Enter."
    ann = table_model(snap_of(state, me=0))
    assert ann.turn_line == "Cid starts the next round."


def test_odds_hint_is_for_the_typed_bid_once_it_reads_as_one() -> None:
    snap = snap_of(bidding(), me=1)
    view = snap.view
    arrow = table_model(snap, EntryState(show_odds=True)).entry
    assert f"{arrow.selected_text} true:" in arrow.odds
    entry = table_model(snap, EntryState(typed="3 6", show_odds=True)).entry
    want = round(100 * bid_true_chance(view, Bid(3, 6)))
    assert f"3 x 6s true: {want}%" in entry.odds and arrow.selected_text not in entry.odds
    assert "current bid true:" in entry.odds
    # Text that is not a bid yet leaves the hint on the arrow bid.
    half = table_model(snap, EntryState(typed="3 s", show_odds=True)).entry
    assert half.odds == arrow.odds
