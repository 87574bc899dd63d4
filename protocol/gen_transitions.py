"""Writes SPEC.md 7's phase diagram and transition tables from the table machine's own table
(p2pdice/core/transitions.py), between its begin and end markers; the rest of SPEC.md is
left as it is. tests/core/test_spec_transitions.py fails when the two differ.

    python protocol/gen_transitions.py [--spec PATH]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from p2pdice.core.transitions import SPEC_BEGIN, SPEC_END, spec_section

SPEC = Path(__file__).with_name("SPEC.md")


def with_generated_section(text: str) -> str:
    """`text` (SPEC.md) with the part from SPEC_BEGIN to SPEC_END (and its line feed) regenerated."""
    start = text.index(SPEC_BEGIN)
    end = text.index(SPEC_END, start) + len(SPEC_END) + 1
    return text[:start] + spec_section() + text[end:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spec", type=Path, default=SPEC)
    args = parser.parse_args()
    text = args.spec.read_text(encoding="utf-8")
    args.spec.write_text(with_generated_section(text), encoding="utf-8")


if __name__ == "__main__":
    main()
