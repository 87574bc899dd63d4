"""The host at its own waiting screen is offered s once two are seated, and s starts the
table: the empty seats of a table opened with "Empty seats: easy" are taken by easy CPUs
first (SPEC.md 3.3). A real `join --bot` process is the second player."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.ui.viewmodel import table_model
from tests.support.procs import bot_join, kill_all, spawn
from tests.ui.test_lobby_actions import leave, lobby_at, opened, until


@pytest.mark.usefixtures("private_network")  # the hosted table is advertised
async def test_the_host_presses_s_and_easy_cpus_fill_the_empty_seats(tmp_path: Path) -> None:
    lobby = lobby_at(tmp_path / "me")
    c = lobby.c
    factory = lobby.services.host_table(
        name="kitchen", player="Zed", rules=Rules(seats=4), cpu=[], password=None,
        fill_level="easy",
    )  # fmt: skip
    lobby.open_table(factory, "opening your table")
    await opened(c)
    assert c.runtime is not None and c.runtime.service is not None
    [table] = c.runtime.service.tables.values()
    await until(lambda: len(table.host.state.joins) == 1)
    c.liar()  # no turns before the start: the screen says who starts the game
    assert c.ui.message == "the game has not started: press s to start it"
    c.start_game()  # alone: refused in words, nothing started
    assert "cannot start yet" in c.ui.message and table.host.phase == TablePhase.LOBBY
    address = f"127.0.0.1:{c.runtime.service.port}"
    bot = spawn(*bot_join(address, name="Ann", seed=3, home=tmp_path / "ann", give_up=20),
                log=tmp_path / "ann.out")  # fmt: skip
    try:
        await until(lambda: len(table.host.state.joins) == 2, 20)

        def screen():  # the waiting screen as drawn now (the controller caches per event)
            c._snap = None
            return table_model(c.snap())

        await until(lambda: "press s to start" in screen().turn_line, 10)
        assert ("s", "start") in screen().keys
        c.start_game()
        await until(lambda: table.host.phase != TablePhase.LOBBY, 20)
        roster = table.host.state.roster
        assert {"Zed", "Ann"} <= {s.name for s in roster}
        assert len(roster) == 4 and sum(1 for s in roster if s.host_run) == 2
        assert all("easy" in s.name for s in roster if s.host_run)
    finally:
        kill_all(bot)
        await leave(c)
