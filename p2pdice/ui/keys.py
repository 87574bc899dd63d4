"""Key bindings as functions of the one UI state: filters read the controller's mode.

Letters are commands only while nothing is being typed: the number words a bid may start
with (one, two, ..., eight, eleven...) begin with o, t, f, s, e or n, so the table's
command letters avoid those (l Liar, x Exact, u undo, h odds, r review, v coach, q quit) and any
other letter or digit starts a typed bid. That is why Exact is `x`, not `e` ("eight 5s").
"""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable

from prompt_toolkit.filters import Condition, FilterOrBool
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from ..core.rules import TableKind
from .controller import Controller
from .lobby import LobbyActions
from .record import RECORD_FROM_LOBBY
from .review import open_coach
from .text import safe_text

log = logging.getLogger("p2pdice.ui")

#: Characters of one paste looked at (every field takes fewer).
PASTE_LIMIT = 400


def build_keys(c: Controller) -> KeyBindings:
    kb = KeyBindings()

    def modes(*names: str) -> Condition:
        return Condition(lambda: c.mode() in names)

    free = Condition(lambda: not c.typing())

    Action = Callable[[], None]

    def on(
        *keys: str | Keys, filter: FilterOrBool = True, eager: bool = False
    ) -> Callable[[Action], Action]:
        def register(fn: Action) -> Action:
            @kb.add(*keys, filter=filter, eager=eager)
            def _(event: KeyPressEvent) -> None:
                c.key_pressed()
                try:
                    fn()
                except Exception as err:  # never let a key press take the app down
                    log.exception("key %s failed", keys)
                    c.say(f"internal error: {safe_text(err, 160)}", error=True)
                c.refresh()  # the key's event is over: the next frame shows its outcome

            return fn

        return register

    @on("c-c")
    def _quit_now() -> None:
        c.leave_at_once(128 + signal.SIGINT)  # the shell's status for Ctrl-C

    @on("enter")
    def _enter() -> None:
        c.enter()

    @on(" ", filter=modes("pass"))
    def _take_device() -> None:
        c.take_device()

    @on("escape", eager=True)
    def _escape() -> None:
        c.escape()

    @on("backspace")
    def _backspace() -> None:
        c.backspace()

    # arrows: by screen
    @on("up")
    def _up() -> None:
        _arrow(c, 0, 1)

    @on("down")
    def _down() -> None:
        _arrow(c, 0, -1)

    @on("left")
    def _left() -> None:
        _arrow(c, -1, 0)

    @on("right")
    def _right() -> None:
        _arrow(c, 1, 0)

    @on("tab", filter=modes("table", "reveal", "live", "over"))
    def _tab() -> None:
        c.switch_seat()

    # the table
    @on("l", filter=free & modes("table"))
    def _liar() -> None:
        c.liar()

    @on("s", filter=free & modes("table"))
    def _start() -> None:
        c.start_game()

    @on("x", filter=free & modes("table"))
    def _exact() -> None:
        c.exact()

    @on("u", filter=free & modes("table", "pass"))
    def _undo() -> None:
        if c.mode() == "pass":
            c.undo(c.ui.holder)
        else:
            c.undo()

    @on("h", filter=free & modes("table", "live"))
    def _odds() -> None:
        c.toggle_odds()

    @on("r", filter=free & modes("table", "over", "live"))
    def _review() -> None:
        c.review()

    @on("v", filter=free & modes("reveal", "review", "over"))
    def _coach() -> None:
        open_coach(c)

    @on("n", filter=free & modes("over"))
    def _rematch() -> None:
        c.rematch()

    # Not on the too-small screen: nothing opens unseen behind it (only q, which it shows).
    @on("?", filter=free & ~modes("small"))
    def _help() -> None:
        c.ui.help = not c.ui.help

    @on("q", filter=free & ~modes("quit"))
    def _q() -> None:
        c.ask_quit()

    @on("y", filter=modes("quit"))
    def _yes() -> None:
        c.answer_quit("y")

    @on("p", filter=modes("quit"))
    def _pause() -> None:
        c.answer_quit("p")

    @on("e", filter=modes("quit"))
    def _end() -> None:
        c.answer_quit("e")

    @on("n", filter=modes("quit"))
    def _no() -> None:
        c.ui.quitting = False

    # the coach's page (after the table's keys: on its screen these win)
    for key, lines, pages in (("up", -1, 0), ("down", 1, 0), ("pageup", 0, -1), ("pagedown", 0, 1)):

        @on(key, filter=modes("coach"))
        def _scroll(lines: int = lines, pages: int = pages) -> None:
            if c.ui.coach is not None:
                c.ui.coach.scroll(lines, pages)

    @on("q", filter=modes("coach"))
    def _close_coach() -> None:
        c.ui.coach = None

    # the lobby
    lobby = free & modes("lobby")

    @on("s", filter=lobby)
    def _watch() -> None:
        _lobby(c).join_selected(spectate=True)

    @on("a", filter=lobby)
    def _address() -> None:
        _lobby(c).ask_address()

    @on("n", filter=lobby)
    def _host() -> None:
        _lobby(c).new_form(TableKind.STANDARD)

    @on("p", filter=lobby)
    def _practice() -> None:
        _lobby(c).new_form(TableKind.PRACTICE)

    @on("t", filter=lobby)
    def _pass_and_play() -> None:
        _lobby(c).new_form(TableKind.PASS_AND_PLAY)

    @on("l", filter=lobby)
    def _learn() -> None:
        # Here, not at the top: ui.learn is the whole course (its lessons and the graded
        # CPU), which the table screen's first frame need not wait for (docs/benchmarks.md).
        from .learn import LEARN_FROM_LOBBY

        c.exit_app(LEARN_FROM_LOBBY)  # the command line opens the course, then the lobby again

    @on("g", filter=lobby)
    def _record() -> None:
        c.exit_app(RECORD_FROM_LOBBY)  # the command line shows the record, then the lobby

    @on("r", filter=lobby)
    def _resume() -> None:
        _lobby(c).resume_hosted()

    @on("/", filter=lobby)
    def _search() -> None:
        _lobby(c).search()

    @kb.add(Keys.BracketedPaste)
    def _pasted(event: KeyPressEvent) -> None:
        """Pasted text is typed character by character where typing goes (a bid, a form, a
        prompt such as a password); a pasted line break presses nothing."""
        c.key_pressed()
        try:
            for ch in event.data[:PASTE_LIMIT]:
                if ch.isprintable():
                    c.type_char(ch)
        except Exception as err:
            c.say(f"internal error: {safe_text(err, 160)}", error=True)
        c.refresh()

    @kb.add(Keys.Any)
    def _typed(event: KeyPressEvent) -> None:
        c.key_pressed()
        data = event.data
        if len(data) == 1 and data.isprintable():
            try:
                c.type_char(data)
            except Exception as err:
                c.say(f"internal error: {safe_text(err, 160)}", error=True)
            c.refresh()

    return kb


def _lobby(c: Controller) -> LobbyActions:
    """The lobby's actions: the lobby screen exists only with them."""
    assert c.lobby is not None, "a lobby screen without the lobby's actions"
    return c.lobby


def _arrow(c: Controller, dx: int, dy: int) -> None:
    mode = c.mode()
    ui = c.ui
    if mode == "table":
        if c.my_turn():
            c.step(quantity=dy, face=dx)
    elif mode == "lobby":
        ui.book.move(-dy)
    elif mode == "form" and ui.form is not None:
        if dy:
            ui.form.move(-dy)
        else:
            ui.form.change(dx)
    elif mode in ("reveal", "review") and dx:
        c.review(dx)
