"""The README's sample screen is what `p2pdice practice` opens: as many CPU seats as the
default, and the seat list laid out as the table screen draws it."""

from __future__ import annotations

import re
from pathlib import Path

from p2pdice.cli.common import PRACTICE_CPU
from p2pdice.ui.screens import plain, render_table
from p2pdice.ui.text import UNICODE
from p2pdice.ui.viewmodel import table_model
from tests.ui.helpers import bidding, snap_of

README = Path(__file__).resolve().parents[2] / "README.md"


def _sample() -> list[str]:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"```\n( Practice .*?)```", text, re.S)
    assert match, "README.md shows a practice table's screen"
    return match[1].splitlines()


def test_the_sample_has_the_default_number_of_cpu_seats() -> None:
    rows = [line for line in _sample() if re.match(r"^ [ >▶] CPU \w+ \d", line)]
    assert len(rows) == PRACTICE_CPU


def test_the_sample_lays_out_the_seats_as_the_screen_does() -> None:
    drawn = plain(render_table(table_model(snap_of(bidding(), me=0)), glyphs=UNICODE))
    heading = next(line for line in drawn.splitlines() if "Bids this round" in line)
    assert heading.rstrip() in [line.rstrip() for line in _sample()]


def test_the_sample_seats_the_person_first_as_practice_does() -> None:
    """People sit first (docs/playing.md): the sample's person is seat 0, above the CPUs, as
    in a real `p2pdice practice` (it once showed "you" last, at seat 3)."""
    rows = [line for line in _sample() if re.match(r"^ [ >▶] \S.*\s\d\s\s", line)]
    assert rows[0].startswith(" ▶ you ") and "your turn" in rows[0]
    cpus = [re.match(r"^ [ >▶] (CPU \w+ \d)", line) for line in rows[1:]]
    assert [m[1] if m else None for m in cpus] == [
        f"CPU medium {i}" for i in range(1, PRACTICE_CPU + 1)
    ]
    assert " Your dice (you, seat 0):" in _sample()
