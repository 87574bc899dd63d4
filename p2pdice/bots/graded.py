"""Who the learner meets in the graded match (core.grading): always the same CPU players, so
a grade means the same every time. Two play at the level practice tables default to, one at
the strongest level; docs/learning.md names them."""

from __future__ import annotations

from ..core.grading import GRADED_SEATS
from .names import BOT_NAMES, DEFAULT_LEVEL

#: In seat order after the learner's.
GRADED_CPU: tuple[str, ...] = (DEFAULT_LEVEL, DEFAULT_LEVEL, BOT_NAMES[-1])

assert len(GRADED_CPU) == GRADED_SEATS - 1, "the match's seats are the learner and these"
