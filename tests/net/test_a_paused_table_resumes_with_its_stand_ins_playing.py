"""A table paused and resumed while a host-run CPU stand-in plays an away player's seat: the
resumed host runs the stand-in again, with its key, its records and its round's secrets, and
the game goes on to its end.

Found by a tester (2 of 2): after a pause (`q`, `p`; or SIGTERM) and a resume (`r` in the
lobby, or `host --resume`), the table waited for ever for the stand-in, which nobody ran any
more: at its commitment, its turn to bid, or its opening. Every resume path opens the table
through `HostService.open_table`, as this test does.

Over real sockets: an in-process host with one CPU seat, and two real `p2pdice join --bot`
processes. Ann's is killed as round 1 is dealt; the host declares her absent after the grace
period, aborts the attempt she did not commit to, and seats a stand-in. The host pauses at the
step the case names, while the stand-in still owes its move there, and is resumed on its saved
log; the game ends, and every copy of the log (the other player's, the CPU's, the stand-in's)
is the host's and verifies.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase, TableState
from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.net.hostapp import HostedTable, HostService, TableConfig
from p2pdice.store import load_saved_table
from tests.support.procs import bot_join, kill_all, spawn
from tests.support.waiting import until

pytestmark = pytest.mark.usefixtures("private_network")

GRACE = 5  #: the shortest grace period: Ann is absent 5 s after she is gone


def _owes(step: str, state: TableState, seat: int) -> bool:
    """The table stands at `step`, with `seat`'s stand-in still owing its move there."""
    game, attempt = state.game, state.attempt
    if seat not in state.stand_ins or game is None or attempt is None:
        return False
    if step == "commit":
        return state.phase == TablePhase.COMMIT
    if step == "contribute":
        return state.phase == TablePhase.CONTRIBUTE
    if step == "bidding":
        return state.phase == TablePhase.BIDDING and game.turn == seat
    assert step == "showdown"
    return state.phase == TablePhase.SHOWDOWN and seat not in attempt.openings


def _on_change(table: HostedTable, act: Callable[[TableState], bool]) -> asyncio.Event:
    """Call `act` on every change of the table, at once (before the loop runs anything else),
    until it returns True; the event is set then."""
    done = asyncio.Event()

    def listener() -> None:
        if not done.is_set() and act(table.host.state):
            done.set()

    table.server.listeners.append(listener)
    return done


def _verified_copy(path: Path, log: bytes) -> None:
    assert path.read_bytes() == log, path
    lines, problem = split_lines(log)
    assert problem is None
    report = verify_lines(lines)
    assert report.ok, report.failure and report.failure.describe()
    assert report.ended == "finished", report.ended


@pytest.mark.parametrize("step", ["commit", "contribute", "bidding", "showdown"])
async def test_a_stand_in_seated_before_a_pause_plays_on_after_the_resume(
    tmp_path: Path, step: str
) -> None:
    home = tmp_path / "h"
    rules = Rules(seats=3, starting_dice=3, grace_period=GRACE)
    service = HostService(home=home, bind="127.0.0.1", advertise=False)
    await service.start()
    resumed: HostService | None = None
    procs: dict[str, subprocess.Popen[str]] = {}
    try:
        table = await service.open_table(TableConfig(name="Den", rules=rules, cpu=["easy"]))
        address = f"127.0.0.1:{service.port}"

        def join(name: str, seed: int) -> None:
            procs[name] = spawn(
                *bot_join(address, name=name, seed=seed, home=tmp_path / name, give_up=90),
                log=tmp_path / f"{name}.out",
            )

        # Ann dies as round 1 is dealt, before her client reads it: she never commits.
        def kill_ann(state: TableState) -> bool:
            if state.phase != TablePhase.COMMIT:
                return False
            os.kill(procs["Ann"].pid, signal.SIGKILL)
            return True

        ann_killed = _on_change(table, kill_ann)
        join("Ann", 3)
        await until(lambda: len(table.host.state.joins) == 1, 20)
        join("Bea", 5)
        await until(ann_killed.is_set, 30)
        ann = next(i for i, s in enumerate(table.host.state.roster) if s.name == "Ann")

        # Paused right where the stand-in owes its move: the table moves nothing from here on.
        def pause(state: TableState) -> bool:
            if not _owes(step, state, ann):
                return False
            table.server.freeze()
            return True

        paused = _on_change(table, pause)
        await until(lambda: paused.is_set() or table.host.phase == TablePhase.OVER, GRACE + 60)
        assert paused.is_set(), f"the game ended before its stand-in owed a {step}"
        port, table_id = service.port, table.id
        await service.stop(end_games=False)

        saved = load_saved_table(home, table_id)
        resumed = HostService(home=home, bind="127.0.0.1", port=port, advertise=False)
        await resumed.start()
        again = await resumed.open_table(
            TableConfig(name=saved.name, rules=Rules(), cpu=saved.cpu),
            resume_lines=saved.lines,
        )
        # Under a second here: Bea is back at once and the CPUs think for no time.
        await until(lambda: again.host.phase == TablePhase.OVER, 60)
        bea = procs["Bea"]
        await asyncio.to_thread(bea.wait, 60)
        assert bea.returncode == 0, (tmp_path / "Bea.out").read_text()
    finally:
        kill_all(*procs.values())
        for host in (service, resumed):
            if host is not None:
                await host.stop()

    folder = home / "hosted" / table_id
    log = (folder / "log.jsonl").read_bytes()
    assert log.startswith(b"".join(line + b"\n" for line in saved.lines))
    copies = sorted((folder / "cpu").glob(f"*/tables/{table_id}/transcript.jsonl"))
    labels = [copy.parents[2].name for copy in copies]
    assert labels == ["1", *[label for label in labels if label.startswith(f"standin-{ann}-")]]
    assert len(labels) == 2, labels  # the CPU and one stand-in, run again by the resumed host
    for path in [tmp_path / "Bea" / "tables" / table_id / "transcript.jsonl", *copies]:
        _verified_copy(path, log)
    # Ann's copy, as her killed client left it: a verified beginning of the same log.
    partial = (tmp_path / "Ann" / "tables" / table_id / "transcript.jsonl").read_bytes()
    assert log.startswith(partial)
    lines, problem = split_lines(partial)
    assert problem is None and verify_lines(lines, partial=True).ok
