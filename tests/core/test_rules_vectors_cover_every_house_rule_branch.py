"""The rules vectors show every branch of the house rules (RULES.md R4, R5, R6).

Each branch is a predicate over a vector case's inputs and expected outputs, so a branch is
covered only when the data shows it, whatever the cases' comments say.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.support.vectors import cases


# ---- showdown facts computed from a case -----------------------------------------------------
def _before(t: dict[str, Any]) -> list[int]:
    return [len(h) for h in t["hands"]]


def _lost(t: dict[str, Any]) -> list[int]:
    return [b - a for b, a in zip(_before(t), t["expected"]["dice_after"], strict=True)]


def _survivors(dice: list[int]) -> list[int]:
    return [s for s, n in enumerate(dice) if n > 0]


def _next_surviving(dice: list[int], seat: int) -> int:
    n = len(dice)
    return next((seat + k) % n for k in range(1, n + 1) if dice[(seat + k) % n] > 0)


def _shown(t: dict[str, Any], face: int) -> int:
    return sum(1 for hand in t["hands"] for die in hand if die == face)


def _hit(t: dict[str, Any]) -> bool:
    return t["call"] == "exact" and t["expected"]["count"] == t["bid"]["quantity"]


def _gap(t: dict[str, Any]) -> int:
    return abs(t["expected"]["count"] - t["bid"]["quantity"])


def _is(g: dict[str, Any], **options: str) -> bool:
    return all(g["rules"][key] == value for key, value in options.items())


def _difference_challenge(g: dict[str, Any], t: dict[str, Any]) -> bool:
    return _is(g, challenge_penalty="difference") and t["call"] == "challenge"


def _others_hit(g: dict[str, Any], t: dict[str, Any]) -> bool:
    return _is(g, exact_reward="others-lose") and _hit(t)


def _loser_out(t: dict[str, Any]) -> bool:
    loser = t["expected"]["loser"]
    return loser is not None and t["expected"]["dice_after"][loser] == 0


def _newly_at_one(t: dict[str, Any]) -> list[int]:
    after = t["expected"]["dice_after"]
    return [s for s, b in enumerate(_before(t)) if b > 1 and after[s] == 1]


def _every_other_seat_lost_one(t: dict[str, Any]) -> bool:
    lost = _lost(t)
    others = [s for s in _survivors(_before(t)) if s != t["caller"]]
    return lost[t["caller"]] == 0 and all(lost[s] == 1 for s in others)


def _caller_is_last(t: dict[str, Any]) -> bool:
    return t["caller"] == max(_survivors(_before(t)))


SHOWDOWN_BRANCHES: dict[str, Callable[[dict[str, Any], dict[str, Any]], bool]] = {
    "difference: loser loses more than one": lambda g, t: (
        _difference_challenge(g, t) and max(_lost(t)) > 1
    ),
    "difference: count equals the bid, the loser loses one": lambda g, t: (
        _difference_challenge(g, t) and _gap(t) == 0 and sorted(_lost(t))[-1] == 1
    ),
    "difference: loser eliminated by the gap": lambda g, t: (
        _difference_challenge(g, t)
        and _loser_out(t)
        and _before(t)[t["expected"]["loser"]] > 1
        and _gap(t) >= _before(t)[t["expected"]["loser"]]
    ),
    "difference: the gap is capped at the dice held": lambda g, t: (
        _difference_challenge(g, t)
        and _loser_out(t)
        and _gap(t) > _before(t)[t["expected"]["loser"]]
    ),
    "difference: next starter when the loser is out": lambda g, t: (
        _difference_challenge(g, t)
        and _loser_out(t)
        and t["expected"]["winner"] is None
        and t["expected"]["next_starter"]
        == _next_surviving(t["expected"]["dice_after"], t["expected"]["loser"])
    ),
    "difference: game over by the gap": lambda g, t: (
        _difference_challenge(g, t) and t["expected"]["winner"] is not None and max(_lost(t)) > 1
    ),
    "difference: a drop of several dice to one opens palifico": lambda g, t: (
        _difference_challenge(g, t) and max(_lost(t)) > 1 and t["expected"]["palifico_next_round"]
    ),
    "difference: exact-call miss by more than one costs one die": lambda g, t: (
        _is(g, challenge_penalty="difference")
        and t["call"] == "exact"
        and _gap(t) > 1
        and _lost(t)[t["caller"]] == 1
        and sum(_lost(t)) == 1
    ),
    "difference: in a palifico round": lambda g, t: (
        _difference_challenge(g, t) and t["palifico_round"] and max(_lost(t)) > 1
    ),
    "others-lose: every other surviving seat loses a die, the caller none": lambda g, t: (
        _others_hit(g, t) and len(_survivors(_before(t))) >= 3 and _every_other_seat_lost_one(t)
    ),
    "others-lose: caller below the cap gains nothing": lambda g, t: (
        _others_hit(g, t)
        and _before(t)[t["caller"]] < g["rules"]["starting_dice"]
        and _lost(t)[t["caller"]] == 0
    ),
    "others-lose: several losers, loser is null": lambda g, t: (
        _others_hit(g, t)
        and sum(1 for n in _lost(t) if n > 0) >= 2
        and t["expected"]["loser"] is None
    ),
    "others-lose: two seats eliminated at once": lambda g, t: (
        _others_hit(g, t) and len(t["expected"]["eliminated"]) >= 2
    ),
    "others-lose: elimination order is play order from the caller, not seat order": lambda g, t: (
        _others_hit(g, t)
        and len(t["expected"]["elimination_order"]) >= 2
        and t["expected"]["elimination_order"] != sorted(t["expected"]["elimination_order"])
    ),
    "others-lose: elimination order equal to seat order": lambda g, t: (
        _others_hit(g, t)
        and len(t["expected"]["elimination_order"]) >= 2
        and t["expected"]["elimination_order"] == sorted(t["expected"]["elimination_order"])
    ),
    "others-lose: next starter when caller is last": lambda g, t: (
        _others_hit(g, t)
        and _caller_is_last(t)
        and t["expected"]["winner"] is None
        and t["expected"]["next_starter"] == t["caller"]
    ),
    "others-lose: next starter is the caller after seats went out": lambda g, t: (
        _others_hit(g, t)
        and t["expected"]["eliminated"]
        and t["expected"]["winner"] is None
        and t["expected"]["next_starter"] == t["caller"]
    ),
    "others-lose: the caller wins when every other seat goes out": lambda g, t: (
        _others_hit(g, t) and t["expected"]["winner"] == t["caller"]
    ),
    "others-lose: no palifico when several seats fall to one; they keep it": lambda g, t: (
        _others_hit(g, t)
        and len([s for s in _newly_at_one(t) if s not in t["palifico_used"]]) >= 2
        and len(_survivors(t["expected"]["dice_after"])) > 2
        and not t["expected"]["palifico_next_round"]
        and not set(_newly_at_one(t)) & set(t["expected"]["palifico_used_after"])
    ),
    "others-lose, two seats: the other seat is the single loser": lambda g, t: (
        _others_hit(g, t)
        and len(_survivors(_before(t))) == 2
        and t["expected"]["loser"] not in (None, t["caller"])
    ),
    "others-lose: a miss costs the caller one die": lambda g, t: (
        _is(g, exact_reward="others-lose")
        and t["call"] == "exact"
        and not _hit(t)
        and t["expected"]["loser"] == t["caller"]
        and _lost(t)[t["caller"]] == 1
    ),
    "others-lose: in a palifico round": lambda g, t: _others_hit(g, t) and t["palifico_round"],
    "others-lose + difference: a hit costs each other seat one die": lambda g, t: (
        _others_hit(g, t)
        and _is(g, challenge_penalty="difference")
        and _every_other_seat_lost_one(t)
        and len(_survivors(_before(t))) >= 3
    ),
    "others-lose + difference: a challenge loser loses the gap": lambda g, t: (
        _is(g, exact_reward="others-lose") and _difference_challenge(g, t) and max(_lost(t)) > 1
    ),
    "ones-not-wild: ones count only as ones": lambda g, t: (
        _is(g, palifico_kind="ones-not-wild")
        and g["rules"]["ones"] != "natural"
        and t["palifico_round"]
        and t["bid"]["face"] != 1
        and _shown(t, 1) > 0
        and t["expected"]["count"] == _shown(t, t["bid"]["face"])
    ),
    "ones-not-wild: a bid on ones counts the ones": lambda g, t: (
        _is(g, palifico_kind="ones-not-wild")
        and t["palifico_round"]
        and t["bid"]["face"] == 1
        and t["expected"]["count"] == _shown(t, 1) > 0
    ),
    "ones-not-wild: ones wild again outside palifico": lambda g, t: (
        _is(g, palifico_kind="ones-not-wild")
        and g["rules"]["ones"] != "natural"
        and not t["palifico_round"]
        and t["bid"]["face"] != 1
        and _shown(t, 1) > 0
        and t["expected"]["count"] == _shown(t, t["bid"]["face"]) + _shown(t, 1)
    ),
    "face-fixed: ones wild in palifico count": lambda g, t: (
        _is(g, palifico_kind="face-fixed")
        and g["rules"]["ones"] in ("wild", "aces")
        and t["palifico_round"]
        and t["bid"]["face"] != 1
        and _shown(t, 1) > 0
        and t["expected"]["count"] == _shown(t, t["bid"]["face"]) + _shown(t, 1)
    ),
    "face-fixed: a natural table counts no wild ones in palifico": lambda g, t: (
        _is(g, palifico_kind="face-fixed", ones="natural")
        and t["palifico_round"]
        and t["bid"]["face"] != 1
        and _shown(t, 1) > 0
        and t["expected"]["count"] == _shown(t, t["bid"]["face"])
    ),
    "face-fixed: exact call in palifico counting wild ones": lambda g, t: (
        _is(g, palifico_kind="face-fixed")
        and g["rules"]["ones"] != "natural"
        and t["palifico_round"]
        and t["call"] == "exact"
        and _shown(t, 1) > 0
        and t["bid"]["face"] != 1
    ),
}


# ---- bid facts -------------------------------------------------------------------------------
def _pal_bid(g: dict[str, Any], t: dict[str, Any], kind: str) -> bool:
    return _is(g, palifico_kind=kind) and t["palifico_round"] and t["previous"] is not None


def _face_change(t: dict[str, Any]) -> bool:
    return t["bid"]["face"] != t["previous"]["face"]


def _half_up(n: int) -> int:
    return -(-n // 2)


BID_BRANCHES: dict[str, Callable[[dict[str, Any], dict[str, Any]], bool]] = {
    "ones-not-wild: ones open a palifico round at an aces table": lambda g, t: (
        _is(g, palifico_kind="ones-not-wild", ones="aces")
        and t["palifico_round"]
        and t["previous"] is None
        and t["bid"]["face"] == 1
        and t["reason"] is None
    ),
    "ones-not-wild: ones open a palifico round at a wild table": lambda g, t: (
        _is(g, palifico_kind="ones-not-wild", ones="wild")
        and t["palifico_round"]
        and t["previous"] is None
        and t["bid"]["face"] == 1
        and t["reason"] is None
    ),
    "ones-not-wild: a many-dice bidder changes the face": lambda g, t: (
        _pal_bid(g, t, "ones-not-wild")
        and _is(g, palifico="fixed")
        and t["bidder_dice"] > 1
        and _face_change(t)
        and t["reason"] is None
    ),
    "ones-not-wild: same quantity on a lower face is not higher": lambda g, t: (
        _pal_bid(g, t, "ones-not-wild")
        and t["bid"]["quantity"] == t["previous"]["quantity"]
        and t["bid"]["face"] < t["previous"]["face"]
        and t["reason"] == "BID_NOT_HIGHER"
    ),
    "ones-not-wild: no aces conversion onto ones": lambda g, t: (
        _pal_bid(g, t, "ones-not-wild")
        and _is(g, ones="aces")
        and t["previous"]["face"] != 1
        and t["bid"]["face"] == 1
        and _half_up(t["previous"]["quantity"]) <= t["bid"]["quantity"] <= t["previous"]["quantity"]
        and t["reason"] == "BID_NOT_HIGHER"
    ),
    "ones-not-wild: leaving ones needs no 2q+1": lambda g, t: (
        _pal_bid(g, t, "ones-not-wild")
        and _is(g, ones="aces")
        and t["previous"]["face"] == 1
        and t["bid"]["face"] != 1
        and t["bid"]["quantity"] < 2 * t["previous"]["quantity"] + 1
        and t["reason"] is None
    ),
    "ones-not-wild: a wild table's ones are biddable as a raise": lambda g, t: (
        _pal_bid(g, t, "ones-not-wild")
        and _is(g, ones="wild")
        and t["bid"]["face"] == 1
        and t["reason"] is None
    ),
    "face-fixed: a many-dice bidder may not change the face": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and t["bidder_dice"] > 1
        and _face_change(t)
        and t["reason"] == "FACE_FIXED"
    ),
    "face-fixed: a one-die bidder at a fixed table may not change the face": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, palifico="fixed")
        and t["bidder_dice"] == 1
        and _face_change(t)
        and t["reason"] == "FACE_FIXED"
    ),
    "face-fixed: a one-die bidder at a free table changes the face": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, palifico="free")
        and t["bidder_dice"] == 1
        and _face_change(t)
        and t["reason"] is None
    ),
    "face-fixed: a valid aces conversion is refused as a face change": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, ones="aces")
        and t["previous"]["face"] != 1
        and t["bid"]["face"] == 1
        and t["bid"]["quantity"] >= _half_up(t["previous"]["quantity"])
        and t["reason"] == "FACE_FIXED"
    ),
    "face-fixed: a one-die bidder converts to ones by the aces rule": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, ones="aces", palifico="free")
        and t["bidder_dice"] == 1
        and t["previous"]["face"] != 1
        and t["bid"]["face"] == 1
        and t["bid"]["quantity"] < t["previous"]["quantity"]
        and t["reason"] is None
    ),
    "face-fixed: leaving ones keeps the 2q+1 rule": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, ones="aces")
        and t["previous"]["face"] == 1
        and t["bid"]["face"] != 1
        and t["bid"]["quantity"] < 2 * t["previous"]["quantity"] + 1
        and t["reason"] == "BID_NOT_HIGHER"
    ),
    "face-fixed: the R2 step 5 reason comes before FACE_FIXED": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and t["bidder_dice"] > 1
        and _face_change(t)
        and t["reason"] in ("BID_NOT_HIGHER", "FACE_NOT_ALLOWED")
    ),
    "face-fixed: ones cannot open a palifico round at an aces table": lambda g, t: (
        _is(g, palifico_kind="face-fixed", ones="aces")
        and t["palifico_round"]
        and t["previous"] is None
        and t["bid"]["face"] == 1
        and t["reason"] == "FACE_NOT_ALLOWED"
    ),
    "face-fixed: ones are never bid at a wild table": lambda g, t: (
        _is(g, palifico_kind="face-fixed", ones="wild")
        and t["palifico_round"]
        and t["bid"]["face"] == 1
        and t["reason"] == "FACE_NOT_ALLOWED"
    ),
    "face-fixed: ones open a palifico round at a natural table": lambda g, t: (
        _is(g, palifico_kind="face-fixed", ones="natural")
        and t["palifico_round"]
        and t["previous"] is None
        and t["bid"]["face"] == 1
        and t["reason"] is None
    ),
    "face-fixed: the standing face (ones), not the opening face, is fixed": lambda g, t: (
        _pal_bid(g, t, "face-fixed")
        and _is(g, ones="aces")
        and t["previous"]["face"] == 1
        and t["bidder_dice"] > 1
        and t["bid"]["quantity"] >= 2 * t["previous"]["quantity"] + 1
        and t["reason"] == "FACE_FIXED"
    ),
}


def _covered(file: str, predicate: Callable[[dict[str, Any], dict[str, Any]], bool]) -> bool:
    return any(predicate(g, t) for g, t in cases(file))


@pytest.mark.parametrize("branch", list(SHOWDOWN_BRANCHES))
def test_showdown_vectors_show_the_house_rule_branch(branch: str) -> None:
    assert _covered("rules_showdown.json", SHOWDOWN_BRANCHES[branch]), branch


@pytest.mark.parametrize("branch", list(BID_BRANCHES))
def test_bid_vectors_show_the_house_rule_branch(branch: str) -> None:
    assert _covered("rules_bids.json", BID_BRANCHES[branch]), branch


def test_every_rules_object_carries_every_option() -> None:
    """Each group's rules name all three house options (a reader builds its table from them)."""
    for name in ("rules_bids.json", "rules_showdown.json"):
        groups = [g for g, _ in cases(name)]
        assert all(
            {"palifico_kind", "exact_reward", "challenge_penalty"} <= g["rules"].keys()
            for g in groups
        )
        values = {
            (key, g["rules"][key])
            for g in groups
            for key in ("palifico_kind", "exact_reward", "challenge_penalty")
        }
        wanted = {
            ("palifico_kind", "both"),
            ("palifico_kind", "ones-not-wild"),
            ("palifico_kind", "face-fixed"),
        }
        if name == "rules_showdown.json":
            wanted |= {
                ("exact_reward", "regain"),
                ("exact_reward", "others-lose"),
                ("challenge_penalty", "one"),
                ("challenge_penalty", "difference"),
            }
        assert wanted <= values, name
