"""The table screen says how the link to the table stands: connecting, refused, reconnecting,
lost or closed, from the session's facts and the table link's own state
(`OpenTable.link_state`, here the program's `cli.runtime.TableRuntime`)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from p2pdice.cli.runtime import TableRuntime
from p2pdice.net.client import Outcome
from p2pdice.ui.ports import LINK_ENDED, LINK_OPEN, LINK_OVER
from p2pdice.ui.snapshot import link_word
from p2pdice.ui.viewmodel import Snapshot, table_model

from .helpers import bidding, snap_of


def test_a_join_that_never_connected_says_it_gave_up() -> None:
    for link in ("lost", "closed"):
        line = table_model(Snapshot(phase="connecting", link=link)).turn_line
        assert line == "Could not reach the table: press q to go back.", link


def test_connecting_and_lost_links_keep_their_lines() -> None:
    assert table_model(Snapshot()).turn_line == "Connecting to the table..."
    assert table_model(Snapshot(link="connecting")).turn_line == "Connecting to the table..."
    lost = replace(snap_of(bidding()), link="lost")
    assert table_model(lost).turn_line.startswith("The host stopped answering.")
    refused = Snapshot(phase="connecting", link="lost", fatal=("bad_password", "wrong password"))
    assert table_model(refused).turn_line.startswith("Refused by the host:")


async def _runtime_whose_link(ends_with: str | None) -> TableRuntime:
    """A joined table whose link task has ended with `ends_with` (None: still running)."""
    gate = asyncio.Event()

    async def link() -> str:
        if ends_with is None:
            await gate.wait()
        return ends_with or ""

    runtime = TableRuntime(kind="join", sessions=[])
    runtime.link = asyncio.get_running_loop().create_task(link())
    await asyncio.sleep(0)
    return runtime


async def test_the_link_state_of_a_runtime_is_one_the_ui_words() -> None:
    running = await _runtime_whose_link(None)
    over = await _runtime_whose_link(Outcome.OVER)
    gave_up = await _runtime_whose_link(Outcome.GAVE_UP)
    local = TableRuntime(kind="practice", sessions=[])  # in-process links: no link task
    try:
        assert running.link_state() == LINK_OPEN and local.link_state() == LINK_OPEN
        assert over.link_state() == LINK_OVER and gave_up.link_state() == LINK_ENDED
        assert running.link is not None
        running.link.cancel()
        await asyncio.sleep(0)
        assert running.link_state() == LINK_ENDED  # closed by hand, before the game's end
    finally:
        for runtime in (running, over, gave_up):
            await runtime.close()


def test_a_session_reads_as_its_own_link_while_the_table_link_runs() -> None:
    reconnecting = replace(snap_of(bidding()), link="reconnecting")
    assert link_word(reconnecting, LINK_OPEN) == "reconnecting"
    assert link_word(Snapshot(link="connected"), LINK_OPEN) == "connected"


def test_an_ended_link_is_closed_after_the_games_end_and_lost_before_it() -> None:
    playing = snap_of(bidding())
    assert link_word(playing, LINK_ENDED) == "lost"
    assert link_word(playing, LINK_OVER) == "closed"
    assert link_word(replace(playing, finished=True), LINK_ENDED) == "closed"
