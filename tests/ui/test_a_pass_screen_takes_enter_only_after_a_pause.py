"""Pass-and-play: Enter places a bid, so an Enter pressed twice, or held down, must not lift
the next pass screen and show the next person's dice to the one still holding the device.
A pass screen is lifted with Space, and only after a pause with no key; and it tells
whoever takes the device how long their turn timer has left, and that a palifico round is
one."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path

from p2pdice.cli.runtime import start_pass_and_play
from p2pdice.core.rules import FirstStarter, Palifico, PalificoKind, Rules, TableKind
from p2pdice.ui.controller import PASS_PAUSE, Controller
from p2pdice.ui.reveal import pass_model
from p2pdice.ui.state import UiState
from p2pdice.ui.viewmodel import palifico_words

from .headless import headless, pass_and_play_setup
from .helpers import bidding, snap_of


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def until_mode(c: Controller, mode: str, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        c.refresh()
        if c.mode() == mode:
            return
        assert loop.time() < end, f"mode {c.mode()}, not {mode}"
        await asyncio.sleep(0.01)


def press_enter(c: Controller) -> None:
    """What keys.py does for Enter."""
    c.key_pressed()
    c.enter()
    c.refresh()


def press_space(c: Controller) -> None:
    """What keys.py does for Space on a pass screen."""
    c.key_pressed()
    c.take_device()
    c.refresh()


async def test_enter_pressed_twice_or_held_leaves_the_pass_screen_up(tmp_path: Path) -> None:
    rules = Rules(
        seats=2, starting_dice=2, kind=TableKind.PASS_AND_PLAY, first_starter=FirstStarter.SEAT0
    )
    runtime = await start_pass_and_play(tmp_path, rules, ["Ann", "Bob"], [], cpu_think=0)
    c = Controller(UiState())
    clock = c.clock = Clock()
    try:
        c.set_runtime(runtime)
        await until_mode(c, "pass")
        press_space(c)  # the first key of the game: nothing was pressed before it
        assert c.ui.holder == 0 and c.mode() == "table"
        clock.now += 5
        press_enter(c)  # Ann bids the suggested bid
        await until_mode(c, "pass")
        for gap in (PASS_PAUSE / 2, 0.7, 1.2, 0.03, 0.03):  # pressed again, or held down
            clock.now += gap
            press_enter(c)
            assert c.mode() == "pass" and c.ui.holder == 0, "Bob's dice were shown to Ann"
        assert "press Space to take the device (not Enter)" in c.ui.message
        clock.now += PASS_PAUSE / 2  # Space right after another key does not count either
        press_space(c)
        assert c.mode() == "pass" and c.ui.holder == 0
        clock.now += PASS_PAUSE + 0.01  # Bob has the device and presses Space
        press_space(c)
        assert c.ui.holder == 1 and c.mode() == "table"
    finally:
        c.set_runtime(None)
        await runtime.close()


async def test_the_real_app_never_shows_the_next_hand_to_a_double_enter(tmp_path: Path) -> None:
    rules = Rules(seats=2, starting_dice=2, kind="pass_and_play", first_starter="seat0")

    async with headless(tmp_path, pass_and_play_setup(tmp_path, rules, ["Ann", "Bob"])) as d:
        await d.until(lambda: d.c.mode() == "pass")
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        d.send("\r")  # Ann's bid ...
        await asyncio.sleep(0.05)
        d.send("\r")  # ... and Enter again at once
        await d.until(lambda: d.c.mode() == "pass")
        d.send("\r\r\r")  # and held down
        await asyncio.sleep(0.3)
        screen = d.screen()
        assert d.c.mode() == "pass" and "Your dice (Bob" not in screen, screen
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        assert "Your dice (Bob" in d.screen()


def test_the_pass_screen_shows_the_turn_timer_of_who_takes_the_device() -> None:
    rules = Rules(seats=3, kind="pass_and_play", first_starter="seat0", turn_timer=30)
    snap = snap_of(bidding(rules), me=0, mine=(0, 1), turn_left=24.2)
    assert pass_model(snap, 1, previous=0).clock == "Bob's turn: 0:25 left"
    assert pass_model(replace(snap, turn_left=None), 1, previous=0).clock == ""


def test_a_palifico_round_is_said_on_the_pass_screen_and_before_the_first_bid() -> None:
    rules = Rules(seats=3, kind="pass_and_play", first_starter="seat0", palifico="fixed")
    snap = snap_of(bidding(rules, bids=()), me=0, mine=(0, 1))
    snap = replace(snap, view=replace(snap.view, palifico_round=True))
    model = pass_model(snap, 0, previous=None)
    assert model.last_bid == "No bid yet: Ann opens round 1.  (palifico: face fixed, ones not wild)"


def test_the_palifico_words_follow_the_tables_palifico_rules() -> None:
    def words(palifico: Palifico, kind: PalificoKind) -> str:
        return palifico_words(Rules(palifico=palifico, palifico_kind=kind))

    assert words(Palifico.FIXED, PalificoKind.BOTH) == "palifico: face fixed, ones not wild"
    assert words(Palifico.FIXED, PalificoKind.ONES_NOT_WILD) == "palifico: ones not wild"
    assert words(Palifico.FIXED, PalificoKind.FACE_FIXED) == "palifico: face fixed"
    assert words(Palifico.FREE, PalificoKind.FACE_FIXED) == (
        "palifico: face fixed (a one-die player may change it)"
    )
