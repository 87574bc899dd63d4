"""The practice screen's first frame waits for no coach, no bot and no course: what
`p2pdice practice` imports before it paints (the parser, `cli.ui`, `ui.app` and the lobby
services `run_screen` builds) holds none of the strong bot, the coach's review, the drills,
the CPU registry, the lessons or the course's screen.

docs/benchmarks.md ("First paint and `--help`") holds the first paint to < 0.6 s, which it
missed (0.66-1.3 s) while `ui.state` imported the coach's page and with it `bots.review`,
`bots.hard` and `bots.drill` (about 85 ms of imports, their caches and tables), and
`ui.keys` and `ui.panels` imported the course for an exit code and two rule texts. So this
checks what is imported, in a fresh process, rather than timing it: the coach is imported
when a review is made (`v`), the course when it opens (`l`), the lessons' texts when a form
explains its rules; the CPUs themselves come with the table, after the first frame."""

from __future__ import annotations

from tests.support.loaded_modules import modules_loaded_by

#: What run_practice has imported when run_app draws the first frame (cli/ui.py: the
#: parser, then run_screen's `ui.app` and `_services`' `cli.lobby`).
BEFORE_THE_FIRST_FRAME = """
import json
import sys

from p2pdice.cli import build_parser

build_parser()
import p2pdice.cli.ui
import p2pdice.ui.app
import p2pdice.cli.lobby

print(json.dumps(sorted(sys.modules)))
"""

#: The coach and the bots (the strong bot with its tables, the readers, the CPU registry),
#: the drills, and the course.
HEAVY_MODULES = (
    "p2pdice.bots.hard",
    "p2pdice.bots.review",
    "p2pdice.bots.drill",
    "p2pdice.bots.registry",
    "p2pdice.bots.belief",
    "p2pdice.bots.cfr",
    "p2pdice.bots.readers",
    "p2pdice.bots.styles",
    "p2pdice.bots.sim",
    "p2pdice.core.lessons",
    "p2pdice.ui.learn",
    "p2pdice.ui.drill",
)


def modules_loaded_before_the_first_frame() -> list[str]:
    loaded = modules_loaded_by(BEFORE_THE_FIRST_FRAME)
    assert "p2pdice.ui.app" in loaded and "prompt_toolkit" in loaded  # it did load the screen
    return loaded


def test_the_table_screen_loads_without_the_coach_the_bots_or_the_course() -> None:
    heavy = [name for name in modules_loaded_before_the_first_frame() if name in HEAVY_MODULES]
    assert heavy == [], heavy
