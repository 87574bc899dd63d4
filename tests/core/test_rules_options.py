from __future__ import annotations

import json
import re

import pytest

from p2pdice.core.errors import OptionError
from p2pdice.core.rules import OPTIONS, Ones, Option, Palifico, Rules, TableKind, preset
from tests.support.vectors import PROTOCOL

RULES_MD = PROTOCOL / "RULES.md"


def _r1_rows() -> dict[str, list[str]]:
    text = RULES_MD.read_text(encoding="utf-8")
    section = text.split("## R1.", 1)[1].split("## R2.", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)`", cells[0]) if cells else None
        if match:
            rows[match[1]] = cells[1:]
    return rows


def _r1_allowed(option: Option) -> str:
    if isinstance(option.allowed, range):
        return f"{option.allowed.start}..{option.allowed.stop - 1}"
    return ", ".join(json.dumps(v) for v in option.values)


def test_defaults_match_the_rules_spec() -> None:
    """Each option's type, allowed values and default are RULES.md R1's, in its order."""
    rows = _r1_rows()
    assert list(rows) == [o.key for o in OPTIONS]
    for option in OPTIONS:
        kind, allowed, default = rows[option.key]
        assert kind == ("boolean" if option.is_bool else "string" if option.enum else "integer")
        words = allowed if isinstance(option.allowed, range) else allowed.replace("`", "")
        assert words.startswith(_r1_allowed(option)), option.key
        assert default.strip("`") == json.dumps(Rules().to_json()[option.key]), option.key


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
        ({"first_starter": "youngest"}, "first_starter", "random, host, seat0"),
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
