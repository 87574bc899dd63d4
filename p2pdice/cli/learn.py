"""`p2pdice learn`: the course of lessons (docs/learning.md), with progress kept in its own
file in the data folder, apart from tables, transcripts and statistics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.lessons import Progress, course
from ..core.rules import Rules
from .common import add_home_option, home_of
from .options import add_rules_options, rules_from_args

if TYPE_CHECKING:  # the drill plays bots: loaded only when it is opened
    from ..bots.drill import DrillProgress

#: The progress file, directly in the data folder: never under tables/ or hosted/, which
#: hold the games `p2pdice stats` reads, so a lesson never counts as a match.
PROGRESS_FILE = "learning.json"
#: The judgement drill's score, a sibling file for the same reason.
DRILL_FILE = "drill.json"


def add_parser(sub: argparse._SubParsersAction) -> None:
    learn = sub.add_parser(
        "learn",
        help="a short course of lessons at the table, with fixed dice and a coach",
        description="Lessons played on the table screen: each a scripted round with fixed dice. "
        "Lessons follow the rules options (aces and palifico lessons only where they apply). "
        "Progress is saved and resumed; --reset starts afresh. --drill opens the judgement "
        "drill: positions from bot games, the exact chance the bid holds, and the strong "
        "bot's advice, scored per skill.",
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
    add_rules_options(learn)
    add_home_option(learn)
    learn.set_defaults(run=run)


def progress_path(home: Path) -> Path:
    return home / PROGRESS_FILE


def load_progress(home: Path) -> Progress:
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
    home = home_of(args)
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
        return 0
    if args.reset and not _interactive():
        return 0
    return _course(home, rules)


def _course(home: Path, rules: Rules) -> int:
    """The lessons; their `d` opens the drill, and leaving it comes back to the lessons."""
    from ..ui.app import pick_glyphs
    from ..ui.learn import DRILL_FROM_LEARN, run_learn

    while True:
        code = run_learn(
            rules,
            course(rules),
            load_progress(home),
            lambda p: save_progress(home, p),
            pick_glyphs(),
        )
        if code != DRILL_FROM_LEARN:
            return code
        run_drill_here(home, rules)


def learn_with_defaults(home: Path) -> int:
    """The course on the default rules, as the lobby's `l` opens it."""
    return _course(home, Rules())


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()
