"""`p2pdice learn`: the course of lessons (docs/learning.md), with progress kept in its own
file in the data folder, apart from tables, transcripts and statistics."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..bots.graded import GRADED_CPU
from ..core.frozen import replace
from ..core.grading import (
    GradedResult,
    best,
    grade_match,
    graded_rules,
    locked_reason,
    setting_of,
)
from ..core.rules import OPTION_BY_KEY, OPTIONS, PRESETS, Rules, preset
from .common import (
    CPU_THINK,
    LOCAL_TABLES,
    add_cpu_think_option,
    add_home_option,
    cpu_think_of,
    home_of,
)
from .options import CliError, add_rules_options, rules_from_args

if TYPE_CHECKING:  # the drill plays bots, the match a table: loaded only when opened
    from ..bots.drill import DrillProgress
    from ..core.lessons import Progress  # the course loads only when a command runs
    from ..ui.controller import Controller
    from ..ui.lobby import LobbyActions
    from .runtime import TableRuntime

#: The progress file, directly in the data folder: never under tables/ or hosted/, which
#: hold the games `p2pdice stats` reads, so a lesson never counts as a match.
PROGRESS_FILE = "learning.json"
#: The judgement drill's score, a sibling file for the same reason.
DRILL_FILE = "drill.json"
#: Where the graded match's table keeps its host and seat (their keys and transcripts): a
#: folder of its own (common.LOCAL_TABLES), so the match is found by its grade alone. It is a
#: practice table: `p2pdice stats` shows it among the practice games, never as a contest.
GRADED_DIR = LOCAL_TABLES["graded"]
#: Table options the course sets itself, whatever the command line says: lessons have no
#: clock, undo or drawn starter; the graded match always has four seats, no undo, no time
#: bank and a fairly drawn first starter; drill positions are drawn from bot games. So
#: `learn` neither offers nor accepts them.
FIXED_BY_THE_COURSE = ("time_bank", "undo", "first_starter")
#: How `--seats` reads under `learn`: it sizes the drill's tables only.
SEATS_HELP = (
    "players at the judgement drill's tables (lessons seat 3, the graded match 4): 2..6 (default 4)"
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    learn = sub.add_parser(
        "learn",
        help="a short course of lessons at the table, with fixed dice and a coach",
        description="Lessons played on the table screen: each a scripted round with fixed dice. "
        "Lessons follow the rules options (aces and palifico lessons only where they apply). "
        "Progress is saved and resumed; --reset starts afresh. --drill opens the judgement "
        "drill: positions from bot games, the exact chance the bid holds, and the strong "
        "bot's advice, scored per skill. Once every lesson is done, t on the lesson list "
        "(Tab) plays the graded match: a whole game against CPU players "
        f"({', '.join(GRADED_CPU)}), graded by your place.",
    )
    learn.add_argument("--reset", action="store_true", help="forget progress and start afresh")
    learn.add_argument(
        "--list", action="store_true", help="print the lessons and which are done, then exit"
    )
    learn.add_argument(
        "--drill",
        action="store_true",
        help="the judgement drill instead of the lessons (--reset and --list then apply to "
        "its score)",
    )
    add_cpu_think_option(learn)  # the graded match's CPU players
    add_rules_options(learn, hosted=False)
    for action in learn._actions:
        if action.dest in FIXED_BY_THE_COURSE:
            action.help = argparse.SUPPRESS  # refused in run(): see FIXED_BY_THE_COURSE
        elif action.dest == "seats":
            action.help = SEATS_HELP
    add_home_option(learn)
    learn.set_defaults(run=run)


def refuse_fixed_options(args: argparse.Namespace) -> None:
    """A course option given on the command line is an error that says why (it would be
    ignored otherwise)."""
    for key in FIXED_BY_THE_COURSE:
        if getattr(args, key, None) is not None:
            raise CliError(
                f"{OPTION_BY_KEY[key].flag}: the course sets it itself (lessons have no clock; "
                "the graded match has four seats, no undo, no time bank and a drawn starter)"
            )


def course_flags(rules: Rules) -> str:
    """The rules options that open this course again, shortest first: a preset and what
    differs from it, or the options that differ from the defaults ("" for the defaults)."""
    keys = [o.key for o in OPTIONS if not o.hidden and o.key not in FIXED_BY_THE_COURSE]
    keys = [k for k in keys if k not in ("seats", "kind")]  # the course's own seat counts
    choices = [("", Rules())] + [(f"--preset {name}", preset(name)) for name in sorted(PRESETS)]
    spelled = []
    for head, base in choices:
        words = [head] if head else []
        for key in keys:
            value = getattr(rules, key)
            if value == getattr(base, key):
                continue
            flag = OPTION_BY_KEY[key].flag
            if isinstance(value, bool):
                words.append(flag if value else flag.replace("--", "--no-", 1))
            else:
                words.append(f"{flag} {value}")
        spelled.append(" ".join(words))
    return min(spelled, key=lambda text: (len(text.split()), len(text)))


def progress_path(home: Path) -> Path:
    return home / PROGRESS_FILE


def load_progress(home: Path) -> Progress:
    from ..core.lessons import Progress

    try:
        return Progress.from_json(json.loads(progress_path(home).read_bytes()))
    except (OSError, ValueError):
        return Progress()


def save_progress(home: Path, progress: Progress) -> None:
    from ..store import atomic_write  # whole file or the old one: survives kill -9

    atomic_write(progress_path(home), json.dumps(progress.to_json(), indent=1).encode())


def drill_path(home: Path) -> Path:
    return home / DRILL_FILE


def load_drill(home: Path) -> DrillProgress:
    from ..bots.drill import DrillProgress

    try:
        return DrillProgress.from_json(json.loads(drill_path(home).read_bytes()))
    except (OSError, ValueError, TypeError, AttributeError):
        return DrillProgress()


def save_drill(home: Path, progress: DrillProgress) -> None:
    from ..store import atomic_write  # whole file or the old one: survives kill -9

    atomic_write(drill_path(home), json.dumps(progress.to_json(), indent=1).encode())


def run_drill_here(home: Path, rules: Rules) -> int:
    from ..ui.app import pick_glyphs
    from ..ui.drill import run_drill

    return run_drill(rules, load_drill(home), lambda p: save_drill(home, p), pick_glyphs())


def _drill_command(args: argparse.Namespace, home: Path, rules: Rules) -> int:
    if args.reset:
        drill_path(home).unlink(missing_ok=True)
        print("p2pdice learn: drill score reset")
    if args.list:
        print("drill score (right/asked): " + load_drill(home).line())
        return 0
    if args.reset and not _interactive():
        return 0
    return run_drill_here(home, rules)


def run(args: argparse.Namespace) -> int:
    from ..core.lessons import course

    home = home_of(args)
    refuse_fixed_options(args)
    rules = rules_from_args(args)
    if args.drill:
        return _drill_command(args, home, rules)
    if args.reset:
        progress_path(home).unlink(missing_ok=True)
        print("p2pdice learn: progress reset")
    progress = load_progress(home)
    lessons = course(rules)
    if args.list:
        for i, lesson in enumerate(lessons, 1):
            mark = "done" if lesson.key in progress.done else "    "
            print(f"{mark}  {i}. {lesson.title}")
        keys = tuple(lesson.key for lesson in lessons)
        print("\n".join(graded_list_lines(progress, keys, rules)))
        return 0
    if args.reset and not _interactive():
        return 0
    return _course(home, rules, cpu_think_of(args))


def graded_list_lines(
    progress: Progress, lesson_keys: tuple[str, ...], rules: Rules | None = None
) -> list[str]:
    """The graded match's lines under `--list` for the course on `rules`: locked and why, or
    open and how to play it (with the options that open this course), and its results on
    these rules only: a grade earned on other house rules is not comparable."""
    rules = rules or Rules()
    why = locked_reason(progress.done, lesson_keys)
    command = " ".join(["p2pdice learn", course_flags(rules)]).rstrip()
    out = [
        f"{'    ' if why else 'open'}  t. Test your judgement: a graded match vs "
        + ", ".join(GRADED_CPU),
        f"          {why or f'play it: {command}, then t on the lesson list'}",
    ]
    results = progress.graded_on(setting_of(rules))
    if results:
        out.append(f"          last: {results[-1].line()}")
        top = best(results)
        if top is not None and len(results) > 1:
            out.append(f"          best: {top.line()}")
    return out


def _course(home: Path, rules: Rules, cpu_think: float = CPU_THINK) -> int:
    """The lessons; their `d` opens the drill and `t` on the list the graded match, and
    leaving either comes back to the lessons."""
    from ..core.lessons import course
    from ..ui.app import pick_glyphs
    from ..ui.learn import DRILL_FROM_LEARN, GRADED_FROM_LEARN, run_learn

    said = ""
    while True:
        code = run_learn(
            rules,
            course(rules),
            load_progress(home),
            lambda p: save_progress(home, p),
            pick_glyphs(),
            said=said,
        )
        said = ""
        if code == DRILL_FROM_LEARN:
            run_drill_here(home, rules)
        elif code == GRADED_FROM_LEARN:
            said = run_graded(home, rules, cpu_think)
        else:
            return code


# ---- the graded match ---------------------------------------------------------------------


async def start_graded(
    home: Path, rules: Rules, *, name: str | None = None, cpu_think: float = CPU_THINK
) -> TableRuntime:
    """The graded match's table: the practice table `p2pdice practice` opens (loopback, not
    advertised), with the fixed CPU players and the course's rules (core.grading), and no
    rematch: one match, one grade."""
    from .runtime import default_name, local_table

    return await local_table(
        home / GRADED_DIR,
        name="Graded match",
        rules=graded_rules(rules),
        cpu=list(GRADED_CPU),
        humans=[name or default_name()],
        kind="practice",
        cpu_think=cpu_think,
    )


def graded_setup(
    home: Path, rules: Rules, *, name: str | None = None, cpu_think: float = CPU_THINK
) -> Callable[[Controller, LobbyActions], None]:
    """What the terminal client opens for the match, as `practice` opens its table."""

    def setup(c: Controller, lobby: LobbyActions) -> None:
        lobby.open_table(
            lambda: start_graded(home, rules, name=name, cpu_think=cpu_think),
            "opening the graded match",
        )

    return setup


def graded_transcripts(home: Path) -> set[Path]:
    """The transcripts the graded match's seat has saved."""
    return {p for p in (home / GRADED_DIR).glob("*/tables/*/transcript.jsonl") if p.is_file()}


