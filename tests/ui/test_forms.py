"""The new-table form and the lobby book, as plain data."""

from __future__ import annotations

import pytest

from p2pdice.bots.names import BOT_NAMES, STYLE_NAMES
from p2pdice.core.advert import Advert
from p2pdice.core.rules import Ones, Rules, TableKind
from p2pdice.ui.hostform import HostForm
from p2pdice.ui.lobbymodel import DROP_AFTER_FAILURES, LobbyBook
from p2pdice.ui.panels import render_form
from p2pdice.ui.screens import plain
from p2pdice.ui.text import width


def test_presets_fill_options_and_any_change_makes_it_custom() -> None:
    form = HostForm()
    form.set("preset", "perudo")
    rules = form.check()
    assert rules is not None and rules.ones == Ones.ACES and rules.exact_call
    form.set("exact_call", False)
    assert form.values["preset"] == "custom"
    form.set("exact_call", True)
    assert form.values["preset"] == "perudo"


def test_every_option_of_the_rules_is_on_the_form() -> None:
    keys = {f.key for f in HostForm(kind=TableKind.PRACTICE).fields()}
    assert set(Rules().to_json()) - {"kind"} <= keys
    standard = {f.key for f in HostForm().fields()}
    assert {"name", "password", "cpu", "fill"} <= standard and "undo" not in standard


def test_cycling_choices_and_text_fields() -> None:
    form = HostForm()
    form.index = [f.key for f in form.fields()].index("seats")
    assert form.values["seats"] == 6  # a hosted table opens for up to six
    form.change(-1)
    assert form.values["seats"] == 5
    form.index = 0  # table name
    for ch in "\x1b!":
        form.type_char(ch)
    form.backspace()
    assert form.values["name"] == "p2pdice table"


def test_pass_and_play_players_and_seats() -> None:
    form = HostForm(kind=TableKind.PASS_AND_PLAY)
    form.values["players"] = "Ann, Bob, Ann"
    assert form.check() is None and "same name" in form.error
    form.values["players"] = "Ann, Bob, Cid, Dan"
    assert form.check() is None and "seats" in form.error
    form.values["players"] = "Ann,Bob"
    rules = form.check()
    assert rules is not None and rules.undo and form.cpu() == ["medium"]
    assert form.summary(rules)[0][0] == "players: Ann, Bob"


def test_lobby_greys_then_drops_a_silent_host() -> None:
    book = LobbyBook()
    book.announce(
        "k._p2pdice._tcp.local.",
        "Kitchen",
        ["10.0.0.5"],
        7000,
        Advert(table_id="aa", phase="lobby"),
        0.0,
    )
    assert [e.service for e in book.due(0.0)] == ["k._p2pdice._tcp.local."]
    book.probed("k._p2pdice._tcp.local.", listed=True, now=0.0)
    assert book.rows()[0].joinable and not book.due(1.0)
    book.probed("k._p2pdice._tcp.local.", listed=None, now=2.0)
    row = book.rows()[0]
    assert row.stale and not row.joinable and row.phase == "not answering"
    for i in range(DROP_AFTER_FAILURES):
        book.probed("k._p2pdice._tcp.local.", listed=None, now=4.0 + i)
    assert book.rows() == []


def test_lobby_drops_a_table_its_host_no_longer_lists_and_honours_goodbyes() -> None:
    book = LobbyBook()
    book.announce("a", "A", ["10.0.0.1"], 1, Advert(table_id="aa"), 0.0)
    book.announce("b", "B", ["10.0.0.2"], 2, Advert(table_id="bb"), 0.0)
    book.probed("a", listed=False, now=1.0)
    book.goodbye("b")
    assert book.rows() == [] and book.current() is None


def test_the_host_form_opens_six_seats_with_no_cpu_and_says_what_empty_seats_become() -> None:
    form = HostForm()
    assert form.values["seats"] == 6 and form.cpu() == [] and form.fill_level() is None
    rules = form.check()
    assert rules is not None
    assert any("empty seats: left out" in line for line in form.summary(rules)[0])
    form.set("fill", "hard")
    assert form.fill_level() == "hard"
    assert any("a hard CPU each" in line for line in form.summary(rules)[0])


def test_each_cpu_seat_of_the_form_plays_at_its_own_level() -> None:
    """A level field per CPU seat, in the order the CPUs sit down (after the people), with
    the difficulties and the fixed styles `--cpu` accepts; what the form opens is that list."""
    form = HostForm()
    assert not [f for f in form.fields() if f.key.startswith("level")]  # no CPU, no level
    form.set("cpu", 2)
    levels = [f for f in form.fields() if f.key.startswith("level")]
    assert [f.label for f in levels] == ["CPU 1", "CPU 2"]
    assert levels[0].choices == (*BOT_NAMES, *STYLE_NAMES)
    form.index = form.fields().index(levels[0])
    form.change(-1)  # medium -> easy
    form.index = form.fields().index(levels[1])
    form.change(1)  # medium -> hard
    assert form.cpu() == ["easy", "hard"]
    rules = form.check()
    assert rules is not None
    assert any("CPU seats: 2 (easy, hard), seated after the players" in line
               for line in form.summary(rules)[0])  # fmt: skip
    practice = HostForm(kind=TableKind.PRACTICE)
    practice.set("seats", 4)
    practice.set("level3", "never-calls")
    assert practice.cpu() == ["medium", "medium", "never-calls"]  # you hold the first seat


def test_a_form_with_a_level_per_cpu_seat_scrolls_to_keep_the_chosen_field_on_screen() -> None:
    form = HostForm(kind=TableKind.PRACTICE)
    form.set("seats", 6)
    form.index = len(form.fields()) - 1  # the last CPU's level
    text = [" ".join(t for _, t in line) for line in render_form(form, height=22)]
    assert len(text) <= 22
    assert any("CPU 5" in line and "<" in line for line in text)
    assert any("more above" in line for line in text)


@pytest.mark.parametrize("columns", [80, 100])
@pytest.mark.parametrize("kind", list(TableKind))
def test_the_new_table_form_never_cuts_a_label(kind: TableKind, columns: int) -> None:
    """Each field's label is shown whole ("Challenge penalty", once "Challenge penal~"), and
    every line still fits the terminal."""
    form = HostForm(kind=kind)
    lines = plain(render_form(form, columns=columns, height=60)).splitlines()
    assert all(width(line) <= columns for line in lines)
    rows = [line[3:] for line in lines if line.startswith((" > ", "   "))]
    for field in form.fields():
        assert any(row.startswith(field.label + " ") for row in rows), (field.label, rows)
    assert not any("~" in row for row in rows), rows
