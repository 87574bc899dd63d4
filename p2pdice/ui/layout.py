"""The prompt_toolkit layout and style: one window drawing `frame.render_screen`.

Monochrome terminals lose nothing: every marker is in the text (see `screens`); the style
only adds colour and emphasis.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style

from .controller import Controller
from .frame import MIN_COLUMNS, MIN_ROWS, render_screen, too_small_screen, too_small_words
from .screens import Line, fragments

STYLE = Style.from_dict(
    {
        "title": "bold",
        "subtitle": "",
        "code": "reverse bold",
        "rule": "fg:ansibrightblack",
        "alarm": "bg:ansired fg:ansiwhite bold",
        "heading": "bold underline",
        "seat": "",
        "me": "bold",
        "turn": "bold",
        "out": "fg:ansibrightblack",
        "trouble": "fg:ansiyellow",
        "bid": "",
        "mybid": "bold",
        "pending": "fg:ansiyellow italic",
        "standing": "bold",
        "turnline": "bold fg:ansicyan",
        "label": "",
        "die": "bold",
        "selected": "reverse bold",
        "typed": "bold underline",
        "ok": "fg:ansigreen bold",
        "error": "fg:ansired bold",
        "count": "fg:ansigreen bold",
        "wild": "fg:ansiyellow bold",
        "plain": "",
        "waiting": "fg:ansiyellow",
        "change": "bold",
        "outcome": "bold",
        "notice": "fg:ansicyan",
        "odds": "fg:ansimagenta",
        "dim": "fg:ansibrightblack",
        "stale": "fg:ansibrightblack strike",
        "value": "",
        "passtitle": "bold reverse",
        "message": "fg:ansicyan",
        "keybar": "reverse",
        "key": "reverse bold",
    }
)


def build_layout(c: Controller) -> Layout:
    def text() -> StyleAndTextTuples:
        size = get_app().output.get_size()
        c.ui.too_small = size.columns < MIN_COLUMNS or size.rows < MIN_ROWS
        lines = render_screen(c, max(size.columns, 1), max(size.rows, 1))
        return list(fragments(lines))  # a list of prompt_toolkit's own (wider) fragment type

    control = FormattedTextControl(text, focusable=True, show_cursor=False)
    return Layout(Window(control, wrap_lines=False, always_hide_cursor=True))


#: What the course's and the drill's too-small screen offers: q leaves them, as it does on
#: each of their screens (Ctrl-C as well).
LEAVE_KEYS = (("q", "leave"),)


def whole_screen_app(
    render: Callable[[int, int], list[Line]],
    keys: KeyBindings,
    minimum: tuple[int, int] = (MIN_COLUMNS, MIN_ROWS),
) -> Application[int]:
    """A full-screen application of one window that draws `render(columns, rows)` afresh at
    every redraw, at the terminal's size then (the course and the drill). Below `minimum`
    (columns, rows) the too-small screen replaces it, and no key acts but q and Ctrl-C, which
    leave (exit code 0, as these apps' own q does): nothing is done on a screen one cannot
    read."""

    def too_small() -> bool:
        size = get_app().output.get_size()
        return size.columns < minimum[0] or size.rows < minimum[1]

    def text() -> StyleAndTextTuples:
        size = get_app().output.get_size()
        columns, rows = max(size.columns, 1), max(size.rows, 1)
        if too_small():
            words = too_small_words(columns, rows, minimum) + "."
            return list(fragments(too_small_screen(words, LEAVE_KEYS, columns, rows)))
        return list(fragments(render(columns, rows)))

    small = Condition(too_small)
    leave = KeyBindings()

    @leave.add("q", filter=small)
    @leave.add("c-c", filter=small)
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    return Application(
        layout=Layout(Window(FormattedTextControl(text))),
        key_bindings=merge_key_bindings([ConditionalKeyBindings(keys, ~small), leave]),
        style=STYLE,
        full_screen=True,
    )