def grade_new_match(home: Path, before: set[Path], today: str, rules: Rules) -> GradedResult | None:
    """The grade of the finished game among the transcripts saved since `before` (verified
    first, as `stats` reads a game), filed under the course's setting on `rules`; None when
    the match was left before its end."""
    from ..stats.games import Game, read_game

    for path in sorted(graded_transcripts(home) - before):
        game = read_game(str(path), path.read_bytes())
        if not isinstance(game, Game) or not game.finished:
            continue
        seat = next(p.seat for p in game.players if p.kind == "human")
        result = grade_match(game.places, seat, game.results, today)
        return replace(result, setting=setting_of(rules))
    return None


def finish_graded(home: Path, before: set[Path], today: str, rules: Rules) -> str:
    """Grade the match just played on the course's `rules` and keep the result in the
    progress file; the words the lesson list then shows."""
    result = grade_new_match(home, before, today, rules)
    if result is None:
        return "The graded match was left before its end: no grade."
    save_progress(home, load_progress(home).with_graded(result))
    return f"Graded match: {result.line()}."


def run_graded(home: Path, rules: Rules, cpu_think: float = CPU_THINK) -> str:
    """Play the graded match in this terminal, then grade it."""
    import datetime

    from .ui import run_screen

    before = graded_transcripts(home)
    run_screen(home, graded_setup(home, rules, cpu_think=cpu_think))
    return finish_graded(home, before, datetime.date.today().isoformat(), rules)


def learn_with_defaults(home: Path) -> int:
    """The course on the default rules, as the lobby's `l` opens it."""
    return _course(home, Rules())


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()
