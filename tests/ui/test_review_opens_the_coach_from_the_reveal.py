"""`v` on the reveal opens the coach: the rounds finished so far, each decision of the
player's seat with its chance and hard's move, in 80x24; Esc goes back to the reveal, and
the round does not start by itself while the player reads."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pdice.bots.review import review_rounds, review_text
from p2pdice.core.rules import Rules
from p2pdice.ui.review import CoachPage, render_coach
from p2pdice.ui.screens import plain

from .headless import headless
from .test_app_headless import practice_setup


async def test_v_on_the_reveal_lists_the_players_decisions(tmp_path: Path) -> None:
    rules = Rules(seats=2, starting_dice=3, kind="practice", first_starter="seat0")
    base = practice_setup(tmp_path, rules, ["medium"])

    def setup(c, lobby) -> None:
        c.ui.auto_next_round = 0.5
        base(c, lobby)

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        await d.press("\r")  # the suggested opening bid
        while d.c.mode() != "reveal":
            if d.c.mode() == "table" and d.c.my_turn():
                await d.press("l")
            await asyncio.sleep(0.05)
            await d.until(lambda: d.c.mode() in ("reveal", "table"), 20)
        assert "v coach" in d.screen()
        await d.press("v")
        await d.until(lambda: d.c.mode() == "coach")
        screen = d.screen()
        view = d.c.snap().view
        me = d.c.snap().me
        decisions = [
            dec for r in review_rounds(view.rules, view.results, me) for dec in r.decisions
        ]
        assert decisions  # we bid at least once
        assert "The coach" in screen and "round 1: you held" in screen
        moves = [line for line in screen.splitlines() if ": you " in line and "held" not in line]
        assert len(moves) == len(decisions)
        for line, dec in zip(moves, decisions, strict=True):
            assert f"{dec.chance:.0%}" in line
        assert all(len(line) <= 80 for line in screen.splitlines())
        if view.next_starter == me:  # the loser starts the next round: here, we do
            await asyncio.sleep(1.5)  # three times the pause before it starts by itself
            assert d.c.mode() == "coach" and d.c.snap().view.round == view.round
        await d.press("\x1b")
        await d.until(lambda: d.c.mode() == "reveal")


def test_the_coach_page_scrolls_within_its_text() -> None:
    page = CoachPage(0, tuple(f"line {i}" for i in range(50)))
    shown = plain(render_coach(page, columns=80, height=22))
    assert "line 0" in shown and "line 19" in shown and "line 20" not in shown
    page.scroll(pages=1)
    assert page.top == 19
    page.scroll(pages=5)
    assert page.top == 30  # the last line at the bottom, no further
    assert "line 49" in plain(render_coach(page, columns=80, height=22))
    page.scroll(lines=-100)
    assert page.top == 0


def test_the_coach_screen_in_the_playing_guide_is_what_the_coach_draws() -> None:
    from p2pdice.core.table import Replayer
    from p2pdice.core.transcript import parse_entry
    from tests.support.played import honest_game

    replayer = Replayer()
    for line in honest_game().host.lines():
        replayer.feed(parse_entry(line))
    state = replayer.state
    assert state is not None and state.game is not None
    names = [s.name for s in state.roster]
    rounds = list(review_rounds(state.rules, state.game.results[:2], 1))
    page = CoachPage(1, tuple(review_text(rounds, names, 1)))
    drawn = [
        line.rstrip() for line in plain(render_coach(page, columns=80, height=22)).splitlines()
    ]
    guide = (Path(__file__).resolve().parents[2] / "docs" / "playing.md").read_text()
    assert "\n".join(line for line in drawn if line) in guide, "re-capture the coach screen"
