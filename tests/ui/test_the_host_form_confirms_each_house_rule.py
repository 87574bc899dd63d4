"""The host form (issue 27): each house rule set on the form is bound into the table's rules
and named on the confirmation screen, in `Rules.summary`'s words."""

from __future__ import annotations

import pytest

from p2pdice.ui.hostform import HostForm
from p2pdice.ui.panels import render_confirm

#: (option, value, the options it needs to play, the words the summary uses for it)
HOUSE_RULES = [
    ("palifico_kind", "ones-not-wild", {"palifico": "fixed"}, "palifico fixed (ones-not-wild)"),
    ("palifico_kind", "face-fixed", {"palifico": "free"}, "palifico free (face-fixed)"),
    ("exact_reward", "others-lose", {"exact_call": True}, "exact: others-lose"),
    ("challenge_penalty", "difference", {}, "lose the difference"),
]


@pytest.mark.parametrize(
    ("key", "value", "needs", "words"), HOUSE_RULES, ids=[f"{k}={v}" for k, v, _, _ in HOUSE_RULES]
)
def test_a_house_rule_set_on_the_form_is_in_the_rules_and_on_the_confirmation(
    key: str, value: str, needs: dict[str, object], words: str
) -> None:
    form = HostForm()
    plain = " ".join(
        "".join(t for _, t in line) for line in render_confirm(form, form.rules(), height=40)
    )
    assert words not in plain
    for option, setting in {**needs, key: value}.items():
        form.set(option, setting)
    rules = form.check()
    assert rules is not None and str(getattr(rules, key)) == value
    assert words in rules.summary()
    shown = " ".join("".join(t for _, t in line) for line in render_confirm(form, rules, height=40))
    assert words in shown, shown
