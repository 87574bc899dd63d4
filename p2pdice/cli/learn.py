"""`p2pdice learn`: the course of lessons (docs/learning.md), with progress kept in its own
file in the data folder, apart from tables, transcripts and statistics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..core.lessons import Progress, course
from .common import add_home_option, home_of
from .options import add_rules_options, rules_from_args

#: The progress file, directly in the data folder: never under tables/ or hosted/, which
#: hold the games `p2pdice stats` reads, so a lesson never counts as a match.
PROGRESS_FILE = "learning.json"


def add_parser(sub: argparse._SubParsersAction) -> None:
    learn = sub.add_parser(
        "learn",
        help="a short course of lessons at the table, with fixed dice and a coach",
        description="Lessons played on the table screen: each a scripted round with fixed dice. "
        "Lessons follow the rules options (aces and palifico lessons only where they apply). "
        "Progress is saved and resumed; --reset starts afresh.",
    )
    learn.add_argument("--reset", action="store_true", help="forget progress and start afresh")
    learn.add_argument(
        "--list", action="store_true", help="print the lessons and which are done, then exit"
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


def run(args: argparse.Namespace) -> int:
    home = home_of(args)
    rules = rules_from_args(args)
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
    from ..ui.app import pick_glyphs
    from ..ui.learn import run_learn

    return run_learn(rules, lessons, progress, lambda p: save_progress(home, p), pick_glyphs())


def learn_with_defaults(home: Path) -> int:
    """The course on the default rules, as the lobby's `l` opens it."""
    from ..core.rules import Rules
    from ..ui.app import pick_glyphs
    from ..ui.learn import run_learn

    rules = Rules()
    progress = load_progress(home)
    return run_learn(
        rules, course(rules), progress, lambda p: save_progress(home, p), pick_glyphs()
    )


def _interactive() -> bool:
    import sys

    return sys.stdin.isatty() and sys.stdout.isatty()
