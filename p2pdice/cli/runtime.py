"""Tables this terminal plays at: practice, pass-and-play, a hosted table, or a joined one.

A `TableRuntime` owns the sessions this device holds (one per seat it plays), their links
(in-process `LocalClient`s, or a reconnecting WebSocket) and, when this machine hosts, the
`HostService`. Practice and pass-and-play tables are hosted on loopback only, without an
advertisement, so they work with no network at all. Each seat has its own identity key in
its own folder, as a player on another device would. The terminal client sees a runtime
as a `ui.ports.OpenTable` and its sessions as `ui.ports.TableSession`s.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.clean import clean_name
from ..core.rules import Rules
from ..core.table import TablePhase
from ..net.client import LocalClient, Outcome, hold_the_end, run_websocket
from ..net.hostapp import HostedTable, HostService, TableConfig
from ..net.session import ClientSession
from ..store import load_or_create_key
from .common import (
    CPU_THINK,
    LOCAL_TABLES,
    hosting_seat_home,
    listen_failure,
    local_host_home,
    local_seat_home,
)
from .options import CliError

log = logging.getLogger("p2pdice.host")


def default_name() -> str:
    """The login name, cleaned, as a default player name."""
    with contextlib.suppress(Exception):
        import getpass

        return clean_name(getpass.getuser(), 24) or "player"
    return "player"


@dataclass
class TableRuntime:
    kind: str  #: "practice", "pass_and_play", "host", "join" or "spectate"
    sessions: list[ClientSession]
    service: HostService | None = None
    clients: list[LocalClient] = field(default_factory=list)
    link: asyncio.Task[str] | None = None
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    #: A new table with the same settings and people (the rematch key at game over).
    rematch: Callable[[], Awaitable[TableRuntime]] | None = None
    hint: str = ""  #: for the message line once the table is open (where others join)
    started_hint: str = ""  #: the line that replaces `hint` once the game has started

    @property
    def outcome(self) -> str | None:
        if self.link is None or not self.link.done() or self.link.cancelled():
            return None
        return self.link.result() if self.link.exception() is None else Outcome.GAVE_UP

    def link_state(self) -> str:
        """`ui.ports.OpenTable.link_state`: the link's own state; how a session's connection
        reads on screen is the ui's to say, from the session's facts."""
        if self.link is None or not self.link.done():
            return "open"
        return "over" if self.outcome == Outcome.OVER else "ended"

    def cpu_plan(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """`ui.ports.OpenTable.cpu_plan`: the hosted table's CPU levels, for its waiting
        screen (the transcript has only how many there are until they sit down)."""
        for table in self.service.tables.values() if self.service is not None else ():
            fill = table.config.fill_levels if table.host.state.cpu_fill else None
            return tuple(table.config.cpu), tuple(fill or ())
        return (), ()

    def players_behind(self) -> tuple[str, ...]:
        """`ui.ports.OpenTable.players_behind`: who is away without the end of this hosted
        table's game (not those whose client is closing as it ends)."""
        for table in self.service.tables.values() if self.service is not None else ():
            return table.server.names(table.server.players_away())
        return ()

    def start_game(self) -> None:
        """A hosted table's start (the waiting screen's s): LocalError in words when the
        seats taken cannot start a game; nothing on a table this device does not host."""
        if self.service is not None:
            for table in self.service.tables.values():
                table.start_game()

    async def close(self, *, end_game: bool = True) -> None:
        """Close the links and any hosted table; `end_game` False leaves a hosted game
        resumable (Ctrl-C), where True ends it (the player chose to leave it). A game this
        device hosts is ended while its own seats are still at the table, and they take in
        its end before their links close: every copy here holds the `game_over`."""
        self.stop.set()
        if self.link is not None:
            self.link.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.link
        if self.service is not None:
            try:
                await self._end_here(end_game)
            except Exception:  # the table still closes below (and ends its game if it can)
                log.exception("ending the table's game here failed")
        for client in self.clients:
            with contextlib.suppress(Exception):
                await client.stop()
        if self.service is not None:
            with contextlib.suppress(Exception):
                await self.service.stop(end_games=end_game)
        for session in self.sessions:
            with contextlib.suppress(Exception):
                await session.aclose()

    async def _end_here(self, end_game: bool) -> None:
        """End the hosted games (with `end_game`), then let this device's seats at a finished
        one hold its end (the host's own player, each person at a practice table)."""
        assert self.service is not None
        tables = list(self.service.tables.values())
        if end_game:
            for table in tables:
                table.end_game()
        if any(table.host.phase == TablePhase.OVER for table in tables):
            await hold_the_end(self.clients)


async def _seat_session(home: Path, name: str, **kw: Any) -> ClientSession:
    # The key is created (written and fsynced) on first use: off the loop.
    key = await asyncio.to_thread(load_or_create_key, home / "identity.key")
    return ClientSession(key=key, name=clean_name(name) or "player", home=home, **kw)


