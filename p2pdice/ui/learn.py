"""`p2pdice learn` on screen: the course of core.lessons drawn on the real table screen.

The table itself is `screens.render_table` (the screen every game uses) fed a `TableModel`
built from the lesson's engine state; the coach's line and the counting question are its
notices. Keys are those of the table: type a bid like `4 5` and Enter, `l` for Liar, `x` for
Exact, `d` for the judgement drill, Tab for the lesson list, `q` to leave (progress is kept).

The lesson list shows each lesson, done or not, and the graded match ("Test your judgement"):
locked, with why, until every lesson is done; then `t` plays it, and its results show here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

from ..bots.graded import GRADED_CPU
from ..core.bids import Bid
from ..core.game import GameState
from ..core.grading import GradedResult, best, locked_reason, setting_of, unlocked
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
from .callkeys import add_typing_and_calls
from .layout import whole_screen_app
from .screens import Line, render_table
from .text import ASCII, Glyphs, width
from .viewmodel import BidLine, SeatRow, TableModel

#: The lobby's exit code for "open the course" (`l`): the lobby closes, the course runs, and
#: the lobby opens again when it is left.
LEARN_FROM_LOBBY = 64
#: The course's exit code for "open the judgement drill" (`d`): the command line runs the
#: drill, then the course again.
DRILL_FROM_LEARN = 65
#: The course's exit code for "play the graded match" (`t` on the lesson list): the command
#: line plays it on a practice table, saves the grade, then opens the course again.
GRADED_FROM_LEARN = 66


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
    answered: bool = False  #: the counting question is answered: Enter goes on
    complete: bool = False  #: every lesson done: the list says so above the lessons
    listing: bool = False  #: the lesson list is on screen (over the current lesson)
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
        self.answered = False
        self.listing = False

    def keys(self) -> tuple[str, ...]:
        return tuple(lesson.key for lesson in self.lessons)

    @property
    def match_open(self) -> bool:
        return unlocked(self.progress.done, self.keys())

    @property
    def graded(self) -> tuple[GradedResult, ...]:
        """The graded match's results on this course's setting only."""
        return self.progress.graded_on(setting_of(self.rules))


def fitted(parts: list[str], room: int) -> str:
    """As many of `parts` as fit in `room` columns, whole and in order, joined by commas,
    and "..." when some are left out: a header never ends mid-word."""
    out = ""
    for i, part in enumerate(parts):
        joined = f"{out}, {part}" if out else part
        rest = i + 1 < len(parts)
        if width(joined) + (len(", ...") if rest else 0) <= room:
            out = joined
            continue
        more = f"{out}, ..." if out else "..."
        return more if width(more) <= room else out
    return out


def header_subtitle(title: str, code: str, parts: list[str], columns: int) -> str:
    """The subtitle for screens.header(title, code, columns, subtitle) that fits beside the
    title and the code on one line of `columns`."""
    room = columns - width(code) - 2 - width(f" {title}") - 2
    return fitted(parts, room)


def list_lines(ls: LearnState, columns: int = 80) -> list[Line]:
    """The lesson list: each lesson (done or not), then the graded match, locked with why
    until every lesson is done, and its newest and best results."""
    from .screens import wrap

    head = "Learn: the lessons"
    summary = fitted(ls.rules.summary().split(", "), columns - len(head) - 4)
    gap = max(1, columns - len(head) - len(summary) - 2)
    lines: list[Line] = [[("class:title", f" {head}{' ' * gap}{summary} "[:columns])]]
    lines.append([("class:dim", "-" * columns)])
    if ls.complete:
        lines.append([("class:standing", " Course complete: every lesson done.")])
    for i, lesson in enumerate(ls.lessons, 1):
        mark = "done" if lesson.key in ls.progress.done else "    "
        lines.append([("", f" {mark}  {i}. {lesson.title}"[:columns])])
    lines.append([("", "")])
    who = ", ".join(GRADED_CPU)
    mark = "open" if ls.match_open else "    "
    lines.append(
        [("class:standing", f" {mark}  t. Test your judgement: a graded match vs {who}"[:columns])]
    )
    indent = " " * 10
    if not ls.match_open:
        lines.append([("class:dim", indent + locked_reason(ls.progress.done, ls.keys()))])
    else:
        lines.append([("", indent + "press t to play a whole game: your place is the grade")])
    results = ls.graded
    if results:
        lines.append([("", f"{indent}last: {results[-1].line()}"[:columns])])
        top = best(results)
        if top is not None and len(results) > 1:
            lines.append([("", f"{indent}best: {top.line()}"[:columns])])
    else:
        lines.append([("class:dim", indent + "no graded match played yet")])
    lines.append([("", "")])
    if ls.said:
        lines += [[("class:standing", " " + line)] for line in wrap(ls.said, columns - 1)]
    keys = f" 1-{len(ls.lessons)} open a lesson   t graded match   d drill   Tab back   q leave"
    lines.append([("class:dim", keys[:columns])])
    return lines


def table_model(ls: LearnState, columns: int = 80) -> TableModel:
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
    if not ls.answered and (finish is None or ls.typed):
        notices.append(f"Typed: {ls.typed}_")
    standing = shown.standing_bid if finish is None else finish.result.bid
    lesson_no = f"lesson {ls.index + 1} of {len(ls.lessons)}"
    title = f"Learn: {lesson.title}"
    parts = (["palifico round"] if state.palifico_round else []) + ls.rules.summary().split(", ")
    if finish is None:
        turn = "Your turn."
    else:
        turn = "Lesson done." if ls.answered else "Answer the question to finish."
    return TableModel(
        title=title,
        subtitle=header_subtitle(title, lesson_no, parts, columns),
        code=lesson_no,
        seats=rows,
        bids=bids,
        standing=f"Standing bid: {standing}" if standing else "No bid yet: you open.",
        turn_line=turn,
        hand=lesson.hands[YOU],
        hand_label=" Your dice:",
        entry=None,
        notices=tuple(notices),
        alarm=None,
        can_undo=False,
        my_turn=finish is None,
        keys=(),
    )


def lesson_table(ls: LearnState, columns: int, height: int, glyphs: Glyphs) -> list[Line]:
    """The lesson's table in `height` lines. A long refusal under the coach's words can
    need one line more than 80x24 leaves: then the turn line goes (the seat list says whose
    turn it is), never the line the learner types on, which is the last."""
    model = table_model(ls, columns)
    whole = render_table(model, columns=columns, height=1_000, glyphs=glyphs)  # none squeezed
    drawn = [line for line in whole if any(text.strip() for _, text in line)]
    if len(drawn) > height and ls.finish is None:
        model = replace(model, turn_line="")
    return render_table(model, columns=columns, height=height, glyphs=glyphs)


def render(ls: LearnState, columns: int = 80, rows: int = 24, glyphs: Glyphs = ASCII) -> list[Line]:
    if ls.listing:
        return list_lines(ls, columns)
    lines = lesson_table(ls, columns, rows - 1, glyphs)
    if ls.answered:
        keys = " Enter: go on   d drill   Tab list   q leave"
    else:
        keys = " 4 5 + Enter: bid   l Liar   x Exact   Esc clear   d drill   Tab list   q leave"
    lines.append([("class:dim", keys[:columns])])
    return lines


def act(ls: LearnState, move: Move) -> None:
    """The learner's move: the coach refuses it with words, or the round plays to the reveal."""
    assert ls.state is not None
    verdict = judge(ls.lesson, ls.rules, ls.state, move)
    ls.said = verdict.text
    if verdict.accepted:
        ls.finish = play(ls.lesson, ls.rules, ls.state, move)


