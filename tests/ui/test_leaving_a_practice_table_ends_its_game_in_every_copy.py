"""Leaving a practice table (`q`, which says the game ends, then `y`; or Ctrl-C) in the middle of a
round ends its game for the record: the table's log, the player's transcript and the CPU's
copy each end with the signed `game_over` (`abandoned`) and verify as a whole game
(`p2pdice verify` exit status 0), and `p2pdice review` lists the round the game stopped in,
with the player's moves in it, instead of saying there is nothing to review yet."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.cli.runtime import start_practice
from p2pdice.core.rules import Rules
from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import quit_question
from tests.support.procs import transcript_files
from tests.ui.headless import headless, pass_and_play_setup
from tests.ui.test_lobby_actions import lobby_at, opened, until


def _now(c: Controller) -> Controller:
    c._snap = None  # the controller keeps one snapshot per event; these checks are events
    return c


def ended_game(path: Path) -> bytes:
    """The bytes of a log that verifies whole, ended early."""
    data = path.read_bytes()
    lines, cut = split_lines(data)
    assert cut is None, cut
    report = verify_lines(lines)
    assert report.ok, f"{path}: {report.failure and report.failure.describe()}"
    assert report.ended == "abandoned", report.ended
    last = json.loads(lines[-1])["event"]
    assert (last["type"], last["reason"]) == ("game_over", "abandoned"), last
    return data


async def test_y_at_a_practice_table_ends_its_game_in_every_transcript(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lobby = lobby_at(tmp_path)
    c = lobby.c
    rules = Rules(seats=2, starting_dice=3, first_starter="seat0", kind="practice")
    # The CPU thinks for a minute before each move: it is still thinking when Ann leaves.
    lobby.open_table(
        lambda: start_practice(tmp_path, rules, ["easy"], name="Ann", cpu_think=60), "practice"
    )
    await opened(c)
    runtime = c.runtime
    assert runtime is not None and runtime.service is not None
    [table] = runtime.service.tables.values()
    try:
        await until(lambda: _now(c).my_turn(), 20)
        c.bid()  # the opening bid, which the CPU is still thinking about
        await until(lambda: len(_now(c).snap().view.bids) == 1, 20)
        c.ask_quit()
        assert c.mode() == "quit"
        _, text, _ = quit_question(c)
        assert text == "Leave this table? It is on this machine only, so the game ends."
        c.answer_quit("y")
        assert c.runtime is None and c.ui.screen == "lobby"
        await c.finish_tasks(20)
    finally:
        await runtime.close()
    log = ended_game(table.folder / "log.jsonl")
    (mine,) = transcript_files(tmp_path / "practice" / "1")
    assert ended_game(mine) == log  # the player's own copy holds the end
    (cpu,) = transcript_files(table.folder / "cpu" / "1")
    assert ended_game(cpu) == log
    capsys.readouterr()
    assert main(["verify", str(mine)]) == 0, capsys.readouterr().out
    capsys.readouterr()
    assert main(["review", str(mine)]) == 0
    review = capsys.readouterr().out.splitlines()
    assert review[1:] == [
        "round 1: not finished, no cup opened: your 1 move not reviewed",
        "none of your decisions is in a finished round: nothing to review",
    ], review


async def test_ctrl_c_at_a_pass_and_play_table_ends_its_game_for_the_record(
    tmp_path: Path,
) -> None:
    """Ctrl-C leaves at once, with no question; a game on this machine only cannot be
    resumed, so it ends as `q` would end it: every copy holds the signed end."""
    rules = Rules(seats=2, starting_dice=2, kind="pass_and_play", first_starter="seat0")

    async with headless(tmp_path, pass_and_play_setup(tmp_path, rules, ["Ann", "Bob"])) as d:
        await d.until(lambda: d.c.mode() == "pass")
        runtime = d.c.runtime
        assert runtime is not None and runtime.service is not None
        [table] = runtime.service.tables.values()
        d.send("\x03")
        assert await asyncio.wait_for(d.task, 20) == 130
    log = ended_game(table.folder / "log.jsonl")
    copies = [
        path for seat in ("1", "2") for path in transcript_files(tmp_path / "pass-and-play" / seat)
    ]
    assert len(copies) == 2 and all(ended_game(path) == log for path in copies)