async def _open_seated(
    runtime: TableRuntime,
    config: TableConfig,
    players: list[ClientSession],
    *,
    resume_lines: list[bytes] | None = None,
) -> HostedTable:
    """Open a table this device hosts with its own `players` seated first (the host's own
    player first), over in-process links, before anyone else can join (HostService)."""
    assert runtime.service is not None
    runtime.sessions += players  # closed with the runtime, even when the table fails to open
    table = await runtime.service.open_table(config, resume_lines=resume_lines, players=players)
    runtime.clients += table.player_clients
    return table


async def local_table(
    base: Path,
    *,
    name: str,
    rules: Rules,
    cpu: list[str],
    humans: list[str],
    kind: str,
    cpu_think: float,
) -> TableRuntime:
    """A table on this machine only (loopback, not advertised) with `humans` seated on this
    screen and `cpu` players: what practice, pass-and-play and the graded match play on."""
    service = HostService(home=local_host_home(base), bind="127.0.0.1", advertise=False)
    await service.start()
    runtime = TableRuntime(kind=kind, sessions=[], service=service)
    try:
        people = [
            await _seat_session(local_seat_home(base, i), who) for i, who in enumerate(humans, 1)
        ]
        await _open_seated(
            runtime, TableConfig(name=name, rules=rules, cpu=cpu, cpu_think=cpu_think), people
        )
    except BaseException:
        await runtime.close()
        raise
    return runtime


async def start_practice(
    home: Path,
    rules: Rules,
    cpu: list[str],
    humans: int = 1,
    *,
    name: str | None = None,
    cpu_think: float = CPU_THINK,
) -> TableRuntime:
    """A table on loopback against CPU players; the owner holds `humans` seats."""
    base = clean_name(name or "", 20) or clean_name(default_name(), 20)
    names = [base] if humans == 1 else [f"{base} {i}" for i in range(1, humans + 1)]
    runtime = await local_table(
        home / LOCAL_TABLES["practice"],
        name="Practice",
        rules=rules,
        cpu=cpu,
        humans=names,
        kind="practice",
        cpu_think=cpu_think,
    )
    runtime.rematch = lambda: start_practice(
        home, rules, cpu, humans, name=name, cpu_think=cpu_think
    )
    return runtime


async def start_pass_and_play(
    home: Path, rules: Rules, players: list[str], cpu: list[str], *, cpu_think: float = CPU_THINK
) -> TableRuntime:
    """Several people on this device (one seat each) and CPU seats, on loopback."""
    runtime = await local_table(
        home / LOCAL_TABLES["pass_and_play"],
        name="Pass and play",
        rules=rules,
        cpu=cpu,
        humans=players,
        kind="pass_and_play",
        cpu_think=cpu_think,
    )
    runtime.rematch = lambda: start_pass_and_play(home, rules, players, cpu, cpu_think=cpu_think)
    return runtime


async def start_hosting(
    home: Path,
    *,
    name: str,
    player: str,
    rules: Rules,
    cpu: list[str],
    password: str | None,
    bind: str | None = None,
    port: int = 0,
    advertise: bool = True,
    resume_lines: list[bytes] | None = None,
    port_fallback: bool = False,
    cpu_think: float = CPU_THINK,
    fill_level: str | Sequence[str] | None = None,
    start_when: int | None = None,
) -> TableRuntime:
    """Host a table on the LAN and sit at it (the host's own seat is an in-process link,
    the first seat taken); `port_fallback`: any free port when `port` is taken (see
    HostService); `fill_level`: the level, or the levels in seat order, of the CPUs that take
    the seats still empty at the start (None: left out)."""
    service = HostService(
        home=home, bind=bind, port=port, advertise=advertise, port_fallback=port_fallback
    )
    try:
        await service.start()
    except (OSError, OverflowError) as err:
        with contextlib.suppress(Exception):
            await service.stop(end_games=False)
        raise CliError(listen_failure(err, port=port, bind=bind)) from None
    runtime = TableRuntime(kind="host", sessions=[], service=service)
    fill = [fill_level] if isinstance(fill_level, str) else fill_level
    try:
        me = await _seat_session(hosting_seat_home(home), player, password=password)
        config = TableConfig(
            name=name,
            rules=rules,
            cpu=cpu,
            password=password,
            cpu_think=cpu_think,
            fill_levels=list(fill) if fill is not None else None,
            start_when=start_when,
        )
        await _open_seated(runtime, config, [me], resume_lines=resume_lines)
    except BaseException:
        await runtime.close()
        raise
    return runtime


async def start_join(
    home: Path,
    *,
    url: str,
    name: str,
    password: str | None,
    spectate: bool,
    table_id: bytes | None,
    give_up_after: float = 120.0,
) -> TableRuntime:
    """Join (or watch) a table over the network, reconnecting after drops."""
    session = await _seat_session(
        home,
        name,
        password=password,
        mode="spectate" if spectate else "play",
        expect_table=table_id,
    )
    runtime = TableRuntime(kind="spectate" if spectate else "join", sessions=[session])
    runtime.link = asyncio.get_running_loop().create_task(
        run_websocket(session, url, give_up_after=give_up_after, stop=runtime.stop),
        name="table-link",
    )
    return runtime
