"""Which screen shows is a pure function of the UI state and the snapshot; new facts change
the state only through `modes.arrive`."""

from __future__ import annotations

import copy

from p2pdice.core.game import Challenge, Reveal, StartNextRound, apply
from p2pdice.core.rules import FirstStarter, Rules, TableKind
from p2pdice.ui import modes
from p2pdice.ui.state import UiState

from .helpers import HANDS, bidding, revealed, snap_of

PNP = modes.PASS_AND_PLAY


def test_screen_mode_reads_the_state_without_changing_it() -> None:
    ui = UiState(holder=1)
    snap = snap_of(revealed(), me=1, mine=(1, 2))
    before = copy.deepcopy(ui)
    assert modes.screen_mode(ui, snap, kind=PNP) == "reveal"  # a result nobody has seen
    assert modes.screen_mode(ui, snap, kind=PNP) == "reveal"
    assert ui == before  # the old mode() set seen_results and dropped the holder here


def test_a_player_arriving_after_a_round_sees_its_reveal_but_not_earlier_ones() -> None:
    ui = UiState()
    finished = revealed()  # round 1 over: its reveal is news to whoever arrives now
    assert modes.arrive(ui, snap_of(finished, me=0), kind="practice") is False
    assert ui.seen_results == 0
    assert modes.screen_mode(ui, snap_of(finished, me=0), kind="practice") == "reveal"
    ui = UiState()
    assert finished.next_starter is not None
    later = apply(finished, StartNextRound(finished.next_starter))
    modes.arrive(ui, snap_of(later, me=0), kind="practice")
    assert ui.seen_results == 1  # round 1 ended before this player came: no reveal of it
    assert modes.screen_mode(ui, snap_of(later, me=0), kind="practice") != "reveal"


def test_pass_and_play_takes_the_device_back_when_a_reveal_arrives() -> None:
    rules = Rules(seats=3, kind=TableKind.PASS_AND_PLAY, first_starter=FirstStarter.SEAT0)
    ui = UiState(holder=2, seen_results=0)
    state = apply(bidding(rules), Challenge(1))
    assert modes.arrive(ui, snap_of(state, me=2, mine=(1, 2)), kind=PNP) is False
    assert ui.holder == 2  # nothing new to see yet
    shown = apply(state, Reveal(HANDS))
    assert modes.arrive(ui, snap_of(shown, me=2, mine=(1, 2)), kind=PNP) is True
    assert ui.holder is None  # everyone looks; the next player takes the device
    assert modes.arrive(ui, snap_of(shown, me=None, mine=(1, 2)), kind=PNP) is False


def test_only_pass_and_play_asks_for_the_device_before_a_turn() -> None:
    snap = snap_of(bidding(), me=1, mine=(1, 2))  # seat 1 to play, after seat 0's opening
    assert modes.pass_to(UiState(holder=2), snap, kind=PNP) == 1
    assert modes.pass_to(UiState(holder=1), snap, kind=PNP) is None
    assert modes.pass_to(UiState(holder=2), snap, kind="practice") is None
    assert modes.screen_mode(UiState(holder=2, seen_results=0), snap, kind=PNP) == "pass"
