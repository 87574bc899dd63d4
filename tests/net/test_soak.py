"""The soak (benchmarks/soak.py) on the namespace LAN: a short run by default, 1,000 rounds
with --run-slow. Players and spectators come and go; nothing is lost or posted twice, every
transcript is identical and verifies, and the host's memory stays flat."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.soak import orchestrate

pytestmark = pytest.mark.usefixtures("private_network")


def test_short_soak(tmp_path: Path) -> None:
    result = orchestrate(25, tmp_path)
    assert result["problems"] == []
    assert result["rounds"] >= 25 and result["verified_tables"] == result["tables"] >= 2


@pytest.mark.slow
def test_thousand_round_soak(tmp_path: Path) -> None:
    result = orchestrate(1000, tmp_path)
    print(result)
    assert result["problems"] == []
    assert result["rounds"] >= 1000
    assert result["rss_growth_after_round_100"] is not None
    assert result["rss_growth_after_round_100"] <= 0.10
