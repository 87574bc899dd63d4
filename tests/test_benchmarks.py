"""The benchmark harness: its arithmetic, and that its player worker drives the product's
client through the paths the figures are about (no timing is asserted: figures depend on the
machine)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmarks import common, player
from benchmarks.bid_latency import SEATS, bids, latencies_ns
from benchmarks.host_scale import ACTIONS
from benchmarks.hostproc import BenchHost
from benchmarks.player import minimal_raise
from benchmarks.profile_split import category
from p2pdice.core.bids import Bid
from p2pdice.core.game import Challenge, Deal, PlaceBid, apply, new_game
from p2pdice.core.rules import Rules
from p2pdice.core.transcript import parse_entry
from p2pdice.core.view import seat_view
from p2pdice.net.hostapp import HostedTable


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
    assert category(ed).startswith("Ed25519")
    assert category("~:0(<built-in method _sodium.crypto_sign_open>)").startswith("Ed25519")
    assert category("/x/json/decoder.py:343(raw_decode)").startswith("JSON")
    assert category("/x/asyncio/base_events.py:1845(_run_once)").startswith("asyncio")


# ---- the player worker against the product's host (in this process, on the loopback) --------


async def _bench_host(folder: Path) -> BenchHost:
    """The load benchmarks' host (benchmarks.hostproc), six seats of one die each."""
    args = argparse.Namespace(
        home=str(folder), seats=SEATS, starting_dice=1, max_connections=64, record=None
    )
    bench = BenchHost(args)
    await bench.service.start()
    return bench


def _logged(table: HostedTable, kinds: Sequence[str]) -> list[tuple[int, int]]:
    """(seat, counter) of every message of these kinds in the table's log."""
    out = []
    for line in table.host.lines():
        msg = parse_entry(line).msg
        if msg is not None and msg.type in kinds:
            out.append((msg.seat, msg.counter))
    return out


def _as_written(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return json.loads(json.dumps(sessions))  # as bid_latency reads them back from the workers


@pytest.mark.usefixtures("private_network")
async def test_the_paced_bidders_deliver_every_bid_to_every_other_seat(tmp_path: Path) -> None:
    """bid_latency and spectators: each bid the log holds was timed at its bidder and at the
    five other seats."""
    bench = await _bench_host(tmp_path / "host")
    try:
        table = await bench.open_table()
        args = player.parse_args(
            ["--url", bench.url(table), "--sessions", str(SEATS), "--paced", "1",
             "--home", str(tmp_path / "homes"), "--out", str(tmp_path / "unused.json")]
        )  # fmt: skip
        out: list[dict[str, Any]] = []
        await asyncio.wait_for(player.play(args, asyncio.Event(), out), 120)
        logged = _logged(table, ["bid"])
    finally:
        await bench.service.stop()
    sessions = _as_written(out)
    assert [s["internal_errors"] for s in sessions] == [[]] * SEATS
    assert all(s["finished"] for s in sessions)
    rows = bids(sessions)
    assert sorted((r["seat"], r["sent"]) for r in rows) == sorted(
        (s["seat"], t) for s in sessions for _, kind, t in s["sent"] if kind == "bid"
    )
    assert sorted(sessions[0]["kinds"][str(r["seq"])][:2] for r in rows) == sorted(
        list(b) for b in logged
    )
    assert {r["seat"] for r in rows} == set(range(SEATS))  # everyone bid
    assert len(latencies_ns(rows)) == len(rows) == len(logged)  # each reached all five others
    assert all(lat > 0 for lat in latencies_ns(rows, pick=min))
    entries = {s["entries"] for s in sessions}
    assert len(entries) == 1 and entries.pop() == len(table.host.entries)


@pytest.mark.usefixtures("private_network")
async def test_the_load_players_time_every_action_they_see_in_the_log(tmp_path: Path) -> None:
    """host_scale: the bot seats open their own table, play it out, and every bid and call
    the log holds was timed from its decision to its echo."""
    bench = await _bench_host(tmp_path / "host")
    try:
        args = player.parse_args(
            ["--host-url", f"https://127.0.0.1:{bench.service.port}", "--sessions", str(SEATS),
             "--bot", "medium", "--own-only", "--out", str(tmp_path / "unused.json")]
        )  # fmt: skip
        out: list[dict[str, Any]] = []
        stop = asyncio.Event()
        playing = asyncio.create_task(player.play(args, stop, out))

        async def first_game_played() -> None:
            # The group goes on to a table of its own after each game: stop it after the first.
            while len(out) < SEATS:
                await asyncio.sleep(0.05)

        await asyncio.wait_for(first_game_played(), 120)
        stop.set()
        # The group may already sit at its next table, whose sessions notice the stop only on
        # a frame: cut it short as the benchmark's own main does (its first game is recorded).
        done, _ = await asyncio.wait({playing}, timeout=5)
        if not done:
            playing.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await playing
        first = bench.tables[0]
        logged = _logged(first, ACTIONS)
    finally:
        await bench.service.stop()
    sessions = _as_written(out)[:SEATS]
    assert {s["url"] for s in sessions} == {bench.url(first)}
    assert len(sessions) == SEATS
    assert [s["internal_errors"] for s in sessions] == [[]] * SEATS
    assert all(s["finished"] and s["entries"] == len(first.host.entries) for s in sessions)
    echoed = [(s["seat"], kind, lat) for s in sessions for kind, _, lat in s["echo"]]
    actions = [(seat, kind) for seat, kind, _ in echoed if kind in ACTIONS]
    assert len(actions) == len(logged) > 0
    assert all(lat > 0 for _, _, lat in echoed)


def test_each_step_of_the_entry_cost_breakdown_runs_on_todays_frames() -> None:
    """The breakdown builds its frames by hand; a frame field added later must not leave it
    timing an exception (it once did, for the status frame's `bank_ms`)."""
    from benchmarks.entry_cost import steps

    ran = []
    for name, step in steps().items():
        step()  # raises if the frame or entry it was given no longer fits today's shapes
        ran.append(name)
    assert any(name.startswith("host:") for name in ran)
    assert any(name.startswith("client:") for name in ran)


def test_host_cost_replays_post_the_recorded_game_and_hand_out_the_same_frames() -> None:
    """benchmarks.host_cost: a recorded game replayed into a fresh host posts the same log,
    core alone and through TableServer; and the frames each connection is handed are the same
    whether the server writes them at once (as to a socket) or through the writer tasks."""
    from benchmarks.host_cost import record, replay_core, replay_server

    recording = record(seed=1, starting_dice=2)
    _, lines = replay_core(recording)
    assert lines == recording.lines
    direct = replay_server(recording, sockets=True)
    queued = replay_server(recording, sockets=False)
    assert direct.log.splitlines() == recording.lines == queued.log.splitlines()
    assert direct.frames == queued.frames
    entries = {f for frames in direct.frames.values() for f in frames if '"type":"entry"' in f}
    # Every entry reached the connections, but the genesis and the first join: they were posted
    # before anyone was welcomed, and the replay's clients do not ask for the log (sync).
    assert len(entries) == len(recording.lines) - 2
