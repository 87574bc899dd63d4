"""Driving the real Application headless: prompt_toolkit pipe input and DummyOutput."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pdice.cli.lobby import CliLobby
from p2pdice.cli.runtime import start_pass_and_play
from p2pdice.core.rules import Rules
from p2pdice.ui.app import run_app
from p2pdice.ui.controller import PASS_PAUSE, Controller
from p2pdice.ui.frame import render_screen
from p2pdice.ui.screens import plain
from p2pdice.ui.text import ASCII


@dataclass
class Driver:
    c: Controller
    services: CliLobby
    send: Callable[[str], None]
    task: asyncio.Task[int]

    def screen(self) -> str:
        return plain(render_screen(self.c, 80, 24))

    async def until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not predicate():
            assert loop.time() < end, f"timed out; mode {self.c.mode()}\n{self.screen()}"
            assert not self.task.done(), "the app exited"
            await asyncio.sleep(0.02)

    async def press(self, keys: str) -> None:
        self.send(keys)
        await asyncio.sleep(0.05)

    async def take_the_device(self) -> None:
        """Pass-and-play: Space on a pass screen, after the pause it asks for."""
        await asyncio.sleep(PASS_PAUSE + 0.05)
        await self.press(" ")


@contextlib.asynccontextmanager
async def headless(home: Path, setup) -> AsyncIterator[Driver]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        ready: asyncio.Future[Controller] = asyncio.get_running_loop().create_future()
        services = CliLobby(home)
        task = asyncio.create_task(
            run_app(services, setup, glyphs=ASCII, on_ready=lambda app, c: ready.set_result(c))
        )
        c = await asyncio.wait_for(ready, 5)
        driver = Driver(c, services, inp.send_text, task)
        try:
            yield driver
        finally:
            if not task.done():
                c.exit_app(0)
            await asyncio.wait_for(task, 10)


def pass_and_play_setup(home: Path, rules: Rules, players: list[str], cpu: list[str] = []):  # noqa: B006
    """The setup of `headless` that opens a pass-and-play table whose CPUs answer at once."""

    def setup(c, lobby) -> None:
        lobby.open_table(
            lambda: start_pass_and_play(home, rules, players, cpu, cpu_think=0), "pass and play"
        )

    return setup
