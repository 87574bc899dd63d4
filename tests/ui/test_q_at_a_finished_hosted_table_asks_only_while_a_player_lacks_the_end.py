"""The words of `q` at a table we host whose game is over while players on another machine
lack its end: it names them and asks, since leaving closes the table they would get it
from; pausing a finished game means nothing, so the question is only leave or stay. The
game-over screen names them too. (A stand-in table whose link ended; the path of a real
hosted table, where the game's phase says it is over, is
test_a_finished_hosted_table_names_a_player_away_without_the_end.py.)"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import body, quit_question
from p2pdice.ui.reveal import game_over_model
from p2pdice.ui.screens import plain, render_game_over
from p2pdice.ui.state import UiState
from tests.ui.helpers import revealed, snap_of


@dataclass
class FinishedHostedTable:
    """A hosted table whose link ended with its game (the OpenTable port's facts only)."""

    behind: list[str] = field(default_factory=list)
    kind: str = "host"
    sessions: tuple = ()
    outcome: str | None = "over"
    rematch: None = None
    hint: str = ""
    started_hint: str = ""
    closed: bool = False

    def link_state(self) -> str:
        return "over"

    def cpu_plan(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return (), ()

    def players_behind(self) -> tuple[str, ...]:
        return tuple(self.behind)

    async def close(self, *, end_game: bool = True) -> None:
        self.closed = True


def _at(table: FinishedHostedTable) -> Controller:
    c = Controller(UiState())
    c.set_runtime(table)
    return c


async def test_q_asks_and_names_who_lacks_the_end_and_only_y_leaves() -> None:
    table = FinishedHostedTable(behind=["Bob", "Cy"])
    c = _at(table)
    c.ask_quit()
    assert c.mode() == "quit"
    title, text, keys = quit_question(c)
    assert title == "Leave your table?"
    assert text.startswith("Bob, Cy do not have the end of the game yet")
    assert [k for k, _ in keys] == ["y", "n"]
    lines, shown_keys = body(c, 80, 22)
    assert "Bob, Cy do not have" in plain(lines).replace("\n", " ")
    assert shown_keys == keys
    for key in ("p", "e"):  # nothing to pause or end: the question stays, the table open
        c.answer_quit(key)
        assert c.mode() == "quit" and c.runtime is table
        assert c.ui.message == "the game is over: y leaves, n stays"
    c.answer_quit("y")
    await asyncio.sleep(0)
    assert c.runtime is None and table.closed


async def test_once_the_last_one_has_it_the_question_says_so() -> None:
    table = FinishedHostedTable(behind=["Bob"])
    c = _at(table)
    c.ask_quit()
    table.behind.clear()  # Bob came back while the question was showing
    title, text, keys = quit_question(c)
    assert title == "Leave your table?"
    assert text == "Everyone has the end of the game. y leaves."
    assert [k for k, _ in keys] == ["y", "n"]


def test_the_game_over_screen_names_who_is_still_on_the_way_back() -> None:
    snap = snap_of(revealed())
    assert game_over_model(snap).behind_line == ""
    model = game_over_model(snap, behind=["Bob"])
    assert model.behind_line.startswith("Waiting for Bob to come back for the end")
    screen = plain(render_game_over(model, columns=80, height=22))
    assert "Waiting for Bob to come back" in screen
