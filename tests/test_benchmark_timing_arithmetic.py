"""The benchmark harness samples and summarises timings as it says: percentiles by nearest
rank, warm-up batches before the timed runs, per-call times from batches (no timing is
asserted: figures depend on the machine)."""

from __future__ import annotations

import gc
import random
from types import SimpleNamespace

import pytest

from benchmarks import bot_decisions, common, crypto


def test_bot_decision_percentiles_are_nearest_rank() -> None:
    figures = bot_decisions.summary([6.0, 1.0, 5.0, 2.0, 4.0, 3.0])
    assert figures["p50_ms"] == 3.0  # not 4: rank ceil(0.5 * 6) = 3
    assert figures["p99_ms"] == 6.0 and figures["max_ms"] == 6.0
    assert figures["decisions"] == 6 and figures["mean_ms"] == 3.5
    assert bot_decisions.summary([float(v) for v in range(1, 101)])["p99_ms"] == 99.0


def test_a_collection_inside_a_decision_is_counted_as_its_pause() -> None:
    """Decision times name the garbage collector's pauses that fell inside them, and only
    those: a collection between decisions is no decision's."""
    ticks = iter(range(0, 10_000, 10))

    def collecting_bot(view: object, rng: random.Random) -> str:
        gc.collect()
        return "collected"

    timed = bot_decisions._Timed(collecting_bot, cold=False, clock=lambda: next(ticks))  # type: ignore[arg-type]
    gc.callbacks.append(timed.on_gc)
    try:
        timed(None, random.Random(1))  # type: ignore[arg-type]
        gc.collect()  # between decisions
        timed(None, random.Random(1))  # type: ignore[arg-type]
    finally:
        gc.callbacks.remove(timed.on_gc)
    # Each decision read the clock at its start and end, around one collection (start, stop).
    assert timed.samples_ns == [30, 30]
    assert timed.gc_ns == [10, 10]


def test_crypto_figures_use_the_common_statistics(monkeypatch: pytest.MonkeyPatch) -> None:
    durations_us = [3, 9, 1, 10, 2, 8, 4, 7, 5, 6]
    ticks = iter([t for d in durations_us for t in (0.0, d / 1e6)])
    monkeypatch.setattr(common, "time", SimpleNamespace(perf_counter=lambda: next(ticks)))
    calls = []
    median, p99 = crypto.measure(lambda: calls.append(1), runs=10, batch=1)
    assert len(calls) == 5 + 10  # five batches of warm-up, then the timed runs
    assert (median, p99) == (pytest.approx(5.0), pytest.approx(10.0))


def test_per_call_us_times_batches() -> None:
    calls = []
    samples = common.per_call_us(lambda: calls.append(1), runs=4, batch=3)
    assert len(samples) == 4 and all(s >= 0 for s in samples)
    assert len(calls) == 3 * 3 + 4 * 3
