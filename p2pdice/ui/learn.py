"""`p2pdice learn` on screen: the course of core.lessons drawn on the real table screen.

The table itself is `screens.render_table` (the screen every game uses) fed a `TableModel`
built from the lesson's engine state; the coach's line and the counting question are its
notices. Keys are those of the table: type a bid like `4 5` and Enter, `l` for Liar, `x` for
Exact, `d` for the judgement drill, `q` to leave (progress is kept).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from ..core.bids import Bid
from ..core.game import GameState
from ..core.lessons import (
    NAMES,
    YOU,
    Finish,
    Lesson,
    Move,
    Progress,
    check_answer,
    coach_text,
    judge,
    play,
    start,
)
from ..core.rules import Rules
from .bidentry import BidSyntaxError, parse_bid
from .layout import STYLE
from .screens import Line, fragments, render_table
from .text import ASCII, Glyphs
from .viewmodel import BidLine, SeatRow, TableModel

#: The lobby's exit code for "open the course" (`l`): the lobby closes, the course runs, and
#: the lobby opens again when it is left.
LEARN_FROM_LOBBY = 64
#: The course's exit code for "open the judgement drill" (`d`): the command line runs the
#: drill, then the course again.
DRILL_FROM_LEARN = 65


@dataclass
class LearnState:
    """Where the learner is: which lesson, its table, what they typed, what the coach said."""

    rules: Rules
    lessons: tuple[Lesson, ...]
    progress: Progress
    index: int = 0
    state: GameState | None = None
    finish: Finish | None = None
    typed: str = ""
    said: str = ""
    complete: bool = False
    saves: list[Progress] = field(default_factory=list)

    @property
    def lesson(self) -> Lesson:
        return self.lessons[self.index]

    def open(self, index: int) -> None:
        self.index = index
        self.state = start(self.lesson, self.rules)
        self.finish = None
        self.typed = ""
        self.said = ""


def table_model(ls: LearnState) -> TableModel:
    """The lesson's table as the table screen's model."""
    lesson = ls.lesson
    state = ls.state
    assert state is not None
    finish = ls.finish
    shown = finish.state if finish is not None else state
    dice = finish.result.dice_before if finish is not None else state.dice
    rows = tuple(
        SeatRow(
            seat=s,
            name=NAMES[s],
            dice=str(n),
            status=(
                " ".join(str(d) for d in lesson.hands[s])
                if finish is not None
                else ("your turn" if s == YOU else "hidden")
            ),
            is_turn=finish is None and s == YOU,
            is_me=s == YOU,
            mine=s == YOU,
        )
        for s, n in enumerate(dice)
    )
    placed = finish.result.bids if finish is not None else state.bids
    bids = tuple(BidLine(NAMES[p.seat], str(p.bid), mine=p.seat == YOU) for p in placed)
    notices = [
        f"Coach: {coach_text(lesson, ls.rules)}" if finish is None else f"Coach: {finish.story}"
    ]
    if finish is not None:
        notices.append(finish.question)
    if ls.said:
        notices.append(ls.said)
    if finish is None or ls.typed:
        notices.append(f"Typed: {ls.typed}_")
    standing = shown.standing_bid if finish is None else finish.result.bid
    lesson_no = f"lesson {ls.index + 1} of {len(ls.lessons)}"
    return TableModel(
        title=f"Learn: {lesson.title}",
        subtitle=ls.rules.summary() + (" - palifico round" if lesson.palifico_round else ""),
        code=lesson_no,
        seats=rows,
        bids=bids,
        standing=f"Standing bid: {standing}" if standing else "No bid yet: you open.",
        turn_line="Your turn." if finish is None else "Answer the question to finish.",
        hand=lesson.hands[YOU],
        hand_label=" Your dice:",
        entry=None,
        notices=tuple(notices),
        alarm=None,
        can_undo=False,
        my_turn=finish is None,
        keys=(),
    )


def render(ls: LearnState, columns: int = 80, rows: int = 24, glyphs: Glyphs = ASCII) -> list[Line]:
    if ls.complete:
        from .screens import wrap

        text = "Course complete: every lesson done. Run `p2pdice learn` again to replay, "
        text += "or `p2pdice learn --reset` to start afresh. Press d for the judgement drill, q to leave."
        return [[("class:standing", line)] for line in wrap(text, columns)]
    lines = render_table(table_model(ls), columns=columns, height=rows - 1, glyphs=glyphs)
    lines.append([("class:dim", " type 4 5 + Enter: bid   l Liar   x Exact   d drill   q leave")])
    return lines


def act(ls: LearnState, move: Move) -> None:
    """The learner's move: the coach refuses it with words, or the round plays to the reveal."""
    assert ls.state is not None
    verdict = judge(ls.lesson, ls.rules, ls.state, move)
    ls.said = verdict.text
    if verdict.accepted:
        ls.finish = play(ls.lesson, ls.rules, ls.state, move)


