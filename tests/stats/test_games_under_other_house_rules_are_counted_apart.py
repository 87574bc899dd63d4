"""Statistics are split by rules, house rules included (issue 27): games whose tables differ in
a house rule that changes play land in different groups, games under the same rules in one,
and each group's label names the nearest preset and every option set otherwise."""

from __future__ import annotations

import pytest

from p2pdice.core.rules import OPTION_BY_KEY, PRESETS, Rules, preset
from p2pdice.stats.counts import tally
from p2pdice.stats.games import HOUSE_RULES, Game, preset_of, read_game
from tests.stats.tables import POOL, play_game

#: What each house rule needs before it changes play.
ENABLING = {"palifico_kind": {"palifico": "fixed"}, "exact_reward": {"exact_call": True}}


def counted(number: int, rules: Rules) -> Game:
    game = read_game(
        f"game {number}", b"".join(x + b"\n" for x in play_game(number, rules, POOL[:3]))
    )
    assert isinstance(game, Game), game
    return game


def test_a_house_rule_splits_the_figures_and_the_same_rules_share_them() -> None:
    small = {"seats": 3, "starting_dice": 1}
    games = [
        counted(1, preset("classic", **small, challenge_penalty="difference")),
        counted(2, preset("classic", **small, challenge_penalty="difference")),
        counted(3, preset("classic", **small)),
        counted(4, preset("perudo", **small, exact_reward="others-lose")),
        counted(5, preset("perudo", **small)),
        # No exact calls at a classic table: the reward never plays, so it is plain classic.
        counted(6, preset("classic", **small, exact_reward="others-lose")),
    ]
    groups = tally(games)
    labels = {("standard", g.preset) for g in games}
    assert set(groups) == labels
    assert [g.preset for g in games] == [
        "classic + challenge penalty difference",
        "classic + challenge penalty difference",
        "classic",
        "perudo + exact reward others-lose",
        "perudo",
        "classic",
    ]
    for label, played in [
        ("classic + challenge penalty difference", 2),
        ("classic", 2),
        ("perudo + exact reward others-lose", 1),
        ("perudo", 1),
    ]:
        players = groups[("standard", label)]
        assert len(players) == 3
        assert all(p.games == played for p in players.values()), (label, players)


@pytest.mark.parametrize("key", sorted(HOUSE_RULES))
def test_each_house_rule_value_has_its_own_label_at_each_preset(key: str) -> None:
    option = OPTION_BY_KEY[key]
    for name in PRESETS:
        base = preset(name, **ENABLING.get(key, {}))
        labels = {preset_of(base.with_options(**{key: value})) for value in option.values}
        assert len(labels) == len(option.values), labels
        for value in option.values:
            label = preset_of(base.with_options(**{key: value}))
            assert label.startswith(name)
            shown = f"{option.label.lower()} {value}"
            assert (shown in label) == (value != option.default), label


@pytest.mark.parametrize("key", sorted(ENABLING))
def test_a_house_rule_that_never_plays_does_not_split(key: str) -> None:
    """Without palifico rounds the palifico kind, and without exact calls the exact reward,
    play like their defaults: those tables are counted with the preset's."""
    base = preset("classic")
    assert all(getattr(base, k) != v for k, v in ENABLING[key].items())
    other = next(v for v in OPTION_BY_KEY[key].values if v != OPTION_BY_KEY[key].default)
    assert preset_of(base.with_options(**{key: other})) == preset_of(base) == "classic"


def test_a_table_off_every_preset_is_named_by_the_nearest_one() -> None:
    assert preset_of(preset("classic", ones="natural")) == "classic + ones natural"
    assert preset_of(preset("perudo", palifico="free")) == "perudo + palifico free"
