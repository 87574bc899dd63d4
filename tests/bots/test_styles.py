"""The gauntlet styles do what docs/bots.md says, and medium's exact call respects the cap.

The two readers of the stronger gauntlet (crediting-reader, sampler) have their own file,
test_readers.py."""

from __future__ import annotations

import argparse
import json
import random

import pytest

from p2pdice.bots.names import EXPLOIT_STYLE_NAMES, STRONGER_STYLE_NAMES
from p2pdice.bots.registry import load_bot
from p2pdice.cli import tournament as cmd_tournament
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, ExactCall, PlaceBid, PlacedBid
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView
from tests.support.views import bidding_view


def _view(
    rules: Rules, hand: tuple[int, ...], dice: tuple[int, ...], bids: tuple[Bid, ...] = ()
) -> SeatView:
    """Seat 0 to move; the bids alternate between the seats, the last one by seat 1."""
    seats = len(dice)
    placed = tuple(PlacedBid((1 - len(bids) + i) % seats, bid) for i, bid in enumerate(bids))
    return bidding_view(rules, hand, dice, placed)


CLASSIC = preset("classic", seats=2)


def test_never_calls_raises_lowest_on_its_best_face_and_calls_only_the_impossible() -> None:
    bot = load_bot("never-calls")
    rng = random.Random(1)
    # Best face: 4 (two 4s and a wild one count three); the lowest legal bid on it is 5 x 4s.
    view = _view(CLASSIC, (4, 4, 1, 2, 6), (5, 5), (Bid(5, 3),))
    assert bot(view, rng) == PlaceBid(0, Bid(5, 4))
    # 9 x 3s is unlikely but possible (no 3 in hand, 5 unseen... 9 > 0 + 5: impossible).
    assert bot(_view(CLASSIC, (4, 4, 1, 2, 6), (5, 5), (Bid(9, 3),)), rng) == Challenge(0)
    # 6 x 3s: one wild one in hand plus 5 unseen makes 6 possible, so it raises.
    assert isinstance(bot(_view(CLASSIC, (4, 4, 1, 2, 6), (5, 5), (Bid(6, 3),)), rng), PlaceBid)


def test_always_calls_calls_even_a_certain_bid() -> None:
    bot = load_bot("always-calls")
    assert bot(
        _view(CLASSIC, (3, 3, 3, 3, 3), (5, 5), (Bid(1, 3),)), random.Random(1)
    ) == Challenge(0)
    opening = bot(_view(CLASSIC, (3, 3, 3, 6, 2), (5, 5)), random.Random(1))
    assert opening == PlaceBid(0, Bid(1, 3))


def test_misleading_bids_the_face_it_holds_fewest_of() -> None:
    bot = load_bot("misleading")
    action = bot(_view(CLASSIC, (2, 2, 3, 3, 5), (5, 5), (Bid(2, 2),)), random.Random(1))
    assert action == PlaceBid(0, Bid(2, 4))  # no 4s and no 6s: the lower face, smallest step


def test_heavy_bluffer_often_bids_faces_it_lacks() -> None:
    bot = load_bot("heavy-bluffer")
    view = _view(CLASSIC, (6, 6, 6, 6, 6), (5, 5), (Bid(2, 2),))
    faces = {bot(view, random.Random(seed)).bid.face for seed in range(40)}  # type: ignore[union-attr]
    assert faces - {6}, "never bluffed on another face"
    assert 6 in faces


def test_weakest_face_raises_on_its_weakest_face_while_that_is_still_30_percent_likely() -> None:
    bot = load_bot("weakest-face")
    # No 3s and no 5s: its weakest faces. 3 x 3s (the lowest on 3s) is 21% likely from its
    # hand, too unlikely; 2 x 5s is 54%. medium takes the sure 2 x 6s.
    view = _view(CLASSIC, (6, 6, 6, 2, 4), (5, 5), (Bid(2, 3),))
    assert bot(view, random.Random(1)) == PlaceBid(0, Bid(2, 5))
    assert load_bot("medium")(view, random.Random(1)) == PlaceBid(0, Bid(2, 6))


def test_weakest_face_opens_its_weakest_face_at_the_highest_quantity_still_30_percent_likely() -> (
    None
):
    bot = load_bot("weakest-face")
    view = _view(CLASSIC, (6, 6, 6, 2, 4), (5, 5))
    # 3s and 5s tie (none held): 2 of them is 54% likely, 3 of them 21%. The tie is drawn.
    bids = {bot(view, random.Random(seed)).bid for seed in range(20)}  # type: ignore[union-attr]
    assert bids == {Bid(2, 3), Bid(2, 5)}


def test_weakest_face_plays_like_medium_when_no_weak_bid_is_likely_enough() -> None:
    # Facing 4 x 6s with two 6s: every raise needs 5 dice, at best 21% likely (5 x 6s).
    view = _view(CLASSIC, (6, 6, 2, 3, 4), (5, 5), (Bid(4, 6),))
    assert load_bot("weakest-face")(view, random.Random(1)) == PlaceBid(0, Bid(5, 6))
    assert load_bot("medium")(view, random.Random(1)) == PlaceBid(0, Bid(5, 6))


def test_style_switcher_alternates_three_honest_rounds_and_three_weakest_face_rounds() -> None:
    bot = load_bot("style-switcher")
    placed = (PlacedBid(1, Bid(2, 3)),)
    moves = [
        bot(
            bidding_view(CLASSIC, (6, 6, 6, 2, 4), (5, 5), placed, round_number=r), random.Random(1)
        )
        for r in range(1, 10)
    ]
    honest, weakest = PlaceBid(0, Bid(2, 6)), PlaceBid(0, Bid(2, 5))
    assert moves == [honest] * 3 + [weakest] * 3 + [honest] * 3


def test_medium_calls_exact_only_below_the_starting_dice() -> None:
    medium = load_bot("medium")
    perudo = preset("perudo", seats=2)
    rng = random.Random(1)
    # An exact count is 2/3 likely (one unseen die, which must not be a 3) in both positions.
    below_cap = _view(perudo, (3, 3, 3, 3), (4, 1), (Bid(4, 3),))
    assert medium(below_cap, rng) == ExactCall(0)
    at_cap = _view(perudo, (3, 3, 3, 3, 3), (5, 1), (Bid(5, 3),))
    assert not isinstance(medium(at_cap, rng), ExactCall)


@pytest.mark.parametrize("styles", [EXPLOIT_STYLE_NAMES, STRONGER_STYLE_NAMES])
def test_the_tournament_command_takes_the_styles_by_name(
    styles: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    cmd_tournament.add_parser(parser.add_subparsers())
    names = ",".join(("hard", *styles))
    args = parser.parse_args(["tournament", "--bots", names, "--games", "4", "--json"])
    assert args.run(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["bots"]) == {"hard", *styles}
