"""The lesson and drill headers fit the house rules in whole words ("..." for what is left
out), never cut mid-word (first-time user report: `palifico fixed, 5 dice -~`, `palifi~`)."""

from __future__ import annotations

import itertools

import pytest

from p2pdice.bots.drill import DrillProgress
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import ChallengePenalty, ExactReward, Ones, Palifico, PalificoKind, Rules
from p2pdice.ui import drill, learn
from p2pdice.ui.screens import plain

LONG = Rules(
    ones=Ones.ACES,
    exact_call=True,
    exact_reward=ExactReward.OTHERS_LOSE,
    palifico=Palifico.FREE,
    palifico_kind=PalificoKind.FACE_FIXED,
    challenge_penalty=ChallengePenalty.DIFFERENCE,
)


def whole_parts(header: str, code: str, summary: str) -> None:
    assert "~" not in header and header.rstrip().endswith(code), header
    parts = [*summary.split(", "), "palifico round", "..."]
    left = header[: header.rindex(code)]
    shown = left.split("  ", 1)[1].strip() if "  " in left.strip() else ""
    for piece in filter(None, shown.split(", ")):
        assert piece in parts, (piece, header)


@pytest.mark.parametrize(("rules", "columns"), list(itertools.product([LONG, Rules()], [80, 100])))
def test_every_lesson_header_and_the_drills_keep_whole_words(rules: Rules, columns: int) -> None:
    lessons = course(rules)
    ls = learn.opening(rules, lessons, Progress())
    for i in range(len(lessons)):
        ls.open(i)
        header = plain(learn.render(ls, columns, 32)).splitlines()[0]
        whole_parts(header, f"lesson {i + 1} of {len(lessons)}", rules.summary())
    ds = drill.DrillState(rules=rules, progress=DrillProgress(), save=lambda p: None)
    ds.next()
    header = plain(drill.render(ds, columns, 32)).splitlines()[0]
    whole_parts(header, "position 1", rules.summary())
