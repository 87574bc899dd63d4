"""The graded match is a whole game on the practice table, played here through the keyboard
of the real terminal client (headless) by the same setup `p2pdice learn` opens it with; its
grade lands in learning.json and on the lesson list, and `p2pdice stats` shows it once among
the practice games, never as a contest."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from p2pdice.bots.graded import GRADED_CPU
from p2pdice.cli import main
from p2pdice.cli.learn import (
    GRADED_DIR,
    finish_graded,
    graded_setup,
    graded_transcripts,
    load_progress,
)
from p2pdice.core.grading import GRADES
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules
from p2pdice.stats.games import DUPLICATE, Game, read_game
from p2pdice.ui.learn import opening
from p2pdice.ui.screens import plain
from tests.ui.headless import headless

RULES = Rules(starting_dice=1)  # the course's rules; one die each keeps the game short


async def play_to_the_end(home: Path) -> None:
    """A hurried player: Liar when it is offered, else the suggested bid; Enter past reveals."""
    async with headless(home, graded_setup(home, RULES, name="Learner", cpu_think=0)) as d:
        await d.until(lambda: d.c.runtime is not None and d.c.snap().view is not None, 20)
        loop = asyncio.get_running_loop()
        end = loop.time() + 90
        while d.c.mode() != "over" and loop.time() < end:
            screen = d.screen()
            if d.c.mode() == "reveal":
                await d.press("\r")
            elif d.c.mode() == "table" and d.c.my_turn():
                await d.press("l" if " l Liar" in screen else "\r")
            else:
                await asyncio.sleep(0.03)
        assert d.c.mode() == "over", d.screen()
        assert "Game over" in d.screen() and "n new game" not in d.screen()  # one match, one grade
        await d.until(lambda: d.c.current().final_check is not None, 20)
        await d.press("q")
        await asyncio.wait_for(d.task, 20)


async def test_a_played_graded_match_is_graded_saved_listed_and_not_a_match(
    tmp_path: Path, capsys
) -> None:
    before = graded_transcripts(tmp_path)
    await play_to_the_end(tmp_path)
    said = finish_graded(tmp_path, before, "2026-12-03", RULES)

    [path] = graded_transcripts(tmp_path) - before
    game = read_game(str(path), path.read_bytes())
    assert isinstance(game, Game) and game.finished and game.kind == "practice"
    assert len(game.players) == 1 + len(GRADED_CPU)
    seat = next(p.seat for p in game.players if p.kind == "human")
    place = game.places[seat]

    [result] = load_progress(tmp_path).graded
    assert (result.place, result.seats, result.date) == (place, 4, "2026-12-03")
    assert result.grade == GRADES[place - 1]
    assert said == f"Graded match: {result.line()}."

    # The lesson list shows it (all lessons done, so the course opens on the list).
    keys = tuple(lesson.key for lesson in course(RULES))
    progress = Progress(done=keys, graded=load_progress(tmp_path).graded)
    listed = plain(_list(progress))
    assert f"last: {result.line()}" in listed and "press t to play" in listed

    # Kept apart from matches: under learning/, not tables/ or hosted/; in the record it is
    # one game among the practice games (its host's log and the seat's copy), never rated.
    assert path.is_relative_to(tmp_path / GRADED_DIR)
    assert not (tmp_path / "tables").exists() and not (tmp_path / "hosted").exists()
    capsys.readouterr()
    assert main(["stats", "--home", str(tmp_path), "--json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["games"] == 1 and [g["kind"] for g in body["groups"]] == ["practice"]
    assert body["ratings"] == [] and [s["reason"] for s in body["skipped"]] == [DUPLICATE]


def _list(progress: Progress):
    from p2pdice.ui.learn import render

    return render(opening(RULES, course(RULES), progress))


async def test_a_match_left_before_its_end_is_not_graded(tmp_path: Path) -> None:
    before = graded_transcripts(tmp_path)
    async with headless(tmp_path, graded_setup(tmp_path, RULES, cpu_think=0)) as d:
        await d.until(lambda: d.c.runtime is not None and d.c.snap().view is not None, 20)
    assert "no grade" in finish_graded(tmp_path, before, "2026-12-03", RULES)
    assert load_progress(tmp_path).graded == ()
