from __future__ import annotations

import pytest

from p2pdice.core.errors import OptionError
from p2pdice.core.rules import Ones, Palifico, Rules, TableKind, preset


def test_defaults_match_the_rules_spec() -> None:
    assert Rules().to_json() == {
        "seats": 4,
        "starting_dice": 5,
        "ones": "wild",
        "exact_call": False,
        "palifico": "off",
        "turn_timer": 0,
        "grace_period": 30,
        "undo": False,
        "kind": "standard",
        "first_starter": "random",
    }


def test_presets() -> None:
    classic = preset("classic")
    assert (classic.ones, classic.exact_call, classic.palifico) == (Ones.WILD, False, Palifico.OFF)
    perudo = preset("perudo", seats=3)
    assert (perudo.ones, perudo.exact_call, perudo.palifico, perudo.seats) == (
        Ones.ACES,
        True,
        Palifico.FIXED,
        3,
    )
    assert preset("perudo", palifico="free").palifico == Palifico.FREE


@pytest.mark.parametrize(
    ("changes", "key", "allowed_word"),
    [
        ({"seats": 1}, "seats", "2 to 6"),
        ({"seats": 7}, "seats", "2 to 6"),
        ({"starting_dice": 0}, "starting_dice", "1 to 5"),
        ({"starting_dice": 6}, "starting_dice", "1 to 5"),
        ({"ones": "sometimes"}, "ones", "wild, natural, aces"),
        ({"palifico": "maybe"}, "palifico", "off, fixed, free"),
        ({"turn_timer": 45}, "turn_timer", "0, 30, 60"),
        ({"grace_period": 1}, "grace_period", "5 to 600"),
        ({"exact_call": 1}, "exact_call", "true or false"),
        ({"kind": "ranked"}, "kind", "standard, practice, pass_and_play"),
        ({"first_starter": "youngest"}, "first_starter", "random, seat0"),
        ({"seats": True}, "seats", "2 to 6"),
        ({"undo": True}, "undo", "practice"),
    ],
)
def test_bad_options_name_the_key_and_the_allowed_values(changes, key, allowed_word) -> None:
    with pytest.raises(OptionError) as info:
        Rules(**changes)
    assert info.value.key == key
    assert allowed_word in str(info.value)


def test_undo_allowed_off_standard_tables() -> None:
    assert Rules(undo=True, kind=TableKind.PRACTICE).undo
    assert Rules(undo=True, kind="pass_and_play").kind == TableKind.PASS_AND_PLAY


def test_json_round_trip_is_strict() -> None:
    rules = preset("perudo", seats=6, starting_dice=3)
    assert Rules.from_json(rules.to_json()) == rules
    obj = rules.to_json()
    with pytest.raises(OptionError, match="unknown option"):
        Rules.from_json({**obj, "jokers": True})
    del obj["palifico"]
    with pytest.raises(OptionError, match="missing"):
        Rules.from_json(obj)
    with pytest.raises(OptionError):
        Rules.from_json(["not", "an", "object"])
