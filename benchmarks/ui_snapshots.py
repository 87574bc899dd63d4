"""Snapshot builds per event in the terminal client: per Enter, per arrow key, per idle second.

The real prompt_toolkit Application runs headless (a pipe input, DummyOutput, which still
draws every frame) at a practice table on this machine (loopback, no advertisement) where
we hold both seats and no CPU plays, so the table holds still at our turn. Every call
of `p2pdice.ui.snapshot.snapshot` (reading a session into a Snapshot) is counted:

- idle second: nothing pressed, the ticker running, builds over a few seconds / seconds;
- arrow key: the ticker paused, `up` pressed N times, each followed by its redraw;
- Enter: the ticker paused, Enter on the help screen (it closes the help: no move is sent,
  so no session update follows), each followed by its redraw, and Enter at the table that
  places a bid (the session updates it causes are counted too and reported beside it).

    python -m benchmarks.ui_snapshots [--quick] [--json]

Measured at dd7b1b6, before the UI became a reducer: 20 builds per idle second, 7 per arrow
key, 3 per Enter closing the help, 7 per Enter that bids (which causes 3 session updates).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import common
from .common import figure

SETTLE = 0.15  #: seconds after a key for its redraw (prompt_toolkit redraws within 0.05 s)


@dataclass
class Counter:
    """Snapshot builds and session updates since the last `reset`."""

    builds: int = 0
    updates: int = 0

    def reset(self) -> None:
        self.builds = self.updates = 0


@contextlib.contextmanager
def counting_snapshots() -> Iterator[Counter]:
    """Count every Snapshot built from a session, wherever the ui imported the builder."""
    import p2pdice.ui
    from p2pdice.ui import snapshot as snapshot_module

    counter = Counter()
    original = snapshot_module.snapshot

    def counted(*args: Any, **kwargs: Any) -> Any:
        counter.builds += 1
        return original(*args, **kwargs)

    holders = [snapshot_module]
    holders += [
        module
        for name, module in list(sys.modules.items())
        if name.startswith(p2pdice.ui.__name__ + ".")
        and module is not snapshot_module
        and getattr(module, "snapshot", None) is original
    ]
    for module in holders:
        module.snapshot = counted  # type: ignore[attr-defined]
    try:
        yield counter
    finally:
        for module in holders:
            module.snapshot = original  # type: ignore[attr-defined]


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

    from p2pdice.cli.runtime import start_practice
    from p2pdice.core.rules import Rules
    from p2pdice.ui.app import run_app
    from p2pdice.ui.text import ASCII

    rules = Rules(seats=2, starting_dice=5, kind="practice", undo=True, first_starter="seat0")

    def setup(c: Any, lobby: Any) -> None:
        lobby.open_table(
            lambda: start_practice(home, rules, [], 2, name="Bench"),
            "practice",
        )

    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        task = loop.create_task(
            run_app(home, setup, glyphs=ASCII, on_ready=lambda app, c: ready.set_result(c))
        )
        c = await asyncio.wait_for(ready, 10)
        ticker = next((t for t in asyncio.all_tasks() if t.get_name() == "ui-ticker"), None)
        try:
            yield Headless(c, inp.send_text, ticker)
        finally:
            c.exit_app(0)
            await asyncio.wait_for(task, 10)


async def measure(home: Path, *, idle_seconds: float, presses: int) -> dict[str, float]:
    with counting_snapshots() as counter:
        async with practice_app(home) as app:
            c = app.controller

            def my_turn() -> bool:
                return c.runtime is not None and c.mode() == "table" and c.my_turn()

            await app.until(my_turn)
            count_session_updates(c.sessions, counter)
            await asyncio.sleep(0.5)  # the first frames and the welcome's updates are drawn

            counter.reset()
            await asyncio.sleep(idle_seconds)
            idle = counter.builds / idle_seconds

            app.pause_ticker()
            await asyncio.sleep(SETTLE)
            counter.reset()
            for _ in range(presses):
                await app.press("\x1b[A")  # up: one more die in the selected bid
            arrow = counter.builds / presses

            enter_builds = 0
            for _ in range(presses):
                await app.press("?")  # the help screen ...
                counter.reset()
                await app.press("\r")  # ... closed by Enter
                enter_builds += counter.builds
            enter = enter_builds / presses

            counter.reset()
            await app.press("\r")  # the suggested bid
            await asyncio.sleep(0.5)  # its confirmation and the log entry arrive
            bid_builds, bid_updates = counter.builds, counter.updates
    return {
        "idle_second": idle,
        "arrow": arrow,
        "enter": enter,
        "bid_enter": float(bid_builds),
        "bid_enter_updates": float(bid_updates),
    }


def run(quick: bool = False) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="p2pdice-bench-ui-") as tmp:
        counts = asyncio.run(
            measure(Path(tmp), idle_seconds=2.0 if quick else 5.0, presses=5 if quick else 20)
        )

    def row(metric: str, value: float, notes: str = "") -> dict[str, Any]:
        return figure(
            "ui_snapshots",
            metric,
            "builds",
            {"n": 1, "median": value, "p99": value},
            targets=[("<= 1", "median", 1.0)],
            notes=notes,
        )

    figures = [
        row("snapshot builds per idle second", counts["idle_second"], "ticker at 4 Hz"),
        row("snapshot builds per arrow key", counts["arrow"], "ticker paused"),
        row("snapshot builds per Enter (closing help)", counts["enter"], "ticker paused"),
        row(
            "snapshot builds per Enter that bids",
            counts["bid_enter"] - counts["bid_enter_updates"],
            f"beyond one per session update ({counts['bid_enter']:.0f} builds for "
            f"{counts['bid_enter_updates']:.0f} updates)",
        ),
    ]
    return {"figures": figures, "details": {"counts": counts}}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("ui_snapshots", run, argv, needs_network=False)


if __name__ == "__main__":
    sys.exit(main())
