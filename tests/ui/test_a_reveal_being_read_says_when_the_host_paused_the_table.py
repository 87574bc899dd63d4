"""A player still reading the reveal when the host pauses the table (or their link drops) is
told so on the reveal itself, in the words the table screen uses, instead of a reveal that
still says who starts the next round while nothing can happen."""

from __future__ import annotations

from dataclasses import replace

import pytest

from p2pdice.ui.reveal import reveal_model
from p2pdice.ui.screens import plain, render_reveal
from tests.ui.helpers import revealed, snap_of

PAUSED = "The host paused the table; it can be resumed"


def _reveal(**link: object) -> str:
    model = reveal_model(replace(snap_of(revealed(), me=1), **link))
    assert model is not None
    text = plain(render_reveal(model, columns=80, height=24))
    assert all(len(line) <= 80 for line in text.splitlines())
    return " ".join(text.split())  # the line may wrap: read it as words


def test_the_reveal_says_the_host_paused_the_table() -> None:
    seen = _reveal(host_closing="paused", link="reconnecting")
    assert PAUSED in seen and "your seat and dice are kept" in seen, seen
    assert "reconnecting" not in seen.lower(), seen


@pytest.mark.parametrize(
    ("link", "said"),
    [("reconnecting", "Connection lost: reconnecting"), ("lost", "The host stopped answering")],
)
def test_the_reveal_says_the_link_is_down(link: str, said: str) -> None:
    assert said in _reveal(link=link)


def test_a_reveal_read_while_connected_says_what_comes_next() -> None:
    seen = _reveal(link="connected", host_closing="paused")  # paused before, and back since
    assert "paused" not in seen and "reconnect" not in seen.lower(), seen
    model = reveal_model(replace(snap_of(revealed(), me=1), link="reconnecting"))
    assert model is not None and model.keys[0][0] == "Enter"  # Enter still goes to the table