def enter(ls: LearnState, save: Callable[[Progress], None]) -> None:
    """Enter: a typed bid before the reveal, the answer to the counting question after it,
    and once it is answered (the count and the outcome shown) on to the next lesson."""
    typed, ls.typed = ls.typed.strip(), ""
    if ls.answered:
        go_on(ls)
        return
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
    ls.answered = True
    last = all(lesson.key in ls.progress.done for lesson in ls.lessons)
    ls.said = verdict.text + (" Enter: the lesson list." if last else " Enter: the next lesson.")


def go_on(ls: LearnState) -> None:
    """After a lesson: the first lesson not done (whichever lesson was just redone), or the
    lesson list once every lesson is done."""
    left = [i for i, lesson in enumerate(ls.lessons) if lesson.key not in ls.progress.done]
    if left:
        ls.open(left[0])
        ls.said = "Next lesson."
        return
    ls.complete = ls.match_open
    ls.listing = True
    ls.said = "Course complete." + (" The graded match is open: press t." if ls.complete else "")


def list_key(ls: LearnState, key: str) -> int | None:
    """A key on the lesson list: a digit opens that lesson, `t` asks for the graded match
    (the exit code to play it, or why it is locked). None: stay in the course."""
    if key.isdigit() and 1 <= int(key) <= len(ls.lessons):
        ls.open(int(key) - 1)
        return None
    if key == "t":
        if ls.match_open:
            return GRADED_FROM_LEARN
        ls.said = "The graded match is " + locked_reason(ls.progress.done, ls.keys()) + "."
    return None


