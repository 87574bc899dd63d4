"""One snapshot per event: a key, a tick or a session update reads a session at most once
(only one that reported a change), measured in the real Application (benchmarks.ui_snapshots)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.ui_snapshots import measure


async def test_keys_and_ticks_make_one_snapshot_each_and_read_no_unchanged_session(
    tmp_path: Path,
) -> None:
    counts = await measure(tmp_path, idle_seconds=1.0, presses=3)
    assert counts["idle_second_reads"] == 0, counts  # before: 20 a second
    assert counts["idle_second_snapshots"] <= 5, counts  # one a tick (4 Hz), none besides
    assert counts["arrow_reads"] == 0 and counts["arrow_snapshots"] <= 1, counts
    assert counts["enter_reads"] == 0 and counts["enter_snapshots"] <= 1, counts
    events = 1 + counts["bid_enter_updates"]  # the key, and each update it caused
    assert counts["bid_enter_reads"] <= counts["bid_enter_updates"], counts
    assert counts["bid_enter_snapshots"] <= events, counts
