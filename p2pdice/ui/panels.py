"""The screens around the table: lobby, new-table form and confirmation, help, prompts.

Pure like `screens`: plain data in, lines of (style, text) fragments out.
"""

from __future__ import annotations

from collections.abc import Callable

from ..bots.estimate import how_long
from ..core.describe import amount
from ..core.errors import OptionError
from ..core.rules import OPTIONS, Ones, Palifico, PalificoKind, Rules, TableKind
from .hostform import HostForm
from .lobbymodel import DETAIL_INDENT, LobbyRow
from .screens import Line, _Builder, header, wrap
from .state import Prompt
from .text import ASCII, Glyphs, fit, width
from .viewmodel import palifico_changes

#: Every key the lobby answers to: (key, its name on the key bar or None, what it does), in
#: order of use. The key bar and the lobby's help screen are both made from it.
LOBBY_HELP_KEYS: tuple[tuple[str, str | None, str], ...] = (
    ("up/down", None, "choose a table"),
    ("Enter", "join", "join the chosen table (asks for the password of a locked one)"),
    ("s", "watch", "watch the chosen table without taking a seat"),
    ("a", "address", "join by HOST:PORT, for a table this network does not show"),
    ("n", "host", "host a table on this machine for the others to join"),
    ("p", "practice", "play CPU players on this machine, no network needed"),
    # pass-and-play: the short name keeps `q quit` within 80 columns
    ("t", "hot seat", "pass-and-play: several people share this screen"),
    ("l", "learn", "lessons, the judgement drill and the graded match"),
    ("g", None, "your record: statistics and ratings from your verified games"),
    ("r", None, "resume a table you hosted and paused"),
    ("/", None, "search the tables by name, host or id (Esc shows all again)"),
    ("q", "quit", "leave p2pdice"),
    ("?", "help", "this help"),
)
LOBBY_KEYS = tuple((key, name) for key, name, _ in LOBBY_HELP_KEYS if name is not None)
"""The lobby's key bar: cut at the screen's width, everything up to `q quit` fits 80 columns."""
FORM_KEYS = (("up/down", "option"), ("left/right", "change"), ("Enter", "review"), ("Esc", "back"))
CONFIRM_KEYS = (("Enter", "open the table"), ("Esc", "change options"))


def render_lobby(
    rows: list[LobbyRow],
    selected: int,
    note: str,
    *,
    columns: int = 80,
    height: int = 22,
    glyphs: Glyphs = ASCII,
    query: str = "",
) -> list[Line]:
    b = _Builder(columns)
    where = f"tables matching {query!r} (Esc: all)" if query else "tables on this network"
    b.add(*header("p2pdice lobby", where, columns))
    b.add(("class:rule", glyphs.rule * columns))
    b.add(
        ("class:heading", "   " + fit("Table", 22) + fit("Seats", 7) + fit("Phase", 14) + "Rules")
    )
    if not rows:
        b.blank()
        b.text(
            note or "No tables yet: they appear here as soon as a host announces one.", "class:dim"
        )
        b.text(
            "No network needed to practise: press p (CPU players) or t (pass-and-play).",
            "class:dim",
        )
    # Each table its line and its facts' lines (one to three): keep the selected one on screen
    # however long the list is.
    facts = [detail_lines(row.details(), columns) for row in rows]
    first, last = _window([1 + len(f) for f in facts], selected, max(height - 8, 3))
    for i, row in enumerate(rows[first:last], first):
        pointer = glyphs.pointer if i == selected else " "
        style = "class:stale" if row.stale else "class:selected" if i == selected else "class:seat"
        lock = " [pw]" if row.locked else ""
        b.add(
            (
                style,
                f" {pointer} " + fit(row.name + lock, 22) + fit(row.seats, 7) + fit(row.phase, 14),
            ),
            (style, fit(row.rules, columns - 46)),
        )
        for line in facts[i]:
            b.add(("class:dim" if not row.stale else "class:stale", line))
    b.blank()
    if rows and note:
        b.text(note, "class:dim")
    b.text("Greyed tables stopped answering and disappear shortly. / searches.", "class:dim")
    b.text("g shows your games and ratings (from this device's verified games).", "class:dim")
    return b.done(height)


#: Lines a table's facts take at most in the lobby (after its first line): two for most, a
#: third when the host's name is long and the table has host CPUs, whose note (that host
#: could read those dice) must not be cut.
DETAIL_LINES = 3


def detail_lines(details: list[str], columns: int) -> list[str]:
    """A lobby row's facts, comma-separated, on at most DETAIL_LINES lines indented by
    DETAIL_INDENT: a line breaks between two facts, never inside one (a fact longer than a
    line, or past the last line, is cut)."""
    room = columns - DETAIL_INDENT
    lines: list[str] = []
    for item in details:
        if not lines:
            lines.append(item)
        elif width(lines[-1]) + 2 + width(item) <= room or len(lines) == DETAIL_LINES:
            lines[-1] += ", " + item  # on the last line, what does not fit is cut below
        else:
            lines.append(item)
    return [fit(" " * DETAIL_INDENT + line, columns) for line in lines]


