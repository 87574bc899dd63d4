"""The Bayesian-reader opponent model: a seat that judges bids by its own dice plus a
posterior over the other hands given their bids; hard reads a seat that plays so as one,
and a seat that judges by its own hand (medium) as before."""

from __future__ import annotations

import random

from p2pdice.bots.bayes_reader import seen_by
from p2pdice.bots.belief import seen_support
from p2pdice.bots.hard import _call_chance
from p2pdice.bots.medium import medium
from p2pdice.bots.odds import at_least
from p2pdice.bots.reads import opponent_reads
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.bids import Bid
from p2pdice.core.game import Action, Challenge, PlaceBid, RoundResult
from p2pdice.core.rules import Rules, preset
from p2pdice.core.view import SeatView

CLASSIC = preset("classic", seats=2)


def test_a_readers_posterior_over_a_hand_moves_toward_the_face_it_bid() -> None:
    dice = (5, 5)
    prior = seen_by(CLASSIC, False, dice, (), 1)
    after_fives = seen_by(CLASSIC, False, dice, ((0, Bid(3, 5)),), 1)
    after_twos = seen_by(CLASSIC, False, dice, ((0, Bid(3, 2)),), 1)
    # P(seat 0 holds two fives or more, ones wild) to seat 1.
    assert prior[4][2] == at_least(2, 5, 1 / 3)
    assert after_fives[4][2] > prior[4][2] + 0.1
    # An opening on another face says little for fives, and rather that they are fewer.
    assert after_twos[4][2] < after_fives[4][2] - 0.1


def _reader_bot(view: SeatView, rng: random.Random) -> Action:
    """medium's thresholds, but every chance judged from its own dice plus the posterior over
    the other hand given that hand's bids (a Bayesian reader of the simplest kind)."""
    seat = view.seat
    assert seat is not None
    standing = view.standing_bid
    if standing is None:
        return medium(view, rng)
    pairs = tuple((b.seat, b.bid) for b in view.bids)
    seen = seen_by(view.rules, view.palifico_round, tuple(view.dice), pairs, seat)

    def chance(bid: Bid) -> float:
        return seen_support(seen, bid.face, bid.quantity, view.own_matching(bid.face))

    if chance(standing) < 0.35:
        return Challenge(seat)
    lowest = view.lowest_bids_per_face()
    candidates = [b for low in lowest.values() for b in (low, Bid(low.quantity + 1, low.face))]
    candidates = [b for b in candidates if b.quantity <= view.dice_in_play]
    if not candidates:
        return Challenge(seat)
    best = max(candidates, key=lambda b: (chance(b), -b.quantity, b.face))
    return PlaceBid(seat, best) if chance(best) >= 0.15 else Challenge(seat)


def _results_against(opponent, seed: int, rules: Rules) -> tuple[RoundResult, ...]:  # type: ignore[no-untyped-def]
    """The finished rounds of one real heads-up game, hard at seat 0."""
    hard = load_bot("hard")
    seen: list[tuple[RoundResult, ...]] = []

    def watching(view: SeatView, rng: random.Random) -> Action:
        seen.append(view.results)
        return hard(view, rng)

    play_game(rules, [watching, opponent], random.Random(seed))
    return max(seen, key=len)


def test_hard_reads_a_seat_that_plays_as_a_bayesian_reader_as_one() -> None:
    read = [opponent_reads(CLASSIC, _results_against(_reader_bot, s, CLASSIC))[1] for s in (1, 2)]
    assert all(r.bayes >= 0.5 for r in read), read


def test_hard_does_not_read_medium_as_a_bayesian_reader() -> None:
    read = [opponent_reads(CLASSIC, _results_against(medium, s, CLASSIC))[1] for s in (1, 2)]
    assert all(r.bayes == 0.0 for r in read), read


def test_a_bayesian_reader_is_predicted_to_believe_our_change_of_face() -> None:
    # We open four fives with five dice each (ones wild); a seat holding one five, judging
    # by its own hand, needs three of our five dice to match and calls; a reader believes
    # our bid made our fives likely, and lets it stand.
    dice = (5, 5)
    seen = seen_by(CLASSIC, False, dice, ((0, Bid(4, 5)),), 1)[4]
    p = 1 / 3
    own_hand = _call_chance(4, 1, 5, p, 0.35, (0, 0), 0.0)
    reader = _call_chance(4, 1, 5, p, 0.35, (0, 0), 0.0, seen, 1.0)
    assert own_hand > 0.8
    assert reader < 0.3, (reader, own_hand)
