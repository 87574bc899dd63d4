"""The benchmark harness's own arithmetic (no timing is asserted: figures depend on the machine)."""

from __future__ import annotations

import random

from benchmarks import common
from benchmarks.bid_latency import SEATS, bids, latencies_ns
from benchmarks.player import minimal_raise
from benchmarks.profile_split import category
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Deal, PlaceBid, apply, new_game
from p2pdice.core.rules import Rules
from p2pdice.core.view import seat_view


def test_percentiles_are_nearest_rank() -> None:
    values = list(range(1, 101))
    assert common.percentile(values, 0.5) == 50
    assert common.percentile(values, 0.99) == 99
    assert common.percentile([7.0], 0.99) == 7.0
    assert common.stats([3, 1, 2]) == {"n": 3, "median": 2, "p99": 3}
    assert common.rate_stats(values)["p99"] == 1  # for a rate, the slow tail is the low end


def test_figures_mark_targets_met_or_missed() -> None:
    fig = common.figure(
        "x",
        "latency",
        "ms",
        {"n": 3, "median": 2.0, "p99": 5.0},
        {"n": 3, "median": 1.0, "p99": 1.5},
        targets=[("median <= 1", "median", 1.0), ("p99 <= 6", "p99", 6.0), ("ratio", "ratio", 4.0)],
    )
    assert fig["ratio"] == 2.0
    assert [t["met"] for t in fig["targets"]] == [False, True, True]
    assert "MISSED (2, 2.00x)" in common.target_text(fig)
    rate = common.figure(
        "x",
        "rate",
        "/s",
        {"n": 3, "median": 70.0, "p99": 60.0},
        {"n": 3, "median": 100.0, "p99": 90.0},
        higher_is_better=True,
        targets=[(">= 0.8 of bound", "ratio", 0.8)],
    )
    assert rate["targets"][0]["met"] is False


def test_bid_latency_is_send_to_the_last_other_seat() -> None:
    sessions = []
    for seat in range(SEATS):
        sessions.append(
            {
                "seat": seat,
                "sent": [[5, "bid", 1000]] if seat == 2 else [],
                "kinds": {"9": [2, 5, "bid"], "8": [None, None, "event:round"]},
                "applied": [[9, 1000 + 10 * (seat + 1)], [8, 900]],
            }
        )
    rows = bids(sessions)
    assert [r["seq"] for r in rows] == [9]
    assert latencies_ns(rows) == [60]  # seat 5 applied last, 60 ns after the send
    assert latencies_ns(rows, pick=min) == [10]


def test_the_scripted_bidder_raises_minimally_then_calls() -> None:
    rules = Rules(seats=2, starting_dice=1)
    state = new_game(rules)
    state = apply(state, Deal(0))
    view = seat_view(state, 0, (3,))
    first = minimal_raise(view, random.Random(1))
    assert first == PlaceBid(0, Bid(1, 2))
    state = apply(state, PlaceBid(0, Bid(2, 6)))  # nothing left to raise with two dice in play
    assert minimal_raise(seat_view(state, 1, (4,)), random.Random(1)) == Challenge(1)


def test_profile_categories() -> None:
    ed = "~:0(<method 'verify' of 'cryptography.hazmat.bindings._rust.openssl.ed25519.Ed25519PublicKey' objects>)"
    assert category(ed) == "Ed25519 (cryptography)"
    assert category("/x/json/decoder.py:343(raw_decode)").startswith("JSON")
    assert category("/x/asyncio/base_events.py:1845(_run_once)").startswith("asyncio")
