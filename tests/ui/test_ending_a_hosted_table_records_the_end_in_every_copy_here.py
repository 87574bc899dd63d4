"""At a table we host, in this process, with a real `join --bot` process as the other
player: after a round is played, `q` then `e` ends the game. The host's log and the host's
own seat's transcript (both on this machine) end with the signed `game_over` (`abandoned`)
and verify as a whole game (`p2pdice verify` exit status 0), byte for byte the player's
copy; and the message line, which said where to watch the game from, says the table is
closed instead of advertising a table that is gone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pdice.cli import main
from p2pdice.core.game import Phase
from p2pdice.core.rules import Rules
from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.ui.controller import Controller
from tests.support.procs import kill_all, transcript_files
from tests.ui.hosted_with_a_bot import fresh, host_with_a_bot
from tests.ui.test_lobby_actions import until


def _play_on(c: Controller) -> bool:
    """One move of ours when the table waits for one; True once round 2 is being bid (one
    round played, the game not over)."""
    snap = fresh(c).snap()
    view = snap.view
    if view is None:
        return False
    if view.round >= 2 and view.phase == Phase.BIDDING:
        return True
    if c.start_next_round(snap):
        return False
    if c.my_turn() and not snap.pending:
        c.liar() if view.standing_bid is not None else c.bid()
    return False


def _ended_game(path: Path) -> list[bytes]:
    """The lines of a log that verifies whole, ended early by its host."""
    lines, cut = split_lines(path.read_bytes())
    assert cut is None, cut
    report = verify_lines(lines)
    assert report.ok, f"{path}: {report.failure and report.failure.describe()}"
    assert report.ended == "abandoned", report.ended
    return lines


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_e_ends_the_game_in_the_hosts_log_and_its_own_seats_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    home = tmp_path / "me"
    rules = Rules(seats=2, starting_dice=3, first_starter="seat0")
    hosted = await host_with_a_bot(home, tmp_path, name="Kitchen", rules=rules, seed=5, give_up=30)
    c, runtime, table, bot = hosted.c, hosted.runtime, hosted.table, hosted.bot
    try:
        await until(lambda: len(table.host.state.joins) == 2, 20)
        fresh(c).start_game()
        await until(lambda: fresh(c).snap().view is not None, 20)
        assert c.ui.message == runtime.started_hint  # where others watch the game from
        assert runtime.started_hint.startswith("started: others can watch with p2pdice join")
        await until(lambda: _play_on(c), 40)
        c.ask_quit()
        assert c.mode() == "quit"
        c.answer_quit("e")
        assert c.runtime is None and c.ui.screen == "lobby"
        assert c.ui.message == "you ended the game: your table is closed"
        await c.finish_tasks(20)
        assert bot.wait(timeout=30) == 0, (tmp_path / "ann.out").read_text()
    finally:
        kill_all(bot)
        await runtime.close()
    log = _ended_game(table.folder / "log.jsonl")
    last = json.loads(log[-1])["event"]
    assert (last["type"], last["reason"]) == ("game_over", "abandoned"), last
    (mine,) = transcript_files(home / "seat")
    assert _ended_game(mine) == log  # the host's own seat holds the end too
    (theirs,) = transcript_files(tmp_path / "ann")
    assert theirs.read_bytes() == mine.read_bytes()
    capsys.readouterr()
    assert main(["verify", str(mine)]) == 0, capsys.readouterr().out
    assert c.ui.message == "you ended the game: your table is closed"  # nothing put it back
