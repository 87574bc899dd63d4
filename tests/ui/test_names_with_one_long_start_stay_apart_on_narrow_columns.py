"""Two names that share a start longer than a column (the seat list, the bids, the reveal)
must not be drawn alike: where cutting the end would make them one name, the column keeps
the start and the end of each instead."""

from __future__ import annotations

from p2pdice.core.rules import Rules
from p2pdice.ui.reveal import reveal_model
from p2pdice.ui.screens import plain, render_reveal, render_table
from p2pdice.ui.text import fit, fit_apart, width
from p2pdice.ui.viewmodel import table_model

from .helpers import opened, revealed, snap_of

ALIKE = ("Alexandra Konstantinova", "Alexandra Konstantinidis", "Cid")


def test_only_names_that_would_look_alike_are_cut_in_the_middle() -> None:
    for name in ALIKE[:2]:
        apart = fit_apart(name, 14, ALIKE)
        assert width(apart) == 14 and "~" in apart and apart.rstrip().endswith(name[-4:])
    assert fit_apart(ALIKE[0], 14, ALIKE) != fit_apart(ALIKE[1], 14, ALIKE)
    assert fit_apart("Cid", 14, ALIKE) == fit("Cid", 14)
    assert fit_apart(ALIKE[0], 14, ("Bob", ALIKE[0])) == fit(ALIKE[0], 14)  # no look-alike
    # They differ only a few characters before the end: the end kept grows until it shows.
    near = ("Christopher Johnson Jr", "Christopher Johnston Jr")
    assert fit_apart(near[0], 14, near) != fit_apart(near[1], 14, near)
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"
    emoji = (f"Fam {family}{family}{family}1", f"Fam {family}{family}{family}2")
    drawn = [fit_apart(name, 8, emoji) for name in emoji]
    assert drawn[0] != drawn[1] and all(width(d) == 8 for d in drawn)
    assert not any("\u200d~" in d or "~\u200d" in d for d in drawn), drawn
    wide = ("李小龍李小龍李小龍甲", "李小龍李小龍李小龍乙")
    assert fit_apart(wide[0], 9, wide) != fit_apart(wide[1], 9, wide)
    assert all(width(fit_apart(name, 9, wide)) == 9 for name in wide)


def test_the_table_and_the_reveal_tell_the_two_apart() -> None:
    rules = Rules(seats=3, first_starter="seat0")
    state = revealed(rules)
    table = plain(render_table(table_model(snap_of(state, me=2, names=ALIKE))))
    assert "nova" in table and "idis" in table, table
    reveal = reveal_model(snap_of(state, me=2, names=ALIKE, notes=opened(1, (0, 1, 2))))
    assert reveal is not None
    text = plain(render_reveal(reveal))
    assert "nova" in text and "idis" in text, text


def test_a_joined_emoji_or_a_vowel_sign_keeps_the_columns_after_it_in_line() -> None:
    """A name with a joined emoji (a family: four emoji and three joiners) or with vowel
    signs: the seat list's separator stands in the same column on every row, measured as
    prompt_toolkit measures what it draws (wcwidth)."""
    from prompt_toolkit.utils import get_cwidth

    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466Fam"
    names = (family, "\u0928\u093f\u0924\u093f\u0928", "Cid")
    text = plain(render_table(table_model(snap_of(revealed(), me=2, names=names))))
    columns = set()
    for name in names:
        [line] = [line for line in text.splitlines() if name in line and "|" in line]
        before = line[: line.index("|")]
        columns.add(sum(get_cwidth(ch) for ch in before))
    assert len(columns) == 1, (columns, text)