def enter(ls: LearnState, save: Callable[[Progress], None]) -> None:
    """Enter: a typed bid before the reveal, the answer to the counting question after it."""
    typed, ls.typed = ls.typed.strip(), ""
    if ls.finish is None:
        try:
            bid: Bid = parse_bid(typed)
        except BidSyntaxError as err:
            ls.said = f"Not a bid: {err}."
            return
        act(ls, Move("bid", bid))
        return
    if not typed.isdigit():
        ls.said = "Type the number of dice that count, then Enter."
        return
    verdict = check_answer(ls.lesson, ls.rules, ls.finish, int(typed))
    if not verdict.accepted:
        ls.said = verdict.text
        return
    ls.progress = ls.progress.finish(ls.lesson.key)
    save(ls.progress)
    if ls.index + 1 < len(ls.lessons):
        ls.open(ls.index + 1)
        ls.said = verdict.text + " Next lesson."
    else:
        ls.complete = True


def build(ls: LearnState, save: Callable[[Progress], None], glyphs: Glyphs) -> Application[int]:
    kb = KeyBindings()

    @kb.add("q")
    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    @kb.add("d")
    def _drill(event: KeyPressEvent) -> None:
        event.app.exit(result=DRILL_FROM_LEARN)

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if not ls.complete:
            enter(ls, save)

    @kb.add("backspace")
    def _back(event: KeyPressEvent) -> None:
        ls.typed = ls.typed[:-1]

    @kb.add("l")
    def _liar(event: KeyPressEvent) -> None:
        if ls.finish is None and not ls.complete:
            act(ls, Move("liar"))

    @kb.add("x")
    def _exact(event: KeyPressEvent) -> None:
        if ls.finish is None and not ls.complete:
            act(ls, Move("exact"))

    for key in "0123456789 ":

        @kb.add(key if key != " " else "space")
        def _type(event: KeyPressEvent, key: str = key) -> None:
            if not ls.complete and len(ls.typed) < 8:
                ls.typed += key

    def text() -> StyleAndTextTuples:
        from prompt_toolkit.application.current import get_app

        size = get_app().output.get_size()
        return list(fragments(render(ls, size.columns, size.rows, glyphs)))

    return Application(
        layout=Layout(Window(FormattedTextControl(text))),
        key_bindings=kb,
        style=STYLE,
        full_screen=True,
    )


def run_learn(
    rules: Rules,
    lessons: tuple[Lesson, ...],
    progress: Progress,
    save: Callable[[Progress], None],
    glyphs: Glyphs,
) -> int:
    """Run the course from where `progress` left off; `save` keeps each finished lesson."""
    ls = LearnState(rules=rules, lessons=lessons, progress=progress)
    ls.open(progress.next_lesson(lessons))
    result = build(ls, save, glyphs).run()
    return result if isinstance(result, int) else 0
