"""At a table we host, in this process, with a real `join --bot` process as the other
player: the player is stopped (SIGSTOP, a laptop that froze) the moment our call ends the
game, within the half second its client lingers before it closes, so it never says it has
the end. The table does not name it in the first moment (a connected client is still
closing then); then it does, `q` asks about it by name and only `y` would leave; once the
player runs again and has the end, nobody is named and `q` leaves at once."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.net.server import AWAY_AFTER
from p2pdice.ui.controller import Controller
from p2pdice.ui.frame import quit_question
from tests.support.procs import kill_all, transcript_files
from tests.ui.hosted_with_a_bot import fresh, host_with_a_bot
from tests.ui.test_lobby_actions import until


def _facing_a_bid(c: Controller) -> bool:
    view = fresh(c).snap().view
    return view is not None and view.turn == view.seat and view.standing_bid is not None


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_a_player_frozen_at_the_end_is_named_and_q_asks_until_it_has_the_end(
    tmp_path: Path,
) -> None:
    rules = Rules(seats=2, starting_dice=1, first_starter="seat1")  # Ann opens, Zed calls
    hosted = await host_with_a_bot(
        tmp_path / "me", tmp_path, name="kitchen", rules=rules, seed=3, give_up=60
    )
    c, runtime, table, bot = hosted.c, hosted.runtime, hosted.table, hosted.bot
    try:
        await until(lambda: len(table.host.state.joins) == 2, 20)
        fresh(c).start_game()
        await until(lambda: _facing_a_bid(c), 20)
        assert fresh(c).players_behind() == ()  # the game is not over: nobody lacks its end
        fresh(c).liar()
        await until(lambda: table.host.phase == TablePhase.OVER, 20)
        os.kill(bot.pid, signal.SIGSTOP)
        await until(lambda: fresh(c).finished(), 10)
        assert c.players_behind() == ()  # a moment after the end: clients are still closing
        await until(lambda: fresh(c).players_behind() == ("Ann",), AWAY_AFTER + 5)
        c.ask_quit()
        assert c.mode() == "quit"
        title, text, keys = quit_question(c)
        assert title == "Leave your table?"
        assert text.startswith("Ann does not have the end of the game yet"), text
        assert [k for k, _ in keys] == ["y", "n"]
        for key in ("p", "e"):
            c.answer_quit(key)
            assert c.mode() == "quit" and c.runtime is runtime
            assert c.ui.message == "the game is over: y leaves, n stays"
        c.ui.quitting = False  # n
        os.kill(bot.pid, signal.SIGCONT)
        assert bot.wait(timeout=30) == 0, (tmp_path / "ann.out").read_text()
        await until(lambda: fresh(c).players_behind() == (), 10)
        (copy,) = transcript_files(tmp_path / "ann")
        assert copy.read_bytes() == (table.folder / "log.jsonl").read_bytes()
        fresh(c).ask_quit()  # nobody is left without the end: q leaves at once
        assert c.runtime is None and c.ui.screen == "lobby"
    finally:
        if bot.poll() is None:
            os.kill(bot.pid, signal.SIGCONT)
        kill_all(bot)
        await runtime.close()
