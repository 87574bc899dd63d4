"""Progress lives in its own file in the data folder: saved per lesson, resumed, reset, and
never among the tables and transcripts `p2pdice stats` reads."""

from __future__ import annotations

import json
from pathlib import Path

from p2pdice.cli import main
from p2pdice.cli.learn import load_progress, progress_path, save_progress
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules


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
