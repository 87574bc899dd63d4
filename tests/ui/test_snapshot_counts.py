"""One snapshot per event: a key, a tick or a session update fits one snapshot to the new
state, and a session is read only in the step after it reported a change (once per burst of
changes), measured in the real Application (benchmarks.ui_snapshots)."""

from __future__ import annotations

from pathlib import Path

from benchmarks.ui_snapshots import measure


async def test_keys_and_ticks_make_one_snapshot_each_and_read_no_unchanged_session(
    tmp_path: Path,
) -> None:
    counts = await measure(tmp_path, idle_seconds=1.0, presses=3)

    def fitted(what: str) -> float:
        """Snapshots fitted to an event (`project`): the measure counts each read as one too."""
        return counts[f"{what}_snapshots"] - counts[f"{what}_reads"]

    assert counts["idle_second_reads"] == 0, counts  # before the reducer: 20 a second
    assert fitted("idle_second") <= 5, counts  # one a tick (4 Hz), none besides
    assert counts["arrow_reads"] == 0 and fitted("arrow") <= 1, counts
    assert counts["enter_reads"] == 0 and fitted("enter") <= 1, counts
    events = 1 + counts["bid_enter_updates"]  # the key, and each update it caused
    assert 1 <= counts["bid_enter_reads"] <= counts["bid_enter_updates"], counts
    assert fitted("bid_enter") <= events, counts
