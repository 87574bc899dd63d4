"""Which screen shows is a pure function of the UI state and the snapshot; what new facts
change (`modes.arrive`) is a pure answer too, and only the controller's event step writes
it into the state: asking for a snapshot, a mode or a frame changes nothing."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from p2pdice.cli.runtime import start_pass_and_play
from p2pdice.core.game import Challenge, Reveal, StartNextRound, apply
from p2pdice.core.rules import FirstStarter, Rules, TableKind
from p2pdice.ui import modes
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import render_screen
from p2pdice.ui.review import coach_page, coached_seats
from p2pdice.ui.state import UiState
from p2pdice.ui.viewmodel import ALL_OUT, PASSED_ROUND, table_model

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
    assert modes.arrive(ui, snap_of(finished, me=0), kind="practice") == modes.Arrival(0, None)
    assert ui.seen_results is None  # an answer, not a change: the event step applies it
    assert modes.screen_mode(UiState(seen_results=0), snap_of(finished), kind="practice") == (
        "reveal"
    )
    assert finished.next_starter is not None
    later = apply(finished, StartNextRound(finished.next_starter))
    arrival = modes.arrive(UiState(), snap_of(later, me=0), kind="practice")
    assert arrival.seen_results == 1  # round 1 ended before this player came: no reveal of it
    assert modes.screen_mode(UiState(seen_results=1), snap_of(later), kind="practice") != "reveal"


def test_what_a_player_has_seen_is_kept_once_known() -> None:
    ui = UiState(seen_results=0)
    later = apply(revealed(), StartNextRound(2))
    assert modes.arrive(ui, snap_of(later), kind="practice").seen_results == 0


def test_pass_and_play_takes_the_device_back_when_a_reveal_arrives() -> None:
    rules = Rules(seats=3, kind=TableKind.PASS_AND_PLAY, first_starter=FirstStarter.SEAT0)
    ui = UiState(holder=2, seen_results=0)
    state = apply(bidding(rules), Challenge(1))
    assert modes.arrive(ui, snap_of(state, me=2, mine=(1, 2)), kind=PNP) == modes.Arrival(0, 2)
    shown = apply(state, Reveal(HANDS))
    arrival = modes.arrive(ui, snap_of(shown, me=2, mine=(1, 2)), kind=PNP)
    assert arrival == modes.Arrival(0, None, handed_back=True)  # everyone looks at the reveal
    assert ui.holder == 2  # until the event step applies it
    unheld = UiState(holder=None, seen_results=0)
    assert not modes.arrive(unheld, snap_of(shown, me=None, mine=(1, 2)), kind=PNP).handed_back
    assert not modes.arrive(ui, snap_of(shown, me=2), kind="practice").handed_back


def test_only_pass_and_play_asks_for_the_device_before_a_turn() -> None:
    snap = snap_of(bidding(), me=1, mine=(1, 2))  # seat 1 to play, after seat 0's opening
    assert modes.pass_to(UiState(holder=2), snap, kind=PNP) == 1
    assert modes.pass_to(UiState(holder=1), snap, kind=PNP) is None
    assert modes.pass_to(UiState(holder=2), snap, kind="practice") is None
    assert modes.screen_mode(UiState(holder=2, seen_results=0), snap, kind=PNP) == "pass"


def _state(ui: UiState) -> dict[str, Any]:
    """The UI state's fields, containers copied (the runtime and the lobby book by identity)."""
    return {
        f.name: copy.copy(value) if isinstance(value, dict | set | list) else value
        for f in fields(ui)
        for value in (getattr(ui, f.name),)
    }


def _look(c: Controller) -> str:
    """What every frame and key filter does: ask for the mode and the snapshot, and draw.
    None of it may change the UI state."""
    before = _state(c.ui)
    for _ in range(2):
        mode = c.mode()
        c.snap()
        render_screen(c, 80, 24)
    assert _state(c.ui) == before
    return mode


async def _until(c: Controller, mode: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while _look(c) != mode:
        assert loop.time() < end, f"mode {c.mode()}, not {mode}"
        await asyncio.sleep(0.01)


async def test_a_pass_and_play_round_changes_the_state_only_in_event_steps(
    tmp_path: Path,
) -> None:
    rules = Rules(
        seats=2, starting_dice=1, kind=TableKind.PASS_AND_PLAY, first_starter=FirstStarter.SEAT0
    )
    runtime = await start_pass_and_play(tmp_path, rules, ["Ann", "Bob"], [], cpu_think=0)
    c = Controller(UiState())
    try:
        c.set_runtime(runtime)
        await _until(c, "pass")  # Ann opens: the device goes to her first
        c.take_device()  # Space
        c.refresh()  # the key's step: what keys.py does after each key
        assert c.ui.holder == 0 and _look(c) == "table"
        c.bid()
        c.refresh()
        await _until(c, "pass")
        c.take_device()
        c.refresh()
        assert c.ui.holder == 1
        c.liar()
        c.refresh()
        await _until(c, "reveal")
        # The result arrived as a session's change: its step gave the device back (everyone
        # looks at the reveal) and kept the round unseen until Enter.
        assert c.ui.holder is None and c.ui.seen_results == 0
        c.enter()
        c.refresh()
        assert c.ui.seen_results == 1 and _look(c) == "over"
    finally:
        c.set_runtime(None)
        await runtime.close()


def test_a_pass_and_play_device_on_the_table_says_whose_dice_are_hidden_not_watching() -> None:
    """A CPU's turn at a pass-and-play table: nobody holds the device, and the table says
    the dice wait for the next player, not that a latecomer is watching."""
    rules = Rules(seats=3, kind=PNP, first_starter="seat2")
    snap = snap_of(bidding(rules, bids=()), me=None, mine=(0, 1), phase="bidding")
    assert table_model(snap).hand_label == PASSED_ROUND
    both_out = bidding(Rules(seats=3, kind=PNP, first_starter="seat2", starting_dice=1), bids=())
    both_out = replace(both_out, dice=(0, 0, 1))
    out_snap = snap_of(both_out, me=None, mine=(0, 1), phase="bidding")
    assert table_model(out_snap).hand_label == ALL_OUT


def test_the_coach_at_a_pass_and_play_reveal_reviews_each_persons_moves() -> None:
    """At the reveal everyone looks at the device: `v` reviews every person's decisions
    here, each under their name (the rounds are over: nothing is hidden any more); a
    spectator still has none."""
    rules = Rules(seats=3, kind=PNP, first_starter="seat0")
    snap = snap_of(revealed(rules), me=None, mine=(0, 1))
    page = coach_page(snap)
    assert page is not None and coached_seats(snap) == (0, 1)
    assert "== Ann ==" in page.lines and "== Bob ==" in page.lines
    assert coach_page(snap_of(revealed(rules), me=None, mine=())) is None
