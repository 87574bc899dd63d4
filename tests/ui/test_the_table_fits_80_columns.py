"""At 80 columns nothing on the table screen that matters is cut or split: seat statuses and
a pending bid show whole, the header keeps the round on a perudo table, a bid or a name is
never broken across lines, a seat is never both disconnected and thinking, and `?` lists
only the keys the table answers to."""

from __future__ import annotations

import itertools
from dataclasses import replace

from p2pdice.core.bids import Bid
from p2pdice.core.rules import Rules, preset
from p2pdice.ui.panels import render_help
from p2pdice.ui.reveal import reveal_model
from p2pdice.ui.screens import plain, render_reveal, render_table
from p2pdice.ui.viewmodel import table_model
from tests.ui.helpers import bidding, revealed, snap_of

LONG = ("Annabelle Mary Smith", "Bob", "CPU medium 3")


def _screen(snap, columns: int = 80) -> str:
    text = plain(render_table(table_model(snap), columns=columns, height=40))
    assert all(len(line) <= columns for line in text.splitlines())
    return text


def test_an_away_seat_with_a_stand_in_says_so_whole() -> None:
    snap = snap_of(bidding(), me=0, absent=frozenset({2}), stand_ins=frozenset({2}))
    assert "away, CPU stand-in" in _screen(snap)


def test_a_pending_bid_shows_its_marker_whole() -> None:
    snap = snap_of(bidding(), me=1, names=LONG, pending_action="10 x 5s")
    screen = _screen(snap)
    assert "10 x 5s (pending)" in screen


def test_the_header_of_a_perudo_table_keeps_the_round() -> None:
    rules = preset("perudo", seats=3, first_starter="seat0")
    snap = snap_of(bidding(rules), me=0)
    header = _screen(snap).splitlines()[0]
    assert "round 1" in header


def _broken(lines: list[str], phrase: str) -> bool:
    """Whether `phrase` starts at the end of one line and ends at the start of the next."""
    cuts = [i for i, ch in enumerate(phrase) if ch == " "]
    return any(
        a.rstrip().endswith(phrase[:k]) and b.lstrip().startswith(phrase[k + 1 :])
        for a, b in itertools.pairwise(lines)
        for k in cuts
    )


def test_a_long_line_breaks_between_names_and_bids_only() -> None:
    snap = snap_of(bidding(bids=((0, Bid(2, 4)),)), me=1, names=LONG)
    for columns in range(24, 81):
        lines = [line for line in _screen(snap, columns).splitlines() if "|" not in line]
        assert not any(_broken(lines, p) for p in ("2 x 4s", LONG[0])), (columns, lines)
    reveal = reveal_model(snap_of(revealed(), me=0, names=LONG), 0)
    assert reveal is not None
    for columns in range(30, 81):
        lines = plain(render_reveal(reveal, columns=columns, height=40)).splitlines()
        for phrase in ("2 x 4s", "3 x 4s", LONG[0], LONG[2]):
            assert not _broken(lines, phrase), (columns, phrase, lines)


def test_a_disconnected_seat_is_not_also_thinking() -> None:
    snap = replace(snap_of(bidding(), me=0), connected=frozenset({0, 2}))  # Bob's turn
    screen = _screen(snap)
    assert "disconnected" in screen
    assert "thinking" not in screen
    assert "Bob is disconnected" in screen


def test_an_away_seat_whose_turn_it_is_says_who_moves_for_it() -> None:
    snap = snap_of(bidding(), me=0, absent=frozenset({1}), stand_ins=frozenset({1}))
    screen = _screen(snap)
    assert "thinking" not in screen and "Bob is away: its CPU stand-in moves" in screen


def _help(rules: Rules, **where: bool) -> str:
    return plain(render_help(rules, height=60, **where))


def test_help_lists_undo_tab_and_exact_only_where_the_table_allows_them() -> None:
    standard = _help(Rules())
    assert "Tab" not in standard and "undo" not in standard.lower().split("keys")[-1]
    assert "Exact" not in standard.split("Keys")[-1]
    practice = _help(Rules(kind="practice", undo=True, exact_call=True))
    keys = practice.split("Keys")[-1]
    # One seat of a practice table: Tab has no other seat to switch to.
    assert "Tab" not in keys and "undo your last bid" in keys and "call Exact" in keys
    several = _help(Rules(kind="practice", undo=True), several=True).split("Keys")[-1]
    assert "Tab" in several


def test_help_before_the_start_lists_s_for_the_host_and_the_game_keys_for_later() -> None:
    host = _help(Rules(), waiting=True, hosting=True)
    now, later = host.split("Keys")[-1].split("Once the game has started")
    assert "  s " in now and "start the game" in now and "quantity of your bid" not in now
    assert "quantity of your bid" in later
    player = _help(Rules(), waiting=True).split("Keys")[-1].split("Once the game")[0]
    assert "  s " not in player and "? / q" in player


def test_the_header_leaves_out_whole_rules_rather_than_cut_a_word() -> None:
    rules = Rules(seats=3, first_starter="seat0", kind="practice", time_bank=0)
    snap = replace(
        snap_of(bidding(rules), me=0),
        table_name="Practice",
        code="code 09635-12372-18171-01018",  # as long as a real one
    )
    header = plain(render_table(table_model(snap, columns=80), columns=80, height=40))
    first = header.splitlines()[0]
    assert len(first) <= 80 and "~" not in first, first
    assert "round 1, wild ones, 5 dice" in first and "09635-12372-18171-01018" in first, first