def type_key(ls: LearnState, key: str) -> None:
    """A key that is not a command where it is pressed: on the list a digit opens a lesson;
    at the table it is typed, as at a game's table (a bid, "four 5s", or the count)."""
    if ls.listing:
        list_key(ls, key)
    elif not ls.answered and len(ls.typed) < 40 and (key.isalnum() or key in " '"):
        ls.typed += key


def build(ls: LearnState, save: Callable[[Progress], None], glyphs: Glyphs) -> Application[int]:
    """The table's keys (ui/keys.py): a letter is a command only while nothing is typed, and
    the command letters (l Liar, x Exact, d drill, q leave; t on the list) begin no number
    word, so "four 5s" types as at a game's table; Esc clears what was typed."""
    kb = KeyBindings()
    free = Condition(lambda: not ls.typed)
    table = Condition(lambda: not ls.listing and ls.finish is None)

    @kb.add("c-c")
    @kb.add("q", filter=free)
    def _quit(event: KeyPressEvent) -> None:
        event.app.exit(result=0)

    @kb.add("d", filter=free)
    def _drill(event: KeyPressEvent) -> None:
        event.app.exit(result=DRILL_FROM_LEARN)

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        if not ls.listing:
            enter(ls, save)

    add_typing_and_calls(
        kb,
        ls,
        calls=free & table,
        liar=lambda: act(ls, Move("liar")),
        exact=lambda: act(ls, Move("exact")),
    )

    @kb.add("tab")
    def _list(event: KeyPressEvent) -> None:
        ls.listing = not ls.listing
        ls.said = ""

    @kb.add("t", filter=Condition(lambda: ls.listing))
    def _graded(event: KeyPressEvent) -> None:
        code = list_key(ls, "t")
        if code is not None:
            event.app.exit(result=code)

    @kb.add(Keys.Any)
    def _type(event: KeyPressEvent) -> None:
        data = event.data
        if len(data) == 1 and data.isprintable():
            type_key(ls, data.lower())

    # The lessons are the table screen and need its 80x24 (the default), the list less.
    return whole_screen_app(lambda columns, rows: render(ls, columns, rows, glyphs), kb)


def run_learn(
    rules: Rules,
    lessons: tuple[Lesson, ...],
    progress: Progress,
    save: Callable[[Progress], None],
    glyphs: Glyphs,
    *,
    said: str = "",
) -> int:
    """Run the course from where `progress` left off (the lesson list once every lesson is
    done); `save` keeps each finished lesson; `said` is a first message (a match's grade)."""
    ls = opening(rules, lessons, progress)
    ls.said = said
    result = build(ls, save, glyphs).run()
    return result if isinstance(result, int) else 0


def opening(rules: Rules, lessons: tuple[Lesson, ...], progress: Progress) -> LearnState:
    """Where the course opens: the first lesson not done, or the list when none is left."""
    ls = LearnState(rules=rules, lessons=lessons, progress=progress)
    ls.open(progress.next_lesson(lessons))
    if ls.match_open:
        ls.complete = ls.listing = True
    return ls
