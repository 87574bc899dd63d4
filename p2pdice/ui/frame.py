"""The whole screen for the current mode: body, message line and hint bar, as lines.

`render_screen` is what the prompt_toolkit layout shows and what tests read as plain text;
it asks the controller for the mode and the snapshot, and the pure models for the rest.
A failure while drawing becomes an error line, never a crash.
"""

from __future__ import annotations

import logging

from ..core.game import Phase
from .controller import Controller
from .panels import (
    CONFIRM_KEYS,
    FORM_KEYS,
    LOBBY_KEYS,
    render_confirm,
    render_form,
    render_help,
    render_lobby,
    render_lobby_help,
    render_message_screen,
    render_prompt,
)
from .reveal import game_over_model, pass_model, reveal_model
from .review import COACH_KEY, COACH_KEYS, coached_seats, render_coach
from .screens import (
    Line,
    keys_line,
    render_game_over,
    render_pass,
    render_reveal,
    render_table,
    wrap,
)
from .text import fit, safe_text
from .viewmodel import next_round_line, table_model

log = logging.getLogger("p2pdice.ui")

#: The smallest terminal every screen is drawn for; below it the screen says so instead of
#: losing lines (the bid entry, the key bar) without a word.
MIN_COLUMNS, MIN_ROWS = 80, 24

PROMPT_KEYS = (("Enter", "confirm"), ("Esc", "cancel"))
HELP_KEYS = (("Esc", "close help"), ("?", "close help"))
QUIT_KEYS = (("y", "leave the table"), ("n", "stay"))
HOST_QUIT_KEYS = (("p", "pause the table"), ("e", "end the game"), ("n", "stay"))
#: What `q` asks at a table we host for players on other machines.
HOST_QUIT_TEXT = (
    "Leave your table? p pauses it: every player is told at once and waits, and you resume "
    "it later (r in the lobby, or p2pdice host --resume). e ends the game for everyone: it "
    "is recorded as ended by the host and cannot be resumed. n stays."
)


Keys = tuple[tuple[str, str], ...]


def body(c: Controller, columns: int, height: int) -> tuple[list[Line], Keys]:
    """The main area and the keys that make sense in it."""
    ui = c.ui
    size = {"columns": columns, "height": height}
    g = ui.glyphs
    mode = c.mode()
    if mode == "prompt" and ui.prompt is not None:
        return render_prompt(ui.prompt, **size, glyphs=g), PROMPT_KEYS
    if mode == "quit":
        title, text, answers = quit_question(c)
        return render_message_screen(title, text, **size, glyphs=g), answers
    if mode == "lobby":
        rows = ui.book.rows()
        lobby = render_lobby(
            rows, ui.book.selected, ui.lobby_note, **size, glyphs=g, query=ui.book.query
        )
        return lobby, LOBBY_KEYS
    if mode == "form" and ui.form is not None:
        keys: Keys = (
            FORM_KEYS
            if not ui.form.current.text
            else (("type", "text"), *FORM_KEYS[:1], ("Enter", "review"), ("Esc", "back"))
        )
        return render_form(ui.form, **size, glyphs=g), keys
    if mode == "confirm" and ui.form is not None:
        rules = ui.form.check()
        if rules is not None:
            return render_confirm(ui.form, rules, **size, glyphs=g), CONFIRM_KEYS
    if mode == "starting":
        text = ui.message or "Opening the table..."
        return render_message_screen("p2pdice", text, **size, glyphs=g), (("q", "quit"),)
    if mode == "help" and ui.screen == "lobby":
        return render_lobby_help(**size, glyphs=g), HELP_KEYS
    snap = c.snap()
    if mode == "help":
        waiting = snap.phase == "lobby"
        help_screen = render_help(
            snap.rules,
            **size,
            glyphs=g,
            several=snap.switches_seats,
            waiting=waiting,
            hosting=snap.can_start,
            watching=not c.seats(),  # no seat here: no bid, call or undo to offer
        )
        return help_screen, HELP_KEYS
    if mode == "pass":
        to = c.pass_to(snap)
        passing = pass_model(snap, to if to is not None else 0, previous=ui.holder)
        return render_pass(passing, **size, glyphs=g), passing.keys
    if mode == "coach" and ui.coach is not None:
        return render_coach(ui.coach, **size, glyphs=g), COACH_KEYS
    if mode in ("reveal", "review", "live"):
        view = snap.view
        index: int | None = None
        if mode == "review":
            index = ui.review
        elif mode == "reveal" and view is not None:
            index = len(view.results) - 1
        starter_here = view is not None and view.next_starter in c.seats()
        reveal = reveal_model(snap, index, starter_here=starter_here)
        if reveal is not None:
            keys = reveal.keys
            if mode == "review":
                keys = (("left/right", "other rounds"), ("Esc", "back"), ("q", "quit"))
            if mode != "live" and coached_seats(snap):  # a watcher has no decisions
                keys = (*keys[:1], COACH_KEY, *keys[1:])
            return render_reveal(reveal, **size, glyphs=g), keys
    if mode == "over":
        runtime = c.runtime
        over = game_over_model(
            snap,
            rematch=runtime is not None and runtime.rematch is not None,
            behind=c.players_behind(),
        )
        keys = over.keys
        if snap.view is not None and snap.view.results and coached_seats(snap):
            keys = (*keys[:1], COACH_KEY, *keys[1:])
        return render_game_over(over, **size, glyphs=g), keys
    table = table_model(snap, ui.entry, columns=columns)
    return render_table(table, **size, glyphs=g), table.keys