def _window(sizes: list[int], selected: int, budget: int) -> tuple[int, int]:
    """The rows [first, last) of `sizes` lines each shown within `budget` lines: the selected
    one always, as low as it must be to show the rows above it, then those below it."""
    if not sizes:
        return 0, 0
    first, used = selected, sizes[selected]
    while first > 0 and used + sizes[first - 1] <= budget:
        first -= 1
        used += sizes[first]
    last = selected + 1
    while last < len(sizes) and used + sizes[last] <= budget:
        used += sizes[last]
        last += 1
    return first, last


def render_form(
    form: HostForm, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    titles = {
        TableKind.STANDARD: "Host a new table",
        TableKind.PRACTICE: "Practice against CPU players",
        TableKind.PASS_AND_PLAY: "Pass-and-play: several people, one device",
    }
    b = _Builder(columns)
    b.add(*header(titles[form.kind], "rules are fixed once it opens", columns))
    b.add(("class:rule", glyphs.rule * columns))
    fields = form.fields()
    current = form.current
    # What is said under the fields, worked out first: the fields scroll in what is left,
    # so a form with a level field per CPU seat still fits the screen.
    notes = _Builder(columns)
    notes.text(current.help, "class:dim")
    if form.kind != TableKind.STANDARD:
        cpu = form.cpu()
        notes.text(
            f"CPU seats: {len(cpu)}" + (f" ({', '.join(cpu)})" if cpu else "")
            + ", after the people, filling the seats nobody plays.",
            "class:dim",
        )  # fmt: skip
    length = _length(form)
    if length:
        notes.text(length, "class:dim")
    if form.error:
        notes.text(form.error, "class:error")
    room = max(3, height - len(b.lines) - 1 - len(notes.lines))
    at = fields.index(current) if current in fields else 0
    first = 0
    if len(fields) > room:
        shown = room - 2  # a line each for what is above and below
        first = max(0, min(at - shown // 2, len(fields) - shown))
        window = fields[first : first + shown]
    else:
        window = fields
    if first:
        b.text(f"  ({first} more above)", "class:dim")
    # The label column is as wide as the longest label (never a cut word), the value takes
    # the rest of the line.
    label_width = max(width(f.label) for f in fields)
    value_width = max(10, columns - 6 - label_width)
    for f in window:
        chosen = f.key == current.key
        pointer = glyphs.pointer if chosen else " "
        value = form.shown(f)
        if chosen and f.text:
            value += "_"
        elif chosen:
            value = f"< {value} >"
        b.add(
            (
                "class:label" if not chosen else "class:selected",
                f" {pointer} " + fit(f.label, label_width + 1),
            ),
            ("class:value" if not chosen else "class:selected", " " + fit(value, value_width)),
        )
    below = len(fields) - first - len(window)
    if below > 0:
        b.text(f"  ({below} more below)", "class:dim")
    b.blank()
    b.extend(notes.lines)
    return b.done(height)


def _length(form: HostForm) -> str:
    """How long a game with the form's rules takes ("5 dice, 4 players: about 8-13 min"),
    or "" while the rules do not hold."""
    try:
        rules = form.rules()
    except OptionError:
        return ""
    return "Length: " + how_long(rules)


def render_confirm(
    form: HostForm, rules: Rules, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns)
    b.add(*header("Check the rules", "they cannot change after this", columns))
    b.add(("class:rule", glyphs.rule * columns))
    b.text(f"{rules.summary()}", "class:standing")
    people, lines = form.summary(rules)
    for line in people:
        b.text(line, "class:value")
    half = (len(lines) + 1) // 2
    for left, right in zip(lines[:half], [*lines[half:], ""], strict=False):
        b.add(("class:value", "  " + fit(left, 38)), ("class:value", fit(right, columns - 40)))
    b.blank()
    b.text(
        "These options become part of the table's identity: every commitment binds them, "
        "so nobody can change them during the game.",
        "class:dim",
    )
    b.text("Enter opens the table; Esc goes back to change them.", "class:label")
    return b.done(height)


def _dice_and_ones(rules: Rules) -> str:
    ones = {
        Ones.WILD: "Ones are wild: they count for every face. Ones are never bid.",
        Ones.NATURAL: "Ones are an ordinary face (the lowest). Nothing is wild.",
        Ones.ACES: "Ones are wild and may be bid: onto ones needs half the quantity (rounded up); "
        "off ones needs twice plus one.",
    }[rules.ones]
    return f"{rules.seats} seats, {amount(rules.starting_dice, 'die', 'dice')} each. {ones}"


def _raise_and_liar(rules: Rules) -> str:
    # Imported when a form explains its rules, not with the table screen: core.lessons is
    # the course's (its lesson tables), which a first frame need not wait for.
    from ..core.lessons import penalty_text

    return (
        "A raise is a higher quantity, or the same quantity on a higher face. "
        f"Liar: the bid is too high; {penalty_text(rules)}."
    )


def _exact_call(rules: Rules) -> str:
    if not rules.exact_call:
        return ""
    from ..core.lessons import exact_reward_text  # lazily, as in _raise_and_liar

    return (
        "Exact call on: bet the bid is spot on; if right, "
        f"{exact_reward_text(rules)}; if wrong, you lose one die."
    )


def _palifico(rules: Rules) -> str:
    if rules.palifico == Palifico.OFF:
        return ""
    return (
        f"Palifico {rules.palifico}: when a player first drops to one die, the next round is "
        f"a palifico round: {palifico_changes(rules)}."
    )


Explainer = tuple[tuple[str, ...], Callable[[Rules], str]]

#: The help's sentences about the table, each with the options it explains ("" when the
#: option needs no sentence at that value).
_SENTENCES: tuple[Explainer, ...] = (
    (("seats", "starting_dice", "ones"), _dice_and_ones),
    (("challenge_penalty",), _raise_and_liar),
    (("exact_call", "exact_reward"), _exact_call),
    (("palifico", "palifico_kind"), _palifico),
)
#: Short phrases gathered into the help's last sentence, each with the option it explains.
_PHRASES: tuple[Explainer, ...] = (
    (("turn_timer",), lambda r: f"{r.turn_timer} s per turn" if r.turn_timer else ""),
    (("undo",), lambda r: "undo of your own last bid allowed" if r.undo else ""),
    (
        ("kind",),
        lambda r: str(r.kind).replace("_", "-") + " table" if r.kind != TableKind.STANDARD else "",
    ),
)
#: The options explained above; any other one that is not at its default is listed by its
#: label, so a new option shows in the help without a sentence written for it.
EXPLAINED = frozenset(key for keys, _ in (*_SENTENCES, *_PHRASES) for key in keys)


def _rule_lines(rules: Rules) -> list[str]:
    lines: list[str] = []
    extra: list[str] = []
    said: set[str] = set()
    for explainers, out in ((_SENTENCES, lines), (_PHRASES, extra)):
        for keys, say in explainers:
            if words := say(rules):
                out.append(words)
                said.update(keys)
    for option in OPTIONS:
        value = getattr(rules, option.key)
        # Also an option whose sentence is silent (palifico kind without palifico): set, it
        # is still shown, for it is part of the table's identity.
        if option.key not in said and value != option.default:
            extra.append(f"{option.label.lower()} {option.shown(value)}")
    if extra:
        lines.append("; ".join(extra).capitalize() + ".")
    return lines


TABLE_HELP_KEYS = (
    ("up/down", "quantity of your bid up or down (only legal bids are offered)"),
    ("left/right", "face of your bid"),
    ("Enter", "place the bid; or type one (4 5, four 5s, 4 x 5s) then Enter"),
    ("l / x", "call Liar / call Exact"),
    ("u", "undo your last bid (before anyone acts after it)"),
    ("h", "odds hint on/off: chance a bid is true given your own dice"),
    ("r", "review earlier rounds (left/right to move, Esc to return)"),
    ("Tab", "switch to your other seat"),
    ("? / q", "this help / leave the table"),
)
#: A watcher's keys: it holds no seat, so it has no bid, call, undo or odds to offer.
WATCH_HELP_KEYS = (
    ("r", "look at earlier rounds (left/right to move, Esc to return)"),
    ("? / q", "this help / stop watching"),
)
#: The waiting screen's key for the host (SPEC.md 3.3).
START_KEY = ("s", "start the game with the seats taken (two or more)")
#: The keys of a table that has not started: the game's keys work only once it has.
_ANY_TIME = ("? / q",)


def help_keys(
    rules: Rules | None,
    *,
    several: bool = False,
    waiting: bool = False,
    hosting: bool = False,
    watching: bool = False,
) -> tuple[tuple[str, str], ...]:
    """The keys this table answers to now: undo only where the rules allow it, Exact only
    where exact calls are allowed, Tab only where this device plays `several` seats (a
    practice table), and while `waiting` for the start only `s` (when `hosting`: the host
    starts the game), `?` and `q`. `game_keys` lists the rest. A device `watching` the
    table (no seat here) has only WATCH_HELP_KEYS."""
    if watching:
        return WATCH_HELP_KEYS if not waiting else WATCH_HELP_KEYS[-1:]
    if waiting:
        start = (START_KEY,) if hosting else ()
        return (*start, *((k, t) for k, t in TABLE_HELP_KEYS if k in _ANY_TIME))
    return game_keys(rules, several=several, and_any_time=True)


def game_keys(
    rules: Rules | None, *, several: bool = False, and_any_time: bool = False
) -> tuple[tuple[str, str], ...]:
    """The keys of the game itself at this table (see `help_keys`)."""
    keys = []
    for key, text in TABLE_HELP_KEYS:
        if key in _ANY_TIME and not and_any_time:
            continue
        if key == "Tab" and not several:
            continue
        if rules is not None and key == "u" and not rules.undo:
            continue
        if rules is not None and key == "l / x" and not rules.exact_call:
            key, text = "l", "call Liar"
        keys.append((key, text))
    return tuple(keys)


def render_lobby_help(*, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII) -> list[Line]:
    """The lobby's own keys, with what each does (the table's keys are shown at a table)."""
    b = _Builder(columns)
    b.add(*header("Help: the lobby", "Esc or ? to close", columns))
    b.add(("class:rule", glyphs.rule * columns))
    b.text(
        "Tables hosted on this network appear here by themselves. Choose one and press Enter "
        "to sit down, or start a game of your own.",
        "class:value",
    )
    b.blank()
    b.add(("class:heading", " Keys"))
    for key, _, text in LOBBY_HELP_KEYS:
        b.add(("class:key", "  " + fit(key, 12)), ("class:value", text))
    return b.done(height)


def render_help(
    rules: Rules | None,
    *,
    columns: int = 80,
    height: int = 22,
    glyphs: Glyphs = ASCII,
    several: bool = False,
    waiting: bool = False,
    hosting: bool = False,
    watching: bool = False,
) -> list[Line]:
    """The table's help: its rules and the keys that work now (see `help_keys`); while
    `waiting` for the start, the game's keys follow under their own heading (not for a
    device `watching` the table: it holds no seat to play them from)."""
    b = _Builder(columns)
    b.add(*header("Help", "Esc or ? to close", columns))
    b.add(("class:rule", glyphs.rule * columns))
    if rules is not None:
        b.add(("class:heading", " This table: " + rules.summary()))
        for line in _rule_lines(rules):
            b.text(line, "class:value")
    else:
        b.text(
            "Liar's Dice: bid on all the dice on the table; call Liar when a bid is too high.",
            "class:value",
        )
    b.blank()
    b.add(("class:heading", " Keys"))
    shown = help_keys(rules, several=several, waiting=waiting, hosting=hosting, watching=watching)
    for key, text in shown:
        b.add(("class:key", "  " + fit(key, 12)), ("class:value", text))
    if waiting and not watching:
        b.add(("class:heading", " Once the game has started"))
        for key, text in game_keys(rules, several=several):
            b.add(("class:key", "  " + fit(key, 12)), ("class:value", text))
        return b.done(height)  # the odds and codes below are the game's, for later
    b.blank()
    b.text(
        f"Odds: the binomial tail over the dice you cannot see, with {_odds_chance(rules)}. The "
        "comparison code must be the same on every screen at the table; a tick means that hand "
        "matched its commitment.",
        "class:dim",
    )
    return b.done(height)


def _odds_chance(rules: Rules | None) -> str:
    """The chance one unseen die counts, as the odds use it at this table."""
    if rules is None:
        return "p = 1/3 for a face other than one when ones are wild, else 1/6"
    if rules.ones == Ones.NATURAL:
        return "p = 1/6 for every face"
    when = ""
    if rules.palifico != Palifico.OFF:
        kept = rules.palifico_kind == PalificoKind.FACE_FIXED
        when = " (in a palifico round too)" if kept else " (not in a palifico round)"
    return f"p = 1/3 for a face other than one, as ones are wild{when}, else 1/6"


def render_prompt(
    prompt: Prompt, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns)
    for _ in range(max(height // 2 - 3, 0)):
        b.blank()
    b.text(prompt.question, "class:standing")
    shown = "*" * len(prompt.text) if prompt.secret else prompt.text
    b.add(("class:label", "  > "), ("class:typed", shown + "_"))
    if prompt.hint:
        b.text(prompt.hint, "class:dim")
    b.blank()
    b.text("Enter to confirm, Esc to cancel.", "class:dim")
    return b.done(height)


def render_message_screen(
    title: str, text: str, *, columns: int = 80, height: int = 22, glyphs: Glyphs = ASCII
) -> list[Line]:
    b = _Builder(columns)
    b.add(*header(title, "", columns))
    b.add(("class:rule", glyphs.rule * columns))
    b.blank()
    for line in wrap(text, columns - 2):
        b.add(("class:label", " " + line))
    return b.done(height)
