"""Models rendered as styled text: lists of lines, each a list of (style, text) fragments.

Pure, and without prompt_toolkit: a fragment list is exactly what prompt_toolkit's
FormattedTextControl draws, and tests turn it into plain text to check what an 80x24
terminal without colour shows. Every marker that matters (`*4*`, `(1)`, `>`, `verified`,
`ALARM`, `(pending)`) is in the text itself; styles only add colour.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence

from .reveal import GameOverModel, PassModel, RevealModel
from .text import ASCII, JOINER, Glyphs, dice_rows, fit, fit_apart, unbreakable, width
from .viewmodel import STATUS_WIDTH, TableModel

Fragment = tuple[str, str]
Line = list[Fragment]


def plain(lines: Sequence[Line]) -> str:
    """The text a monochrome terminal shows."""
    return "\n".join("".join(text for _, text in line) for line in lines)


def fragments(lines: Sequence[Line]) -> list[Fragment]:
    out: list[Fragment] = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def wrap(text: str, columns: int, keep: Sequence[str] = ()) -> list[str]:
    """Word wrap for one paragraph, never inside a bid or one of the names in `keep`."""
    words, lines, current = [], [], ""
    for word in unbreakable(" ".join(text.split()), keep).split(" "):
        while width(word) > columns:  # a path or a long code: break it
            words.append(word[:columns])
            word = word[columns:]
        words.append(word)
    for word in words:
        candidate = f"{current} {word}" if current else word
        if width(candidate) <= columns:
            current = candidate
        else:
            if current:
                lines.append(current)
            current = word
    if current:
        lines.append(current)
    return [line.replace(JOINER, " ") for line in lines] or [""]


def cut(line: Line, columns: int) -> Line:
    """A line no wider than `columns` (the last fragment that overflows is cut)."""
    out: Line = []
    used = 0
    for style, text in line:
        w = width(text)
        if used + w <= columns:
            out.append((style, text))
            used += w
            continue
        room = columns - used
        if room > 0:
            out.append((style, fit(text, room)))
        break
    return out


def header(title: str, right: str, columns: int, subtitle: str = "") -> Line:
    left = f" {title}"
    sub = f"  {subtitle}" if subtitle else ""
    room = columns - width(right) - 2
    main = fit(left + sub, max(room, 0))
    return [
        ("class:title", main[: len(left)]),
        ("class:subtitle", main[len(left) :]),
        ("", " "),
        ("class:code", right),
        ("", " "),
    ]


def rule_or_alarm(alarm: str | None, glyphs: Glyphs, columns: int) -> list[Line]:
    if alarm:
        return [
            [("class:alarm", fit(" " + line, columns))] for line in wrap(alarm, columns - 1)[:2]
        ]
    return [[("class:rule", glyphs.rule * columns)]]


def keys_line(keys: Iterable[tuple[str, str]], columns: int) -> Line:
    """The hint bar: `key label` pairs, as many as fit. When they do not all fit, the last
    pair (every screen ends with its way out: `q quit`, `Esc back`), and `?` help just
    before it, still show, and the pairs before them are cut instead: a bar that hides how
    to leave, or where every key is explained, strands the player."""
    pairs = list(keys)
    last: list[tuple[str, str]] = []
    room = columns
    if pairs and 1 + sum(_piece(p) + 2 for p in pairs) - 2 > columns:
        last = [pairs.pop()]
        if pairs and pairs[-1][0] == "?":
            last.insert(0, pairs.pop())
        room = columns - sum(_piece(p) + 2 for p in last)  # a gap before each kept pair
    line: Line = [("class:keybar", " ")]
    used = 1
    for key, label in pairs:
        if used + _piece((key, label)) > room:
            break
        line, used = _add_key(line, used, key, label, columns)
    for key, label in last:
        if used + _piece((key, label)) <= columns:
            line, used = _add_key(line, used, key, label, columns)
    line.append(("class:keybar", " " * max(columns - used, 0)))
    return line


def _piece(pair: tuple[str, str]) -> int:
    return width(pair[0]) + 1 + width(pair[1])


def _add_key(line: Line, used: int, key: str, label: str, columns: int) -> tuple[Line, int]:
    piece = _piece((key, label))
    gap = min(2, columns - used - piece)  # the gap after the last key may fall off the edge
    return [
        *line,
        ("class:key", key),
        ("class:keybar", f" {label}" + " " * gap),
    ], used + piece + gap


def squeeze(lines: list[Line], optional: set[int], height: int) -> list[Line]:
    """Drop optional (blank) lines from the bottom up, then cut, to fit `height`."""
    drop = sorted(optional, reverse=True)
    keep = list(range(len(lines)))
    while len(keep) > height and drop:
        keep.remove(drop.pop(0))
    return [lines[i] for i in keep][:height]


class _Builder:
    def __init__(self, columns: int, keep: Sequence[str] = ()) -> None:
        self.columns = columns
        self.keep = keep  #: names that text lines never break
        self.lines: list[Line] = []
        self.optional: set[int] = set()

    def add(self, *frags: Fragment) -> None:
        self.lines.append(cut(list(frags), self.columns))

    def text(self, text: str, style: str = "") -> None:
        for line in wrap(text, self.columns - 1, self.keep):
            self.add((style, " " + line))

    def blank(self) -> None:
        self.optional.add(len(self.lines))
        self.lines.append([("", "")])

    def extend(self, lines: Iterable[Line]) -> None:
        for line in lines:
            self.add(*line)

    def done(self, height: int) -> list[Line]:
        return squeeze(self.lines, self.optional, height)


# ---- the table --------------------------------------------------------------------------------

NAME_COLUMNS = 18  #: a name's columns in the seat list
SEAT_COLUMNS = 3 + NAME_COLUMNS + 6 + STATUS_WIDTH  #: the seat list, left of the bids


def _seat_line(row, glyphs: Glyphs, names: Sequence[str]) -> Line:
    marker = glyphs.pointer if row.is_turn else " "
    style = "class:seat"
    if row.out:
        style = "class:out"
    elif row.trouble:
        style = "class:trouble"
    elif row.is_turn:
        style = "class:turn"
    name_style = "class:me" if row.is_me else style
    # A known rating takes the end of the name's columns: the name gives way to it.
    rating = f" {row.rating}" if row.rating else ""
    return [
        (style, f" {marker} "),
        (name_style, fit_apart(row.name, NAME_COLUMNS - len(rating), names)),
        ("class:dim", rating),
        (style, fit(row.dice, 4, align="right") + "  "),
        (style, fit(row.status, STATUS_WIDTH)),
    ]


def render_table(
    model: TableModel, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns, keep=[row.name for row in model.seats])
    b.add(*header(model.title, model.code, columns, model.subtitle))
    b.extend(rule_or_alarm(model.alarm, glyphs, columns))
    names = [row.name for row in model.seats]
    rows = [_seat_line(r, glyphs, names) for r in model.seats]
    block = max(len(rows), 3)
    bids = list(model.bids)
    bid_lines: list[Line] = []
    shown = bids
    if len(bids) > block:
        shown = bids[-(block - 1) :]
        bid_lines.append([("class:dim", f"... {len(bids) - len(shown)} earlier")])
    for bid in shown:
        style = "class:pending" if bid.pending else "class:mybid" if bid.mine else "class:bid"
        tail = " (pending)" if bid.pending else ""
        # The name gives way to the bid: the whole bid and its marker always show.
        room = columns - SEAT_COLUMNS - 2 - width(bid.bid + tail) - 1
        name = fit_apart(bid.name, max(min(14, room), 4), names)
        bid_lines.append([(style, name + " " + bid.bid + tail)])
    b.add(
        (
            "class:heading",
            fit("   Seat", 3 + NAME_COLUMNS) + fit("Dice", 6) + fit("Status", STATUS_WIDTH),
        ),
        ("class:rule", glyphs.vertical),
        ("class:heading", " Bids this round"),
    )
    for i in range(block):
        left = rows[i] if i < len(rows) else [("", "")]
        left_width = sum(width(t) for _, t in left)
        pad: Line = [("", " " * max(SEAT_COLUMNS - left_width, 0))]
        right = bid_lines[i] if i < len(bid_lines) else [("", "")]
        b.add(*left, *pad, ("class:rule", glyphs.vertical), ("", " "), *right)
    b.blank()
    if model.standing:
        b.text(model.standing, "class:standing")
    if model.turn_line:
        b.text(model.turn_line, "class:turnline")
    b.blank()
    b.text(model.hand_label, "class:label")
    for line in dice_rows(model.hand, glyphs):
        b.add(("class:die", "  " + line))
    entry = model.entry
    if entry is not None:
        b.blank()
        if entry.can_bid:
            b.add(
                ("class:label", " Your bid: "),
                ("class:selected", f" < {entry.selected_text} > "),
                ("class:dim", "  up/down quantity, left/right face, Enter to bid"),
            )
        else:
            b.text(
                "No raise is possible: call Liar" + (" or Exact." if entry.can_exact else "."),
                "class:label",
            )
        typed = entry.typed
        if typed:
            style = "class:ok" if entry.preview_ok else "class:error"
            b.add(
                ("class:label", " Typed: "),
                ("class:typed", typed + "_"),
                ("", "  "),
                (style, entry.preview),
            )
        else:
            calls = []
            if entry.can_challenge:
                calls.append("l = Liar")
            if entry.can_exact:
                calls.append("x = Exact")
            extra = ("   " + ", ".join(calls)) if calls else ""
            b.add(("class:dim", " Or type a bid like 4 5 or four 5s." + extra))
        if entry.odds:
            b.text(entry.odds, "class:odds")
    elif model.can_undo:
        b.text("u takes back your last bid (nobody has acted since).", "class:dim")
    for notice in model.notices:
        b.text(notice, "class:notice")
    return b.done(height)


# ---- the reveal and game over -------------------------------------------------------------------


def _hand_line(row, glyphs: Glyphs, names: Sequence[str]) -> Line:
    line: Line = [("class:seat", " " + fit_apart(row.name, 14, names) + " ")]
    if row.cells:
        for cell in row.cells:
            line.append((f"class:{cell.kind}", cell.text))
            line.append(("", " "))
        used = 4 * len(row.cells)
        line.append(("", " " * max(20 - used, 0)))
    else:
        line.append(("class:dim", fit(row.note, 20)))
    line.append(("class:seat", fit(row.matched, 6, align="center") + " "))
    if row.check == "ok":
        check = [("class:ok", fit(f"{glyphs.tick} {row.check_text}", 24))]
    elif row.check == "alarm":
        check = [("class:alarm", fit(f"{glyphs.cross} {row.check_text}", 24))]
    elif row.check:
        check = [("class:waiting", fit(row.check_text, 24))]
    else:
        check = [("", " " * 24)]
    return [*line, *check, ("", " "), ("class:change", row.change)]


def render_reveal(
    model: RevealModel, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns, keep=[row.name for row in model.rows])
    b.add(*header(model.title, model.code, columns))
    b.extend(rule_or_alarm(model.alarm, glyphs, columns))
    if model.outcome:
        b.text(model.outcome, "class:outcome")
    else:
        b.text(model.call_line, "class:standing")
    if model.count_line:
        b.text(model.count_line, "class:label")
    b.blank()
    b.add(
        (
            "class:heading",
            " "
            + fit("Seat", 15)
            + fit("Hand", 20)
            + fit("Match", 7)
            + fit("Commitment", 25)
            + "Dice",
        )
    )
    names = [row.name for row in model.rows]
    for row in model.rows:
        b.add(*_hand_line(row, glyphs, names))
    b.blank()
    if model.legend:
        b.add(("class:dim", " " + model.legend))
    for fault in model.faults[-2:]:
        b.text(fault, "class:notice")
    if model.bids:
        for line in wrap(model.bids, columns - 1, b.keep)[:2]:
            b.add(("class:dim", " " + line))
    if model.next_line:
        b.text(model.next_line, "class:turnline")
    if model.history_line:
        b.text(model.history_line, "class:code")
    return b.done(height)


def render_game_over(
    model: GameOverModel, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns)
    b.add(*header(model.title, model.code, columns))
    b.extend(rule_or_alarm(model.alarm, glyphs, columns))
    b.blank()
    b.add(("class:heading", " Final ranking"))
    for line in model.ranking:
        b.add(("class:seat", "   " + line))
    b.blank()
    if model.behind_line:  # above the transcript: on a short screen it is the line that acts
        b.text(model.behind_line, "class:alarm")
        b.blank()
    if model.transcript_path:
        b.text(model.transcript_label, "class:label")
        for line in path_lines(model.transcript_path, columns - 3):
            b.add(("class:value", "   " + line))
    else:
        b.text(model.transcript, "class:label")
    for alarm in model.check_alarms:
        b.text(alarm, "class:alarm")
    for note in model.check_notes:
        b.text(note, "class:dim")
    b.text("Anyone can check it offline with: p2pdice verify FILE", "class:dim")
    if model.history_line:
        b.text(model.history_line, "class:code")
    return b.done(height)


def path_lines(path: str, columns: int) -> list[str]:
    """A file path on lines of its own: whole when it fits (the home folder as ~ if that
    helps), else broken only after a `/`, so no folder or file name is split (one longer
    than a whole line is the only exception)."""
    if width(path) <= columns:
        return [path]
    home = os.path.expanduser("~")
    if home not in ("", "/", "~") and path.startswith(home + os.sep):
        path = "~" + path[len(home) :]
        if width(path) <= columns:
            return [path]
    lines: list[str] = []
    current = ""
    for part in re.findall(r"[^/]*/|[^/]+$", path):  # each folder keeps its trailing /
        if current and width(current + part) > columns:
            lines.append(current)
            current = ""
        current += part
        while width(current) > columns:  # one name longer than the line
            lines.append(current[:columns])
            current = current[columns:]
    if current:
        lines.append(current)
    return lines


def render_pass(
    model: PassModel, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns)
    top = max((height - 9) // 2, 1)
    for _ in range(top):
        b.blank()
    bar = glyphs.rule * (columns - 4)
    b.add(("class:rule", "  " + bar))
    b.add(("class:passtitle", fit(model.title, columns, align="center")))
    b.add(("class:rule", "  " + bar))
    b.blank()
    if model.last_bid:
        b.add(("class:standing", fit(model.last_bid, columns, align="center")))
    if model.clock:
        b.add(("class:standing", fit(model.clock, columns, align="center")))
    b.blank()
    for line in wrap(model.prompt, columns - 8):
        b.add(("class:label", fit(line, columns, align="center")))
    if model.undo_line:
        b.blank()
        for line in wrap(model.undo_line, columns - 8):
            b.add(("class:dim", fit(line, columns, align="center")))
    return b.done(height)
