"""Progress lives in its own file in the data folder: saved per lesson, resumed, reset, whole
after a kill -9, and never among the tables and transcripts `p2pdice stats` reads."""

from __future__ import annotations

import json
from pathlib import Path

from p2pdice.cli import main
from p2pdice.cli.learn import load_progress, progress_path, save_progress
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules
from tests.support.killed_writer import killed_mid_write


def test_progress_resumes_at_the_first_lesson_not_done(tmp_path: Path) -> None:
    lessons = course(Rules())
    save_progress(tmp_path, Progress().finish(lessons[0].key).finish(lessons[1].key))
    again = load_progress(tmp_path)
    assert again.next_lesson(lessons) == 2
    assert json.loads(progress_path(tmp_path).read_text())["done"] == [
        lessons[0].key,
        lessons[1].key,
    ]


def test_reset_forgets_progress(tmp_path: Path, capsys) -> None:
    save_progress(tmp_path, Progress(done=("cup",)))
    assert main(["learn", "--home", str(tmp_path), "--reset", "--list"]) == 0
    assert load_progress(tmp_path) == Progress()
    assert "progress reset" in capsys.readouterr().out


def test_a_damaged_progress_file_starts_afresh(tmp_path: Path) -> None:
    progress_path(tmp_path).write_text("{not json")
    assert load_progress(tmp_path) == Progress()


def test_the_list_shows_done_lessons_and_writes_nothing_a_match_would(
    tmp_path: Path, capsys
) -> None:
    save_progress(tmp_path, Progress(done=("cup",)))
    assert main(["learn", "--home", str(tmp_path), "--list"]) == 0
    out = capsys.readouterr().out
    assert "done  1. Your cup and the table" in out
    assert not (tmp_path / "tables").exists() and not (tmp_path / "hosted").exists()


WRITER = """
import sys
from pathlib import Path
from p2pdice.cli.learn import save_progress
from p2pdice.core.grading import GradedResult
from p2pdice.core.lessons import Progress
home = Path(sys.argv[1])
n = 0
print("writing", flush=True)
while True:
    n += 1
    result = GradedResult("A", 1, 4, "2026-12-03", calls=n, calls_right=n)
    save_progress(home, Progress(done=tuple(f"lesson{i}" for i in range(n % 50 + 1)),
                                 graded=(result,)))
"""


def test_a_kill_9_while_progress_is_written_leaves_a_whole_file(tmp_path: Path) -> None:
    for left in killed_mid_write(WRITER, tmp_path, progress_path(tmp_path)):
        loaded = Progress.from_json(json.loads(left))  # never half a file
        [result] = loaded.graded
        assert result.calls > 0 and len(loaded.done) == result.calls % 50 + 1
    # Besides the file itself only a killed write's hidden temporary may be left: nothing a
    # match would write.
    assert [p.name for p in tmp_path.iterdir() if not p.name.startswith(".")] == ["learning.json"]
