"""The lobby's record screen (`g`): what `p2pdice stats` prints, scrolled in the terminal.

The text is made by the command line (cli/stats.py, from this device's verified games); this
screen only shows it: up/down and PgUp/PgDn scroll, q or Esc goes back to the lobby.
"""

from __future__ import annotations

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples, to_formatted_text
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from .layout import STYLE
from .screens import fragments, header, keys_line

#: The lobby's exit code for "show my record" (`g`): the lobby closes, the record shows, and
#: the lobby opens again when it is left.
RECORD_FROM_LOBBY = 65
RECORD_KEYS = (("up/down", "scroll"), ("PgUp/PgDn", "page"), ("q", "back to the lobby"))


def visible(lines: list[str], top: int, rows: int) -> tuple[list[str], int]:
    """The lines that fit `rows` from `top` (kept within the text), and the top used."""
    top = max(0, min(top, max(len(lines) - rows, 0)))
    return lines[top : top + rows], top


def run_record(text: str, *, title: str = "Your record") -> int:
    """Show `text` full screen until q or Esc."""
    lines = text.splitlines() or ["no games yet"]
    state = {"top": 0}
    kb = KeyBindings()

    def page() -> int:
        from prompt_toolkit.application.current import get_app

        return max(get_app().output.get_size().rows - 3, 1)

    @kb.add("q")
    @kb.add("escape")
    @kb.add("c-c")
    def _back(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    for key, step in (("up", -1), ("down", 1), ("pageup", None), ("pagedown", None)):

        @kb.add(key)
        def _scroll(event: KeyPressEvent, key: str = key, step: int | None = step) -> None:
            move = step if step is not None else (page() if key == "pagedown" else -page())
            state["top"] = visible(lines, state["top"] + move, page())[1]

    def head() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        columns = get_app().output.get_size().columns
        return list(fragments([header(title, "from this device's verified games", columns)]))

    def body() -> StyleAndTextTuples:
        shown, _ = visible(lines, state["top"], page())
        out: StyleAndTextTuples = []
        for line in shown:  # the rating plot comes in terminal colours: read, not printed raw
            out += [("", " "), *to_formatted_text(ANSI(line)), ("", "\n")]
        return out

    def keys() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        return list(fragments([keys_line(RECORD_KEYS, get_app().output.get_size().columns)]))

    app: Application[int] = Application(
        layout=Layout(
            HSplit(
                [
                    Window(FormattedTextControl(head), height=1),
                    Window(FormattedTextControl(body), wrap_lines=True),  # long figures wrap
                    Window(FormattedTextControl(keys), height=1),
                ]
            )
        ),
        key_bindings=kb,
        style=STYLE,
        full_screen=True,
    )
    result = app.run()
    return result if isinstance(result, int) else 0
