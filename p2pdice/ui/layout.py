"""The prompt_toolkit layout and style: one window drawing `frame.render_screen`.

Monochrome terminals lose nothing: every marker is in the text (see `screens`); the style
only adds colour and emphasis.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.styles import Style

from .controller import Controller
from .frame import MIN_COLUMNS, MIN_ROWS, render_screen
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


def whole_screen_app(
    render: Callable[[int, int], list[Line]], keys: KeyBindings
) -> Application[int]:
    """A full-screen application of one window that draws `render(columns, rows)` afresh at
    every redraw, at the terminal's size then (the course and the drill)."""

    def text() -> StyleAndTextTuples:
        size = get_app().output.get_size()
        return list(fragments(render(size.columns, size.rows)))

    return Application(
        layout=Layout(Window(FormattedTextControl(text))),
        key_bindings=keys,
        style=STYLE,
        full_screen=True,
    )