def quit_question(c: Controller) -> tuple[str, str, Keys]:
    """What `q` asks, by whose table it is and whether its game is over: its title, its
    words and the keys that answer it."""
    if c.hosting and c.finished():
        behind = c.players_behind()
        if not behind:
            return "Leave your table?", "Everyone has the end of the game. y leaves.", QUIT_KEYS
        who = ", ".join(behind)
        text = (
            f"{who} {'does' if len(behind) == 1 else 'do'} not have the end of the game yet:"
            " they are away (a dropped connection, or they left), and your table is where"
            " they get it if they come back. y leaves now (their copy stops before the end;"
            " yours holds the whole game). n stays and keeps the table open for them."
        )
        return "Leave your table?", text, QUIT_KEYS
    if c.hosting:
        return "Leave your table?", HOST_QUIT_TEXT, HOST_QUIT_KEYS
    text = "Leave this table? Your seat keeps its dice for the grace period if you come back."
    if c.local:
        text = "Leave this table? It is on this machine only, so the game ends."
    return "Leave the table?", text, QUIT_KEYS


def too_small(c: Controller, columns: int, rows: int) -> list[Line]:
    """What a terminal below 80x24 shows: the size it needs, and how to quit."""
    if c.mode() == "quit":
        text = "Leave the table? y leaves, n stays."
        if c.hosting and c.finished():
            text = "Leave your table? y leaves, n stays."
        elif c.hosting:
            text = "Leave your table? p pauses it, e ends the game, n stays."
    else:
        text = too_small_words(columns, rows) + " (the table carries on)."
    keys = quit_question(c)[2] if c.mode() == "quit" else (("q", "quit"),)
    return too_small_screen(text, keys, columns, rows)


def too_small_words(
    columns: int, rows: int, needs: tuple[int, int] = (MIN_COLUMNS, MIN_ROWS)
) -> str:
    """Why a terminal of `columns` x `rows` shows no screen, when the screen `needs` more."""
    return (
        f"Terminal too small: {columns}x{rows}. p2pdice needs at least {needs[0]}x{needs[1]};"
        " make the window larger"
    )


def too_small_screen(text: str, keys: Keys, columns: int, rows: int) -> list[Line]:
    """The screen that replaces one the terminal is too small for: `text`, then the keys
    that still act there."""
    lines = [[("class:error", line)] for line in wrap(text, max(columns - 1, 1))]
    body_rows = max(rows - 1, 0)
    lines = (lines + [[("", "")]] * body_rows)[:body_rows]
    return [*lines, keys_line(keys, columns)]


def waiting_on_us(c: Controller) -> str:
    """On screens that hide the table (review, help): the table waits for us, say so."""
    try:
        if c.mode() not in ("review", "coach", "help") or c.runtime is None:
            return ""
        snap = c.snap()
        view = snap.view
        if view is None:
            return ""
        if view.phase == Phase.BIDDING and view.my_turn and snap.me not in (None, *snap.absent):
            return "It is your turn: Esc goes back to the table."
        if view.phase == Phase.ROUND_OVER and view.next_starter in snap.mine:
            return next_round_line(snap) + " Esc first."
    except Exception:  # a hint must never break the screen
        log.exception("waiting hint failed")
    return ""


def render_screen(c: Controller, columns: int = 80, rows: int = 24) -> list[Line]:
    """Every line of the terminal: the body, then the message line and the hint bar."""
    if columns < MIN_COLUMNS or rows < MIN_ROWS:
        return too_small(c, columns, rows)
    height = max(rows - 2, 1)
    try:
        lines, keys = body(c, columns, height)
    except Exception as err:
        log.exception("drawing failed")
        lines, keys = (
            [[("class:error", fit(f" display error: {safe_text(err, 200)}", columns))]],
            (("q", "quit"),),
        )
    lines = lines + [[("", "")]] * (height - len(lines))
    text, style = c.ui.message, c.ui.message_style
    if not text and c.runtime is not None and c.snap().host_closing == "ended":
        text, style = "the host ended the game: it cannot be resumed", "class:notice"
    if not text:
        text, style = waiting_on_us(c), "class:turnline"
    message = [(style, fit(" " + text, columns))] if text else [("", "")]
    return [*lines, message, keys_line(keys, columns)]
