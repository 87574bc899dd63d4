"""A graded match's result is filed under the house rules it was played on, and each course
lists only its own; `--list` says how to open that same course (first-time user report:
`learn --list --preset perudo` showed a wild-ones grade and left out `--preset perudo`)."""

from __future__ import annotations

from p2pdice.cli import main
from p2pdice.cli.learn import course_flags, load_progress, save_progress
from p2pdice.core.grading import GradedResult, setting_of
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import ChallengePenalty, Ones, Rules, preset

PERUDO = preset("perudo")


def test_list_shows_only_the_grades_of_its_own_rules_and_the_command_to_play_them(
    tmp_path, capsys
) -> None:
    wild = GradedResult("D", 4, 4, "2026-12-01", setting=setting_of(Rules()))
    aces = GradedResult("B", 2, 4, "2026-12-02", setting=setting_of(PERUDO))
    keys = tuple(lesson.key for lesson in course(PERUDO))
    save_progress(tmp_path, Progress(done=keys).with_graded(wild).with_graded(aces))

    main(["learn", "--list", "--preset", "perudo", "--home", str(tmp_path)])
    out = capsys.readouterr().out
    assert f"last: {aces.line()}" in out and wild.line() not in out
    assert "play it: p2pdice learn --preset perudo, then t" in out

    main(["learn", "--list", "--home", str(tmp_path)])
    out = capsys.readouterr().out
    assert aces.line() not in out and f"last: {wild.line()}" in out
    assert load_progress(tmp_path).graded == (wild, aces)  # both kept


def test_the_course_flags_open_the_same_course() -> None:
    assert course_flags(Rules()) == ""
    assert course_flags(PERUDO) == "--preset perudo"
    assert course_flags(preset("perudo", exact_call=False)) == "--preset perudo --no-exact-call"
    assert (
        course_flags(Rules(ones=Ones.NATURAL, challenge_penalty=ChallengePenalty.DIFFERENCE))
        == "--ones natural --challenge-penalty difference"
    )
