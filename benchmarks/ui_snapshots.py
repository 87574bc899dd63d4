"""Snapshots per event in the terminal client: per Enter, per arrow key, per idle second.

The real prompt_toolkit Application runs headless (a pipe input, DummyOutput, which still
draws every frame) at a practice table on this machine (loopback, no advertisement) where
we hold both seats and no CPU plays, so the table holds still at our turn. Two things are
counted: session reads (calls of `p2pdice.ui.snapshot.snapshot`, which copies a session's
facts into a Snapshot) and snapshots made (reads, plus `p2pdice.ui.snapshot.project`, which
fits the last reading to an event without reading the session again):

- idle second: nothing pressed, the ticker running, counts over a few seconds / seconds;
- arrow key: the ticker paused, `up` pressed N times, each followed by its redraw;
- Enter: the ticker paused, Enter on the help screen (it closes the help: no move is sent,
  so no session update follows), each followed by its redraw, and Enter at the table that
  places a bid (the session updates it causes are counted too and reported beside it).

    python -m benchmarks.ui_snapshots [--quick] [--json]

Measured at dd7b1b6, before the UI became a reducer (where every snapshot was a session
read): 20 reads per idle second (5 a tick at this two-seat table: 4 with one seat), 7 per
arrow key, 3 per Enter closing the help, 7 per Enter that bids (which causes 3 session
updates). After: 0 reads per idle second, arrow key or
Enter closing the help, and 3 reads for the bidding Enter and its 3 updates (the event step
reads each session that reported a change once per burst); one snapshot drawn per event (4 per
idle second: one per tick, 1 per key).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from . import common
from .common import figure

SETTLE = 0.15  #: seconds after a key for its redraw (prompt_toolkit redraws within 0.05 s)


@dataclass
class Counter:
    """Session reads, snapshots made and session updates since the last `reset`."""

    reads: int = 0
    snapshots: int = 0
    updates: int = 0

    def reset(self) -> None:
        self.reads = self.snapshots = self.updates = 0


def _wrap_everywhere(
    module: ModuleType, name: str, count: Callable[[], None]
) -> Callable[[], None]:
    """Replace `module.name` by a counting wrapper in every ui module that imported it;
    returns the undo."""
    import p2pdice.ui

    original = getattr(module, name, None)
    if original is None:  # the code measured has no such step (before the reducer: project)
        return lambda: None

    def counted(*args: Any, **kwargs: Any) -> Any:
        count()
        return original(*args, **kwargs)

    holders = [
        held
        for held_name, held in list(sys.modules.items())
        if held_name.startswith(p2pdice.ui.__name__ + ".") and getattr(held, name, None) is original
    ]
    for held in holders:
        setattr(held, name, counted)

    def undo() -> None:
        for held in holders:
            setattr(held, name, original)

    return undo


@contextlib.contextmanager
def counting_snapshots() -> Iterator[Counter]:
    """Count every session read and every snapshot made, wherever the ui imported them."""
    from p2pdice.ui import controller, snapshot

    assert controller  # imported so that its names are patched too
    counter = Counter()

    def read() -> None:
        counter.reads += 1
        counter.snapshots += 1

    def projected() -> None:
        counter.snapshots += 1

    undo = [
        _wrap_everywhere(snapshot, "snapshot", read),
        _wrap_everywhere(snapshot, "project", projected),
    ]
    try:
        yield counter
    finally:
        for step in undo:
            step()


def count_session_updates(sessions: Sequence[Any], counter: Counter) -> None:
    """Wrap each session's update callback (set when the table opened) to count calls."""
    for session in sessions:
        inner = session.on_update

        def counted(inner: Callable[[], None] | None = inner) -> None:
            counter.updates += 1
            if inner is not None:
                inner()

        session.on_update = counted


