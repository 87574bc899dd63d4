"""Where a profiled process spent its time: JSON, Ed25519, hashing, asyncio/aiohttp, p2pdice...

Reads cProfile files (as `python -m benchmarks.bid_latency --profile DIR` writes them:
DIR/host.prof and DIR/player0.prof) and sums each function's own time (tottime) into a few
categories, then lists the functions that cost most.

    python -m benchmarks.profile_split DIR/host.prof DIR/player0.prof [--top 15]
"""

from __future__ import annotations

import argparse
import pstats
import sys
from collections.abc import Sequence

#: (category, substrings of "file:function"); the first match wins.
CATEGORIES: list[tuple[str, tuple[str, ...]]] = [
    ("start-up (imports)", ("<frozen importlib", "<frozen zipimport", "marshal", "_imp.")),
    ("Ed25519 (libsodium, cryptography)", ("ed25519", "Ed25519", "_sodium", "nacl/")),
    ("hashing (hashlib/hmac)", ("hashlib", "hmac", "sha256", "openssl_sha")),
    (
        "JSON (json + p2pdice codec)",
        (
            "json/",
            "_json",
            "c_make_encoder",
            "p2pdice/core/codec.py",
            "encode' of 'str",
            "decode' of 'bytes",
        ),
    ),
    (
        "p2pdice shape checks",
        ("p2pdice/core/shape.py", "p2pdice/net/frames.py"),
    ),
    (
        "p2pdice protocol logic",
        ("p2pdice/core/", "p2pdice/bots/", "p2pdice/bots/sim.py"),
    ),
    ("p2pdice adapters (net, store)", ("p2pdice/net/", "p2pdice/store.py", "p2pdice/cmd_")),
    ("file writes", ("_io.", "posix.fsync", "posix.write", "BufferedWriter")),
    (
        "asyncio / aiohttp / sockets",
        (
            "asyncio/",
            "aiohttp/",
            "selectors",
            "_socket",
            "socket.py",
            "select.epoll",
            "multidict",
            "yarl",
            "_asyncio",
            "_overlapped",
            "ssl",
        ),
    ),
    ("benchmark's own clocks", ("benchmarks/",)),
]


def category(where: str) -> str:
    for name, needles in CATEGORIES:
        if any(n in where for n in needles):
            return name
    return "other"


def split(path: str) -> tuple[float, dict[str, float], list[tuple[float, str]]]:
    stats = pstats.Stats(path)
    totals: dict[str, float] = {}
    rows: list[tuple[float, str]] = []
    total = 0.0
    for (filename, line, function), (_, _, tottime, _, _) in stats.stats.items():  # type: ignore[attr-defined]
        where = f"{filename}:{line}({function})"
        totals[category(where)] = totals.get(category(where), 0.0) + tottime
        total += tottime
        rows.append((tottime, where))
    rows.sort(reverse=True)
    return total, totals, rows


def report(path: str, top: int = 15) -> list[str]:
    total, totals, rows = split(path)
    busy = total - totals.get("start-up (imports)", 0.0)
    lines = [f"{path}: {total:.2f} s of own time profiled ({busy:.2f} s after start-up)"]
    for name, seconds in sorted(totals.items(), key=lambda kv: -kv[1]):
        if name == "start-up (imports)":
            continue
        lines.append(f"  {name:<32} {seconds:7.2f} s  {100 * seconds / busy:5.1f}%")
    lines.append(f"  top {top} functions by own time:")
    for seconds, where in rows[:top]:
        lines.append(f"    {seconds:7.3f} s  {where[-110:]}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.profile_split")
    parser.add_argument("files", nargs="+")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    for path in args.files:
        print("\n".join(report(path, args.top)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
