"""benchmarks.belief_calibration: every bid hard faced is settled against the reveal of its
own round, at the stage its own and the bidder's dice made, and its calls come out as the
engine scored them."""

from __future__ import annotations

import dataclasses

import pytest

from benchmarks.belief_calibration import (
    FacedBid,
    calibration,
    faced_bids,
    main,
    stage_of,
)
from benchmarks.common import RULE_MODES
from p2pdice.bots import hard
from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import GameRecord, play_game
from p2pdice.bots.tournament import game_rng, seating
from p2pdice.core.bids import Bid, count_matching, ones_are_wild
from p2pdice.core.game import Call, Outcome, RoundResult
from p2pdice.core.rules import Rules
from p2pdice.core.view import SeatView

GAMES = 4
SEED = 3


def _games(rules: Rules, style: str, games: int, seed: int) -> list[tuple[int, GameRecord]]:
    """The same games played without recording: hard's seat and the record of each."""
    names = ("hard",) + (style,) * (rules.seats - 1)
    bots = {name: load_bot(name) for name in set(names)}
    out = []
    for g in range(games):
        by_seat = seating(names, g)
        record = play_game(rules, [bots[n] for n in by_seat], game_rng(seed, g))
        # Every round is in the record, in order (the settling finds rounds by number).
        assert [r.round for r in record.results] == list(range(1, len(record.results) + 1))
        out.append((by_seat.index("hard"), record))
    return out


def _hard_calls(rules: Rules, style: str) -> list[RoundResult]:
    """The rounds in which hard made the call."""
    return [
        r
        for seat, record in _games(rules, style, GAMES, SEED)
        for r in record.results
        if r.caller == seat and r.count is not None
    ]


def _faced_from_the_reveals(
    rules: Rules, style: str, games: int, seed: int
) -> tuple[list[tuple[int, Bid, int, int, bool, bool]], int]:
    """Worked out from the finished rounds alone: each bid hard faced (the bid before each of
    its raises, and the bid it called) as (round, bid, hard's dice, the bidder's dice, held,
    exactly right); and hard's wins."""
    faced = []
    wins = 0
    for seat, record in _games(rules, style, games, seed):
        wins += record.ranking[0] == seat
        for r in record.results:
            wild = ones_are_wild(rules, r.palifico_round)
            hands = [h for h in r.hands if h]
            for i, placed in enumerate(r.bids):
                last = i == len(r.bids) - 1
                if placed.seat == seat or (r.caller if last else r.bids[i + 1].seat) != seat:
                    continue
                count = count_matching(hands, placed.bid.face, wild_ones=wild)
                q = placed.bid.quantity
                dice = (r.dice_before[seat], r.dice_before[placed.seat])
                faced.append((r.round, placed.bid, *dice, count >= q, count == q))
    return faced, wins


def test_every_faced_bid_is_settled_by_its_own_round_at_its_stage() -> None:
    rules = dataclasses.replace(RULE_MODES["perudo"], seats=4)
    games = 3
    asked: list[tuple[int, Bid]] = []

    def believe(view: SeatView, bid: Bid) -> tuple[float, float]:
        asked.append((view.round, bid))
        return hard.believed_chances(view, bid)

    faced, wins = faced_bids("medium", rules, games=games, seed=SEED, believe=believe)
    expected, expected_wins = _faced_from_the_reveals(rules, "medium", games, SEED)
    assert asked == [(r, bid) for r, bid, *_ in expected]
    assert [(f.stage, f.held, f.was_exact) for f in faced] == [
        (stage_of(own, bidder), held, exact) for _, _, own, bidder, held, exact in expected
    ]
    # These games test the stage: some bids came from a seat whose dice set it, not hard's.
    assert any(stage_of(own, own) != stage_of(own, bidder) for _, _, own, bidder, *_ in expected)
    assert wins == expected_wins and 0 < wins < games


@pytest.mark.parametrize(
    ("mode", "seats", "action", "call", "came_true", "outcome"),
    [
        ("classic", 2, "liar", Call.CHALLENGE, "held", Outcome.BID_STANDS),
        ("perudo", 4, "exact", Call.EXACT, "was_exact", Outcome.EXACT_HIT),
    ],
)
def test_hard_s_calls_are_settled_as_the_engine_scored_them(
    mode: str, seats: int, action: str, call: Call, came_true: str, outcome: Outcome
) -> None:
    rules = dataclasses.replace(RULE_MODES[mode], seats=seats)
    faced, _ = faced_bids("medium", rules, games=GAMES, seed=SEED)
    calls = [f for f in faced if f.action == action]
    rounds = [r for r in _hard_calls(rules, "medium") if r.call == call]
    assert len(calls) == len(rounds)
    true = sum(getattr(f, came_true) for f in calls)
    assert 0 < true < len(calls)  # both outcomes occur in these games
    assert true == sum(r.outcome == outcome for r in rounds)


def test_the_chances_recorded_are_the_believer_s() -> None:
    rules = dataclasses.replace(RULE_MODES["classic"], seats=2)
    faced, _ = faced_bids(
        "medium", rules, games=2, seed=SEED, believe=lambda view, bid: (0.25, 0.125)
    )
    assert faced and {(f.holds, f.exact) for f in faced} == {(0.25, 0.125)}
    cal = calibration(faced)
    assert cal.faced["all"].n == len(faced)
    assert cal.faced["all"].to_json()["stated"] == 0.25
    assert set(cal.reliability) == {"0.2-0.3"}


def test_lines_add_up_per_stage_and_in_all() -> None:
    faced = [
        FacedBid("both 4+", 0.2, 0.1, "liar", held=True, was_exact=False),
        FacedBid("both 4+", 0.6, 0.3, "raise", held=False, was_exact=False),
        FacedBid("last die", 0.9, 0.5, "exact", held=True, was_exact=True),
    ]
    cal = calibration(faced)
    assert cal.faced["both 4+"].to_json() == {"n": 2, "stated": 0.4, "true": 0.5}
    assert cal.faced["all"].to_json() == {"n": 3, "stated": round(1.7 / 3, 4), "true": 0.6667}
    assert cal.liar_calls["all"].to_json() == {"n": 1, "stated": 0.2, "true": 1.0}
    assert cal.exact_calls["last die"].to_json() == {"n": 1, "stated": 0.5, "true": 1.0}
    assert "last die" not in cal.liar_calls


def test_stages_go_by_the_fewer_dice() -> None:
    assert stage_of(5, 4) == "both 4+"
    assert stage_of(5, 3) == stage_of(2, 5) == "2-3"
    assert stage_of(1, 5) == stage_of(4, 1) == "last die"


def test_the_command_prints_its_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--style", "medium", "--games", "1", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "hard against medium" in out and "Liar calls: holds" in out


def test_against_itself_only_the_measured_seat_is_recorded() -> None:
    rules = dataclasses.replace(RULE_MODES["classic"], seats=2)
    seen: list[tuple[int, int]] = []  # (round, seat) of every recorded decision, in order

    def believe(view: SeatView, bid: Bid) -> tuple[float, float]:
        assert view.seat is not None
        seen.append((view.round, view.seat))
        return 0.5, 0.25

    faced_bids("hard", rules, games=4, seed=SEED, believe=believe)
    games: list[set[int]] = []
    last_round = 0
    for round_number, seat in seen:
        if round_number < last_round or not games:
            games.append(set())  # the rounds start again: the next game
        games[-1].add(seat)
        last_round = round_number
    assert len(games) == 4 and all(len(seats) == 1 for seats in games)