@dataclass
class Headless:
    controller: Any
    send: Callable[[str], None]
    ticker: asyncio.Task[Any] | None

    async def until(self, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate():
            if loop.time() > end:
                raise TimeoutError("the practice table did not reach our turn")
            await asyncio.sleep(0.02)

    async def press(self, keys: str) -> None:
        self.send(keys)
        await asyncio.sleep(SETTLE)

    def pause_ticker(self) -> None:
        if self.ticker is not None:
            self.ticker.cancel()


@contextlib.asynccontextmanager
async def practice_app(home: Path) -> AsyncIterator[Headless]:
    """The Application at a practice table of two seats, both ours, seat 0 to open."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from p2pdice.cli.lobby import CliLobby
    from p2pdice.cli.runtime import start_practice
    from p2pdice.core.rules import FirstStarter, Rules, TableKind
    from p2pdice.ui.app import run_app
    from p2pdice.ui.text import ASCII

    rules = Rules(
        seats=2,
        starting_dice=5,
        kind=TableKind.PRACTICE,
        undo=True,
        first_starter=FirstStarter.SEAT0,
    )

    def setup(c: Any, lobby: Any) -> None:
        lobby.open_table(
            lambda: start_practice(home, rules, [], 2, name="Bench"),
            "practice",
        )

    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        task = loop.create_task(
            run_app(
                CliLobby(home), setup, glyphs=ASCII, on_ready=lambda app, c: ready.set_result(c)
            )
        )
        c = await asyncio.wait_for(ready, 10)
        ticker = next((t for t in asyncio.all_tasks() if t.get_name() == "ui-ticker"), None)
        try:
            yield Headless(c, inp.send_text, ticker)
        finally:
            c.exit_app(0)
            await asyncio.wait_for(task, 10)


async def measure(home: Path, *, idle_seconds: float, presses: int) -> dict[str, float]:
    """Per event: session reads ("*_reads") and snapshots made ("*_snapshots")."""
    out: dict[str, float] = {}
    with counting_snapshots() as counter:
        async with practice_app(home) as app:
            c = app.controller

            def my_turn() -> bool:
                return c.runtime is not None and c.mode() == "table" and c.my_turn()

            def record(what: str, per: float) -> None:
                out[f"{what}_reads"] = counter.reads / per
                out[f"{what}_snapshots"] = counter.snapshots / per

            await app.until(my_turn)
            count_session_updates(c.sessions, counter)
            await asyncio.sleep(0.5)  # the first frames and the welcome's updates are drawn

            counter.reset()
            await asyncio.sleep(idle_seconds)
            record("idle_second", idle_seconds)

            app.pause_ticker()
            await asyncio.sleep(SETTLE)
            counter.reset()
            for _ in range(presses):
                await app.press("\x1b[A")  # up: one more die in the selected bid
            record("arrow", presses)

            reads = snapshots = 0
            for _ in range(presses):
                await app.press("?")  # the help screen ...
                counter.reset()
                await app.press("\r")  # ... closed by Enter
                reads, snapshots = reads + counter.reads, snapshots + counter.snapshots
            out["enter_reads"], out["enter_snapshots"] = reads / presses, snapshots / presses

            counter.reset()
            await app.press("\r")  # the suggested bid
            await asyncio.sleep(0.5)  # its confirmation and the log entry arrive
            record("bid_enter", 1)
            out["bid_enter_updates"] = counter.updates
    return out


def run(quick: bool = False) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-ui-") as tmp:
        counts = asyncio.run(
            measure(Path(tmp), idle_seconds=2.0 if quick else 5.0, presses=5 if quick else 20)
        )

    def row(metric: str, value: float, limit: float, notes: str) -> dict[str, Any]:
        return figure(
            "ui_snapshots",
            metric,
            "",
            {"n": 1, "median": value, "p99": value},
            targets=[(f"<= {limit:g}", "median", limit)],
            notes=notes,
        )

    updates = counts["bid_enter_updates"]
    figures = []
    for what, label, events, notes in (
        ("idle_second", "idle second", 4.0, "ticker at 4 Hz: 4 events"),
        ("arrow", "arrow key", 1.0, "ticker paused"),
        ("enter", "Enter closing the help", 1.0, "ticker paused"),
        ("bid_enter", "Enter that bids", 1.0 + updates, f"and its {updates:.0f} session updates"),
    ):
        figures.append(row(f"session reads per {label}", counts[f"{what}_reads"], events, notes))
        figures.append(row(f"snapshots per {label}", counts[f"{what}_snapshots"], events, notes))
    return {"figures": figures, "details": {"counts": counts}}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("ui_snapshots", run, argv, needs_network=False)


if __name__ == "__main__":
    sys.exit(main())
