"""`?` lists the keys that work where it is shown, and a refused key says something true: on
a practice table of one seat neither `?` nor the key bar offers Tab, and Tab says why it does
nothing there; on the host's waiting screen `?` lists `s` (start) and the game's keys under
their own heading. The default practice table's header leaves out whole rules instead of
cutting a word. The real app in tmux at 80x24."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support import tmux

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]


def app(*args: str) -> list[str]:
    return [sys.executable, "-m", "p2pdice", *args]


def keys_of(help_screen: str) -> str:
    """The help screen's lines from its Keys heading on."""
    return help_screen.split(" Keys\n", 1)[1]


def test_a_one_seat_practice_table_offers_no_tab_and_its_header_cuts_no_word(
    tmp_path: Path,
) -> None:
    t = tmux.Tmux()
    # A CPU opens round 1 and thinks a while: the table stays on screen, no reveal.
    command = app("practice", "--home", str(tmp_path), "--cpu-think", "5",
                  "--first-starter", "seat1")  # fmt: skip
    try:
        t.start(command, stderr=tmp_path / "stderr.txt")
        screen = t.wait_for(lambda s: "Your dice (" in s, 30, "the practice table")
        header = screen.splitlines()[0]
        assert "~" not in header, header
        assert "Practice  round 1, wild ones, 5 dice" in header, header
        assert "Tab" not in screen.splitlines()[-1], screen
        t.keys("?")
        helped = t.wait_for(lambda s: " Keys" in s, 10, "the help screen")
        assert "Tab" not in keys_of(helped) and "switch to your other seat" not in helped
        assert "no time bank" in helped  # the rules left out of the header are here
        t.keys("Escape")
        t.wait_for(lambda s: "Your dice (" in s, 10, "the table again")
        t.keys("Tab")
        said = t.wait_for(lambda s: "Tab switches" in s, 10, "what Tab says")
        assert "you play one seat here" in said, said
        assert "only practice tables" not in said
    finally:
        t.kill()


def test_the_hosts_waiting_screen_help_lists_s_to_start(tmp_path: Path) -> None:
    t = tmux.Tmux()
    command = app("host", "--no-advertise", "--bind", "127.0.0.1", "--seats", "3", "--cpu", "1",
                  "--name", "Kitchen", "--home", str(tmp_path))  # fmt: skip
    try:
        t.start(command, stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "press s to start" in s and "s start" in s, 30, "the waiting screen")
        t.keys("?")
        helped = t.wait_for(lambda s: " Keys" in s, 10, "the help screen")
        now, later = keys_of(helped).split("Once the game has started")
        assert "  s " in now and "start the game with the seats taken" in now, helped
        assert "quantity of your bid" not in now and "quantity of your bid" in later, helped
        assert "Tab" not in helped
    finally:
        t.kill()
