"""`p2pdice learn --drill` on screen: one position at a time, the answer with its exact chances
and the strong bot's advice, and the running score per skill (bots/drill.py decides all of
it; this module only draws and takes keys).

Keys are the table's (ui/keys.py): `l` calls Liar, `x` calls Exact where the table allows
it, a raise is typed as at the table (`8 5`, `eight 5s` + Enter; Esc clears it), `n` draws
the next position after an answer, `q` leaves (the score is kept). A letter is a command
only while nothing is typed, and no command letter begins a number word.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from ..bots.drill import (
    Advice,
    Answer,
    DrillProgress,
    Figures,
    Position,
    Verdict,
    advise,
    figures,
    judge,
    option_words,
    position_for,
)
from ..core.bids import count_matching
from ..core.describe import bid_words
from ..core.rules import Rules
from .bidentry import BidSyntaxError, parse_bid
from .callkeys import add_typing_and_calls
from .layout import whole_screen_app
from .learn import header_subtitle
from .screens import Line, header, keys_line, rule_or_alarm, wrap
from .text import ASCII, Glyphs

NAMES = ("Ada", "Bo", "Cy", "Di", "Eve", "Flo")  #: the other seats, by seat number
#: The smallest terminal (columns, rows) that shows every line of every drill screen whole:
#: the longest answer takes 21 rows of 80 columns (every other screen's width; on fewer
#: columns its lines wrap into more rows).
DRILL_SIZE = (80, 21)


@dataclass
class DrillState:
    rules: Rules
    progress: DrillProgress
    save: Callable[[DrillProgress], None]
    number: int = 0
    position: Position | None = None
    typed: str = ""
    said: str = ""
    answer: Answer | None = None
    verdict: Verdict | None = None
    figures: Figures | None = None
    advice: Advice | None = None

    def next(self) -> None:
        """Draw the next position; the count is saved at once, so leaving and coming back
        goes on with a new one."""
        self.number, self.progress = self.progress.next_seed()
        self.save(self.progress)
        self.position = position_for(self.rules, self.number)
        self.typed = self.said = ""
        self.answer = self.verdict = self.figures = self.advice = None

    def name(self, seat: int) -> str:
        assert self.position is not None
        return "You" if seat == self.position.view.seat else NAMES[seat]


def answer(ds: DrillState, move: Answer) -> None:
    """Score the move, save the score, and work out what the answer screen shows."""
    assert ds.position is not None and ds.answer is None
    view = ds.position.view
    if move.kind == "exact" and not view.can_exact:
        ds.said = "This table has no Exact call (p2pdice learn --exact-call turns it on)."
        return
    if move.kind == "raise":
        assert move.bid is not None
        if not view.is_legal_bid(move.bid):
            lowest = ", ".join(bid_words(b) for b in view.lowest_bids_per_face().values())
            ds.said = f"{bid_words(move.bid)} is not a raise here. The lowest raises: {lowest}."
            return
    ds.answer = move
    ds.verdict = judge(ds.position, move)
    ds.figures = figures(view)
    ds.advice = advise(ds.position)
    ds.progress = ds.progress.score(ds.verdict)
    ds.save(ds.progress)
    ds.said = ""


def enter(ds: DrillState) -> None:
    typed, ds.typed = ds.typed.strip(), ""
    if ds.answer is not None:
        return
    if not typed:
        ds.said = "Type a raise such as 8 5 (eight 5s), then Enter; or l to call Liar."
        return
    try:
        bid = parse_bid(typed)
    except BidSyntaxError as err:
        ds.said = f"Not a bid: {err}."
        return
    answer(ds, Answer("raise", bid))


def _moved(ds: DrillState) -> str:
    move, verdict = ds.answer, ds.verdict
    assert move is not None and verdict is not None
    if move.kind == "call":
        what = f"You called Liar (wins {verdict.chance:.1%})"
    elif move.kind == "exact":
        what = f"You called Exact (right {verdict.chance:.1%})"
    else:
        assert move.bid is not None
        what = f"You raised to {bid_words(move.bid)} (holds {verdict.chance:.1%})"
    verdict_word = "right" if verdict.right else "not right"
    return f"{what}: {verdict_word}: {verdict.reason}."


def _answer_lines(ds: DrillState, columns: int) -> list[str]:
    fig, verdict, advice, position = ds.figures, ds.verdict, ds.advice, ds.position
    assert fig is not None and verdict is not None and advice is not None and position is not None
    view = position.view
    bid = bid_words(fig.standing)
    lines = [_moved(ds)]
    exact = f", exactly {fig.standing.quantity}: {fig.exactly:.1%}"
    lines.append(
        f"Over the {view.unseen_dice} dice you cannot see, {bid} holds {fig.holds:.1%}{exact}."
    )
    chances = "; ".join(option_words(fig, kind) for kind in fig.options())
    lines.append(f"If settled now: {chances}.")
    lines.append(advice.why[0].upper() + advice.why[1:] + ".")
    me = view.seat
    cups = ", ".join(
        f"{ds.name(s)} {' '.join(map(str, h))}"
        for s, h in enumerate(position.hands)
        if h and s != me
    )
    count = count_matching(position.hands, fig.standing.face, wild_ones=view.wild_ones)
    fate = "holds" if count >= fig.standing.quantity else "fails"
    lines.append(f"Under the cups: {cups}. {count} count: {bid} {fate} this time.")
    lines.append(f"Scored as {verdict.skill}.")
    out: list[str] = []
    for line in lines:
        out += wrap(line, columns - 2)
    return out


def render(ds: DrillState, columns: int = 80, rows: int = 24, glyphs: Glyphs = ASCII) -> list[Line]:
    position = ds.position
    assert position is not None
    view = position.view
    me = view.seat
    assert me is not None
    width = columns - 2
    title, code = "Judgement drill", f"position {ds.number + 1}"
    subtitle = header_subtitle(title, code, ds.rules.summary().split(", "), columns)
    out: list[Line] = [header(title, code, columns, subtitle)]
    out += rule_or_alarm(None, glyphs, columns)

    def text(line: str, style: str = "") -> None:
        out.append([(style, " " + line)])

    seats = "  ".join(f"{ds.name(s)} {n}" for s, n in enumerate(view.dice) if n)
    for line in wrap(
        f"Dice held: {seats}. {view.dice_in_play} in play, {view.unseen_dice} unseen.", width
    ):
        text(line)
    bids = ", ".join(f"{ds.name(p.seat)} {bid_words(p.bid)}" for p in view.bids)
    for line in wrap(f"Bids this round: {bids}.", width)[-4:]:
        text(line)
    standing = view.bids[-1]
    kind = ""
    if view.palifico_round:
        kind = " Palifico round: ones are not wild." if not view.wild_ones else " Palifico round."
    text(
        f"Standing bid: {bid_words(standing.bid)} by {ds.name(standing.seat)}.{kind}",
        "class:standing",
    )
    text(f"Your dice: {' '.join(map(str, view.hand))}", "class:me")
    text("")
    if ds.answer is None:
        exact = ", Exact (x)" if view.can_exact else ""
        for line in wrap(f"Your move: call Liar (l){exact}, or type a raise and Enter.", width):
            text(line)
        if ds.said:
            for line in wrap(ds.said, width):
                text(line, "class:trouble")
        text(f"Typed: {ds.typed}_")
        keys = [("l", "Liar")] + ([("x", "Exact")] if view.can_exact else [])
        keys += [("8 5+Enter", "raise"), ("Esc", "clear"), ("q", "leave")]
    else:
        for line in _answer_lines(ds, columns):
            text(line)
        keys = [("n", "next position"), ("q", "leave")]
    body_room = rows - 3
    out = out[: body_room + 1]
    while len(out) < body_room + 1:
        out.append([("", "")])
    out.append([("", " Score: " + ds.progress.line())])
    out.append(keys_line(keys, columns))
    return out


def type_key(ds: DrillState, key: str) -> None:
    """A key that is not a command: typed into the raise, as at the table."""
    if ds.answer is None and len(ds.typed) < 40 and (key.isalnum() or key in " '"):
        ds.typed += key


def build(ds: DrillState, glyphs: Glyphs) -> Application[int]:
    kb = KeyBindings()
    free = Condition(lambda: not ds.typed)
    asking = Condition(lambda: ds.answer is None)

    @kb.add("c-c")
    @kb.add("q", filter=free)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        enter(ds)

    add_typing_and_calls(
        kb,
        ds,
        calls=free & asking,
        liar=lambda: answer(ds, Answer("call")),
        exact=lambda: answer(ds, Answer("exact")),
    )

    @kb.add("n", filter=~asking)
    def _next(event: KeyPressEvent) -> None:
        ds.next()

    @kb.add(Keys.Any)
    def _type(event: KeyPressEvent) -> None:
        data = event.data
        if len(data) == 1 and data.isprintable():
            type_key(ds, data.lower())

    return whole_screen_app(lambda columns, rows: render(ds, columns, rows, glyphs), kb, DRILL_SIZE)


def run_drill(
    rules: Rules, progress: DrillProgress, save: Callable[[DrillProgress], None], glyphs: Glyphs
) -> int:
    """Run the drill from `progress`; `save` keeps the score after every answer."""
    ds = DrillState(rules=rules, progress=progress, save=save)
    ds.next()
    result = build(ds, glyphs).run()
    return result if isinstance(result, int) else 0
