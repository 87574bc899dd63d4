"""`p2pdice stats` over many saved games: the first run, bound by verification, and the second,
served from the cache of verdicts keyed by each file's hash (docs/stats.md).

Simulated protocol games (three seats, two dice, bot `easy`, seats reusing a pool of four keys
so the ratings have history) are saved as a data folder's hosted logs. Then, in one process:

- the first run (`load_games` with a fresh cache, then the figures and ratings): its entries
  per second, beside `verify_lines` alone over the same files in the same run (the bound: the
  first run verifies every file, then replays it once more to read its facts);
- the second run, the same call with the cache written by the first: target under 2 s for
  1,000 games.

    python -m benchmarks.stats_cache [--quick] [--json]
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.cli.stats import CACHE_FILE, load_games, report
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.verify import verify_lines

from . import common
from .common import figure

TARGET_SECONDS = 2.0
GAMES = 1000


class _Pooled(random.Random):
    """The next 32-byte draws are the queued seat keys."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.queued: list[bytes] = []

    def randbytes(self, n: int) -> bytes:
        return self.queued.pop(0) if n == 32 and self.queued else super().randbytes(n)


def save_games(home: Path, games: int) -> int:
    """`games` protocol games as hosted logs under `home`; the entries written."""
    pool = [bytes([n]) * 32 for n in range(1, 5)]
    assert len({SigningKey(k).public for k in pool}) == len(pool)
    bot = load_bot("easy")
    rules = Rules(seats=3, starting_dice=2)
    entries = 0
    for number in range(games):
        rng = _Pooled(number)
        table = LocalTable(rules, [bot] * 3, rng=rng, name=f"bench {number}")
        rng.queued = [pool[(number + i) % len(pool)] for i in range(3)]
        for seat in range(3):
            table.add_player(bot, name=f"P{seat}", cpu=False)
        table.run_until_idle()
        table.play()
        lines = table.host.lines()
        entries += len(lines)
        folder = home / "hosted" / f"{number:05d}"
        folder.mkdir(parents=True)
        (folder / "log.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    return entries


def one_run(home: Path) -> tuple[float, int]:
    start = time.perf_counter()
    games, skipped = load_games(home, use_cache=True)
    body = report(games, skipped)
    seconds = time.perf_counter() - start
    assert not skipped, skipped[:1]
    return seconds, body["games"]


def run(*, quick: bool = False) -> dict[str, Any]:
    games = 50 if quick else GAMES
    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder)
        entries = save_games(home, games)
        paths = sorted(home.glob("hosted/*/log.jsonl"))
        start = time.perf_counter()
        for path in paths:
            assert verify_lines(path.read_bytes().splitlines()).ok
        verify_seconds = time.perf_counter() - start
        first, counted = one_run(home)
        assert counted == games and (home / CACHE_FILE).exists()
        seconds = [one_run(home)[0] for _ in range(3 if quick else 5)]
    verify_rate = entries / verify_seconds
    first_rate = entries / first
    second = common.stats(seconds)
    scaled = (
        f" (scaled to {GAMES} games: {second['median'] * GAMES / games:.2f} s)" if quick else ""
    )
    fig = figure(
        "stats_cache",
        f"stats, second run from the cache ({games} games)",
        "s",
        second,
        higher_is_better=False,
        targets=[
            (f"< {TARGET_SECONDS} s for {GAMES} games", "median", TARGET_SECONDS * games / GAMES)
        ],
        notes=f"{games} games, {entries} entries",
    )
    text = [
        f"stats: {games} games, {entries} entries; first run {first:.2f} s = {first_rate:.0f} "
        f"entries/s, verify_lines alone {verify_rate:.0f} entries/s "
        f"({first_rate / verify_rate:.2f} of it); second run from the cache "
        f"{second['median']:.3f} s (median of {len(seconds)}){scaled}"
    ]
    details = {
        "games": games,
        "entries": entries,
        "first_run_s": first,
        "first_run_entries_per_s": first_rate,
        "verify_entries_per_s": verify_rate,
        "text": text,
    }
    return {"figures": [fig], "details": details}


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("stats_cache", run, argv, needs_network=False)


if __name__ == "__main__":
    sys.exit(main())
