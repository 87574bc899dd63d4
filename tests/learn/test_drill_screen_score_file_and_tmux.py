"""The judgement drill on screen and on disk: every screen fits 80x24 and says the chances,
the score is kept in its own file (never with matches) that a kill -9 cannot damage, and a
person completes one question in a real terminal with the keys the screen names."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from p2pdice.bots.drill import Answer, DrillProgress, figures
from p2pdice.cli import main
from p2pdice.cli.learn import drill_path, load_drill, progress_path, save_drill
from p2pdice.core.describe import bid_words
from p2pdice.core.rules import Ones, Palifico, Rules
from p2pdice.ui.drill import DrillState, answer, enter, render
from p2pdice.ui.screens import plain
from tests.support.killed_writer import killed_mid_write
from tests.support.tmux import Tmux

TABLES = (
    Rules(),
    Rules(ones=Ones.ACES, exact_call=True, seats=6),
    Rules(ones=Ones.NATURAL, palifico=Palifico.FIXED, seats=3, starting_dice=2),
)


def fits(text: str) -> None:
    lines = text.splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, text


def test_every_drill_screen_fits_80x24_and_the_answer_shows_the_exact_chances() -> None:
    for rules in TABLES:
        saved: list[DrillProgress] = []
        ds = DrillState(rules=rules, progress=DrillProgress(), save=saved.append)
        for _ in range(8):
            ds.next()
            question = plain(render(ds))
            fits(question)
            assert "Standing bid:" in question and "Your dice:" in question
            assert ds.position is not None
            fig = figures(ds.position.view)
            answer(ds, Answer("call"))
            shown = plain(render(ds))
            fits(shown)
            assert f"{bid_words(fig.standing)} holds {fig.holds:.1%}" in shown
            assert "Hard " in shown and "Under the cups:" in shown
        assert saved[-1].line() == ds.progress.line()
        assert sum(ds.progress.asked.values()) == 8


def test_an_illegal_or_mistyped_raise_is_explained_and_not_scored() -> None:
    ds = DrillState(rules=Rules(), progress=DrillProgress(), save=lambda p: None)
    ds.next()
    ds.typed = "1 2"
    enter(ds)
    assert "is not a raise here" in ds.said and ds.answer is None
    ds.typed = "9"
    enter(ds)
    assert ds.said.startswith("Not a bid") and not ds.progress.asked
    assert ds.position is not None
    lowest = next(iter(ds.position.view.lowest_bids_per_face().values()))
    ds.typed = f"{lowest.quantity} {lowest.face}"
    enter(ds)
    assert ds.answer == Answer("raise", lowest) and sum(ds.progress.asked.values()) == 1


def test_the_drill_score_is_its_own_file_and_reset_and_list_touch_only_it(
    tmp_path: Path, capsys
) -> None:
    save_drill(tmp_path, DrillProgress(drawn=3, right={"calling": 1}, asked={"calling": 2}))
    assert main(["learn", "--drill", "--list", "--home", str(tmp_path)]) == 0
    assert "calling 1/2" in capsys.readouterr().out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drill.json"]
    progress_path(tmp_path).write_text('{"done": ["cup"]}')
    assert main(["learn", "--drill", "--reset", "--list", "--home", str(tmp_path)]) == 0
    assert load_drill(tmp_path) == DrillProgress() and progress_path(tmp_path).exists()
    drill_path(tmp_path).write_text("{damaged")
    assert load_drill(tmp_path) == DrillProgress()


WRITER = """
import sys
from pathlib import Path
from p2pdice.bots.drill import DrillProgress
from p2pdice.cli.learn import save_drill
home = Path(sys.argv[1])
n = 0
print("writing", flush=True)
while True:
    n += 1
    save_drill(home, DrillProgress(drawn=n, right={"calling": n}, asked={"calling": n}))
"""


def test_a_kill_9_while_the_score_is_written_leaves_a_whole_file(tmp_path: Path) -> None:
    for left in killed_mid_write(WRITER, tmp_path, drill_path(tmp_path)):
        loaded = DrillProgress.from_json(json.loads(left))  # never half a file
        assert loaded.drawn > 0
        assert loaded.right["calling"] == loaded.asked["calling"] == loaded.drawn


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_one_drill_question_is_answered_in_a_real_terminal(tmp_path: Path) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--drill", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        screen = t.wait_for(lambda s: "Judgement drill" in s and "Typed:" in s, 30, "drill")
        assert "position 1" in screen and "l Liar" in screen
        t.keys("1", "Space", "1", "Enter")  # never a raise here: explained, not scored
        t.wait_for(lambda s: "is not a raise here" in s or "Not a bid" in s, 10, "refusal")
        t.keys("l")
        screen = t.wait_for(lambda s: "Under the cups" in s, 10, "the answer")
        assert "You called Liar" in screen and "Hard " in screen and "/1" in screen
        t.keys("n")
        t.wait_for(lambda s: "position 2" in s and "Typed:" in s, 10, "the next position")
        t.keys("q")
        t.wait_for(lambda s: "Judgement drill" not in s, 10, "the app to close")
    finally:
        t.kill()
    saved = DrillProgress.from_json(json.loads(drill_path(tmp_path).read_text()))
    assert saved.drawn == 2 and sum(saved.asked.values()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["drill.json", "stderr.txt"]


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_d_in_the_lessons_opens_the_drill_and_leaving_it_returns_to_the_lessons(
    tmp_path: Path,
) -> None:
    t = Tmux()
    t.start([sys.executable, "-m", "p2pdice", "learn", "--home", str(tmp_path)],
            stderr=tmp_path / "stderr.txt")  # fmt: skip
    try:
        screen = t.wait_for(lambda s: "lesson 1 of" in s, 30, "the first lesson")
        assert "d drill" in screen
        t.keys("d")
        t.wait_for(lambda s: "Judgement drill" in s and "Typed:" in s, 30, "the drill")
        t.keys("q")
        t.wait_for(lambda s: "lesson 1 of" in s, 30, "the lessons again")
        t.keys("q")
        t.wait_for(lambda s: "lesson 1 of" not in s, 10, "the app to close")
    finally:
        t.kill()
    assert drill_path(tmp_path).exists() and not (tmp_path / "tables").exists()


def test_the_drill_screen_in_the_playing_guide_is_what_the_drill_draws() -> None:
    guide = (Path(__file__).resolve().parents[2] / "docs" / "playing.md").read_text()
    score = DrillProgress(
        drawn=4, right={"calling": 2, "raising": 1}, asked={"calling": 3, "raising": 1}
    )
    ds = DrillState(rules=Rules(), progress=score, save=lambda p: None)
    ds.next()
    answer(ds, Answer("call"))
    drawn = [line.rstrip() for line in plain(render(ds)).splitlines() if line.strip()]
    missing = [line for line in drawn if line not in guide]
    assert missing == [], "re-capture the drill screen in docs/playing.md"
