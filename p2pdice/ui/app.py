"""The prompt_toolkit Application: layout, keys and style over one UiState, run with asyncio.

Network work (the host, the table links, the lobby's browser and probes: started by the
command line's `setup` and its `LobbyServices`) runs as tasks on the same event loop as the
application (`run_async`), under `patch_stdout` so a stray print cannot tear the screen. A
ticker redraws a few times a second (turn timers, lobby liveness) and lets the controller
act on time (a cautious move when the timer runs out).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.patch_stdout import patch_stdout

from .controller import LOCAL_KINDS, Controller
from .keys import build_keys
from .layout import STYLE, build_layout
from .lobby import LobbyActions
from .ports import LobbyServices
from .state import UiState
from .text import ASCII, UNICODE, Glyphs

TICK = 0.25  #: seconds between redraws when nothing else happens


def pick_glyphs() -> Glyphs:
    """Unicode boxes and ticks when the locale says UTF-8 (as tmux decides), else ASCII."""
    if os.environ.get("P2PDICE_ASCII"):
        return ASCII
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(var)
        if value:
            return UNICODE if "utf-8" in value.lower() or "utf8" in value.lower() else ASCII
    return ASCII


def quiet_logging(home: Path) -> None:
    """Log to a file, never to the terminal the app draws on."""
    root = logging.getLogger()
    if root.handlers:
        return
    with contextlib.suppress(OSError):
        home.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(home / "ui.log", encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.WARNING)


def build_app(
    ui: UiState, services: LobbyServices
) -> tuple[Application[int], Controller, LobbyActions]:
    app: Application[int] | None = None

    def invalidate() -> None:
        if app is not None:
            app.invalidate()

    def exit_app(code: int) -> None:
        ui.exit_code = code
        if app is not None and app.is_running and app.future is not None and not app.future.done():
            app.exit(result=code)

    c = Controller(ui, invalidate=invalidate, exit_app=exit_app)
    lobby = LobbyActions(c, services)
    app = Application(
        layout=build_layout(c),
        key_bindings=build_keys(c),
        style=STYLE,
        full_screen=True,
        mouse_support=False,
    )
    app.ttimeoutlen = 0.05  # Esc answers at once
    return app, c, lobby


def terminal_gone(err: BaseException) -> bool:
    """`err` says the terminal was closed under the application: its input ended, or
    writing to it fails (EIO, a hung-up terminal)."""
    return isinstance(err, EOFError) or getattr(err, "errno", None) == errno.EIO


def leave_on_signal(c: Controller, sig: int) -> None:
    """The terminal closed (SIGHUP) or the program was told to stop (SIGTERM): leave as
    Ctrl-C does. A game on this machine only ends for the record in every copy (nobody could
    resume it); a hosted table is paused and a seat left to be taken back; the screen is
    restored when there is still one to restore."""
    c.leave_at_once(128 + sig)  # the shell's status for a program the signal ended


async def run_app(
    services: LobbyServices,
    setup: Callable[[Controller, LobbyActions], None],
    *,
    glyphs: Glyphs | None = None,
    on_ready: Callable[[Application[int], Controller], None] | None = None,
) -> int:
    """Run the application until it exits; `setup` opens the first screen's work, after
    the first frame is drawn; `services` are stopped when the application ends."""
    ui = UiState(glyphs=glyphs or pick_glyphs())
    app, c, lobby = build_app(ui, services)

    async def ticker() -> None:
        while True:
            await asyncio.sleep(TICK)
            c.tick()
            app.invalidate()

    tasks: list[asyncio.Task[None]] = []

    def pre_run() -> None:
        # After the first frame is drawn: start the network work, so the screen shows at once.
        tasks.append(asyncio.get_running_loop().create_task(ticker(), name="ui-ticker"))
        setup(c, lobby)
        if on_ready is not None:
            on_ready(app, c)

    try:
        with patch_stdout(raw=True):
            code = await app.run_async(pre_run=pre_run)
    except (EOFError, OSError) as err:
        if not terminal_gone(err):
            raise
        code = ui.exit_code  # a closed terminal: nothing is left to draw on or to tell
    finally:
        for task in tasks:
            task.cancel()
        await c.finish_tasks(10.0)  # a table left with q closes, its players told
        await services.stop()
        runtime = ui.runtime
        ui.runtime = None
        if runtime is not None:
            # Still open: Ctrl-C (or a closed terminal, a SIGTERM), not a chosen leave. A
            # hosted game stays resumable; a game on this machine only (practice,
            # pass-and-play) cannot be resumed, so it ends for the record as `q` would end
            # it, instead of leaving a log cut short.
            local = runtime.kind in LOCAL_KINDS
            with contextlib.suppress(Exception):
                await asyncio.wait_for(runtime.close(end_game=local), 5.0)
    if ui.farewell:
        with contextlib.suppress(OSError):  # the terminal may be gone
            print(ui.farewell, flush=True)
    return code if isinstance(code, int) else ui.exit_code
