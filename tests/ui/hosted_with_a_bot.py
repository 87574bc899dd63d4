"""A table this process hosts from its lobby, with a real `join --bot` process as the other
player: what the tests of a hosted table's end share."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from p2pdice.cli.runtime import TableRuntime
from p2pdice.core.rules import Rules
from p2pdice.net.hostapp import HostedTable
from p2pdice.ui.controller import Controller
from tests.support.procs import bot_join, spawn
from tests.ui.test_lobby_actions import lobby_at, opened


@dataclass
class Hosted:
    c: Controller
    runtime: TableRuntime
    table: HostedTable
    bot: subprocess.Popen[str]


def fresh(c: Controller) -> Controller:
    c._snap = None  # the controller keeps one snapshot per event; these checks are events
    return c


async def host_with_a_bot(
    home: Path, tmp_path: Path, *, name: str, rules: Rules, seed: int, give_up: int
) -> Hosted:
    """Zed (us, at `home`) hosts `name` from the lobby; Ann, a bot process at tmp_path/ann,
    joins it by address (its output in tmp_path/ann.out). The caller kills the bot and
    closes the runtime."""
    lobby = lobby_at(home)
    c = lobby.c
    factory = lobby.services.host_table(name=name, player="Zed", rules=rules, cpu=[], password=None)
    lobby.open_table(factory, "opening your table")
    await opened(c)
    runtime = c.runtime
    assert runtime is not None and runtime.service is not None
    [table] = runtime.service.tables.values()
    address = f"127.0.0.1:{runtime.service.port}"
    bot = spawn(*bot_join(address, name="Ann", seed=seed, home=tmp_path / "ann", give_up=give_up),
                log=tmp_path / "ann.out")  # fmt: skip
    return Hosted(c, runtime, table, bot)
