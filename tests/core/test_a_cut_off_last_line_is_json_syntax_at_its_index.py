"""A log whose last line was cut off fails with JSON_SYNTAX at that line's own index (SPEC.md
9). One of the clarifications an independent implementer of SPEC.md asked for; the rule
itself is written in protocol/SPEC.md."""

from __future__ import annotations

from p2pdice.core.errors import Reason
from p2pdice.core.verify import split_lines


def test_a_cut_off_last_line_is_reported_at_its_own_index() -> None:
    """SPEC.md 9: JSON_SYNTAX at the 0-based index of the line without its line feed."""
    lines, problem = split_lines(b'{"a":1}\n{"b":2}\n{"c"')
    assert lines == [b'{"a":1}', b'{"b":2}', b'{"c"']
    assert problem is not None and (problem.index, problem.reason) == (2, Reason.JSON_SYNTAX)
    lines, problem = split_lines(b'{"a":1}')
    assert problem is not None and problem.index == 0
