"""hard's opponent model, learnt within a game: each gauntlet style is read for what it is."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.reads import ANCHOR, HABIT_SHARPNESS, UNREAD, opponent_reads
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.game import Action, RoundResult
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView


def _results_against(style: str, seed: int, rules: Rules | None = None) -> tuple[RoundResult, ...]:
    """The finished rounds of one real heads-up game, hard at seat 0, as hard last saw them."""
    hard = load_bot("hard")
    seen: list[tuple[RoundResult, ...]] = []

    def watching(view: SeatView, rng: random.Random) -> Action:
        seen.append(view.results)
        return hard(view, rng)

    rules = rules or preset("classic", seats=2)
    play_game(rules, [watching, load_bot(style)], random.Random(seed))
    return max(seen, key=len)


@pytest.mark.parametrize(
    ("style", "check"),
    [
        # Read as a Bayesian reader, it believes our bids more than a seat judging by its
        # own hand: the same few calls then fit a threshold one step higher.
        ("never-calls", lambda read: read.calls_below <= (0.15 if read.bayes else 0.1)),
        # Four or five reveals move the threshold well above the anchor (the prior holds it
        # back from 1.0 until there is more evidence).
        ("always-calls", lambda read: read.calls_below >= 0.5),
        # Its bids do not follow its hand: read as random (its smallest steps fit that
        # better than the modelled "away from the hand" softmax).
        ("misleading", lambda read: read.sharpness <= 0),
        ("medium", lambda read: 0.25 <= read.calls_below <= 0.45 and read.sharpness > 0),
    ],
)
def test_each_style_is_read_for_what_it_is(style: str, check) -> None:  # type: ignore[no-untyped-def]
    results = _results_against(style, seed=4)
    assert len(results) >= 4
    read = opponent_reads(preset("classic", seats=2), results)[1]
    assert check(read), read


@pytest.mark.parametrize("seed", [4, 5, 6])
def test_misleading_in_perudo_is_read_as_bidding_by_habit(seed: int) -> None:
    # In perudo it always bids aces (it holds fewest of them, as every hand does): its
    # steady small ace raises look "mildly hand-led" to the softmax, which would credit it
    # with aces; the hand-blind habit model fits them better, so its bids are discounted.
    rules = preset("perudo", seats=2)
    results = _results_against("misleading", seed, rules)
    assert len(results) >= 4
    read = opponent_reads(rules, results)[1]
    assert read.sharpness == HABIT_SHARPNESS, read


def test_medium_in_perudo_is_still_read_as_hand_led() -> None:
    rules = preset("perudo", seats=2)
    read = opponent_reads(rules, _results_against("medium", 4, rules))[1]
    assert read.sharpness > 0, read


def test_no_evidence_means_the_anchor() -> None:
    assert opponent_reads(preset("classic", seats=2), ()) == {}
    assert ANCHOR.calls_below == 0.35


SEEDS = range(4, 12)


def _credits(style: str, mode: str) -> list[float]:
    rules = preset(mode, seats=2)
    reads = [opponent_reads(rules, _results_against(style, seed, rules)) for seed in SEEDS]
    return [r[1].credit for r in reads if 1 in r]


def test_a_bid_crediting_reader_is_read_as_riding_others_bids() -> None:
    # It raises on the face another seat named, crediting that seat with two dice of it.
    # One game of eight may show too little of that to tell (a short game in which it
    # seldom raised on a face hard named).
    classic = _credits("crediting-reader", "classic")
    assert len(classic) == len(SEEDS) and sum(c >= 0.9 for c in classic) >= len(SEEDS) - 1, classic
    perudo = sorted(_credits("crediting-reader", "perudo"))
    assert perudo[len(perudo) // 2] >= 0.8, perudo


@pytest.mark.parametrize("style", ["medium", "never-calls", "weakest-face", "style-switcher"])
def test_a_seat_that_bids_from_its_own_hand_is_not_read_as_riding(style: str) -> None:
    # Crediting a seat that does not ride would make hard's bluffs look safe against it.
    # One game of eight may lean a little (weakest-face's bluffs on a face hard named fit the
    # rider's model for a round or two), never past even odds.
    classic = _credits(style, "classic")
    assert sum(c > 0.1 for c in classic) <= 1 and max(classic) < 0.5, classic
    perudo = _credits(style, "perudo")  # ace raises fit either model in a game or two
    assert sum(c > 0.5 for c in perudo) <= 1, perudo


def test_a_stranger_is_taken_to_judge_bids_by_its_own_hand() -> None:
    assert UNREAD.credit == 0.0 and ANCHOR.credit == 0.0
