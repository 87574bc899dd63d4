"""Display-safe text: sanitising, terminal widths, and dice drawn for any terminal.

Everything here is pure. Names and details that come from the network pass through
`clean_name` (names) or `safe_text` (longer details) before they are drawn, so an escape
sequence in a hostile name shows as harmless text instead of steering the terminal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from prompt_toolkit.utils import get_cwidth

from ..core.clean import clean_name, clean_text


def safe_text(text: object, limit: int = 300) -> str:
    """Any text made printable on one line: escapes and control characters removed."""
    out = clean_text(" ".join(str(text).split()), limit + 1)
    return out if len(out) <= limit else out[: limit - 3] + "..."


def safe_name(text: object, fallback: str = "?") -> str:
    """A display name from the network (core.clean.clean_name), never empty."""
    return clean_name(str(text)) or fallback


#: Joins the words of a phrase a line must not break ("4 x 5s", "CPU medium 1"): word wrap
#: splits at plain spaces only, and the joiner is drawn as a space.
JOINER = "\u00a0"
_BID = re.compile(r"\b\d+ x (?:ones?|[2-6]s?)\b")


def unbreakable(text: str, phrases: Iterable[str] = ()) -> str:
    """`text` with each bid ("4 x 5s") and each of `phrases` (players' names) kept whole by
    word wrap: their spaces become JOINER."""
    text = _BID.sub(lambda m: m[0].replace(" ", JOINER), text)
    for phrase in sorted({p for p in phrases if " " in p}, key=len, reverse=True):
        text = text.replace(phrase, phrase.replace(" ", JOINER))
    return text


#: Characters that join or vary the one before them: a cut never leaves one at its edge.
ZERO_WIDTH = "\u200d\u200c\ufe0e\ufe0f"


def char_width(ch: str) -> int:
    """Columns one character takes, counted as prompt_toolkit counts them when it draws
    (wcwidth): 0 for marks, joiners and variation selectors, 2 for wide characters. Counted
    otherwise, a joined emoji or a vowel sign shifts every column after it."""
    return get_cwidth(ch)


def width(text: str) -> int:
    """Columns `text` takes in a terminal."""
    return sum(char_width(ch) for ch in text)


def fit(text: str, columns: int, *, align: str = "left") -> str:
    """`text` cut (with an ellipsis) or padded to exactly `columns` terminal columns."""
    if columns <= 0:
        return ""
    if width(text) > columns:
        out, used = [], 0
        for ch in text:
            w = char_width(ch)
            if used + w > columns - 1:
                break
            out.append(ch)
            used += w
        text = "".join(out).rstrip(ZERO_WIDTH) + "~"  # no joiner left hanging before it
    pad = columns - width(text)
    if align == "right":
        return " " * pad + text
    if align == "center":
        return " " * (pad // 2) + text + " " * (pad - pad // 2)
    return text + " " * pad


def fit_apart(text: str, columns: int, among: Iterable[str]) -> str:
    """`text` fitted as `fit` does, unless that would look the same as another of `among`
    fitted alike ("Alexandra Konstantinova" and "...Konstantinidis" both "Alexandra Ko~"):
    then the start and the end of each, with the ellipsis between, keeping the shortest end
    that tells all of them apart (as every one of them is drawn by the same rule, they come
    out different), so that two players' names stay two names on a narrow column. Names
    that differ only where no end can show keep `fit`'s form."""
    plain = fit(text, columns)
    alike = sorted({other for other in among if fit(other, columns) == plain} | {text})
    if len(alike) == 1:
        return plain
    for tail_room in range(max(1, (columns - 1) // 3), columns - 1):
        drawn = [_start_and_end(name, columns, tail_room) for name in alike]
        if len(set(drawn)) == len(drawn):
            return drawn[alike.index(text)]
    return plain


def _start_and_end(text: str, columns: int, tail_room: int) -> str:
    """`text` as its start, `~` and its last `tail_room` columns or fewer, in `columns`."""
    tail: list[str] = []
    used = 0
    for ch in reversed(text):
        if used + char_width(ch) > tail_room:
            break
        tail.append(ch)
        used += char_width(ch)
    end = "".join(reversed(tail)).lstrip(ZERO_WIDTH)  # never a joiner cut from its emoji
    head = fit(text, columns - width(end)).rstrip(" ")
    return fit(head + end, columns)


@dataclass(frozen=True, slots=True)
class Glyphs:
    """Characters for boxes, pips and ticks; ASCII ones work in any terminal."""

    corner_tl: str
    corner_tr: str
    corner_bl: str
    corner_br: str
    horizontal: str
    vertical: str
    pip: str
    tick: str
    cross: str
    pointer: str
    rule: str


ASCII = Glyphs("+", "+", "+", "+", "-", "|", "o", "v", "X", ">", "-")
UNICODE = Glyphs("┌", "┐", "└", "┘", "─", "│", "●", "✓", "✗", "▶", "─")

# Pip positions on a 3x3 grid, row by row.
_PIPS = {
    1: ("   ", " o ", "   "),
    2: ("o  ", "   ", "  o"),
    3: ("o  ", " o ", "  o"),
    4: ("o o", "   ", "o o"),
    5: ("o o", " o ", "o o"),
    6: ("o o", "o o", "o o"),
}

DIE_WIDTH = 9  #: columns of one drawn die
DIE_HEIGHT = 5  #: rows of one drawn die


def die_lines(face: int, glyphs: Glyphs = ASCII) -> list[str]:
    """One die drawn with pips in a 9x5 box: large, and clear without colour."""
    g = glyphs
    top = g.corner_tl + g.horizontal * 7 + g.corner_tr
    bottom = g.corner_bl + g.horizontal * 7 + g.corner_br
    rows = [
        g.vertical + " " + " ".join(c if c == " " else g.pip for c in row) + " " + g.vertical
        for row in _PIPS.get(face, ("   ", " ? ", "   "))
    ]
    return [top, *rows, bottom]


def dice_rows(hand: tuple[int, ...], glyphs: Glyphs = ASCII, gap: int = 1) -> list[str]:
    """Several dice side by side, then a line with their numbers under them."""
    if not hand:
        return []
    drawn = [die_lines(d, glyphs) for d in hand]
    sep = " " * gap
    lines = [sep.join(d[row] for d in drawn) for row in range(DIE_HEIGHT)]
    lines.append(sep.join(fit(str(d), DIE_WIDTH, align="center") for d in hand))
    return lines


def die_cell(die: int, *, counts: bool, wild: bool) -> str:
    """A die in a hand at the reveal: `*4*` counts, `(1)` is a wild one that counts."""
    if wild:
        return "(1)"
    if counts:
        return f"*{die}*"
    return f" {die} "
