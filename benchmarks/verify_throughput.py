"""Verify throughput: transcript entries verified per second by `verify_lines`, against the
bound that Ed25519 alone sets.

Transcripts of whole six-seat games (bot `medium`) are made in memory with
`p2pdice.bots.protosim.LocalTable`: a real HostTable and six real Peers, every entry signed. Each
is then verified with `p2pdice.core.verify.verify_lines`, again and again; every run gives
one sample of entries per second. Interleaved with those runs, in the same process, batches
of raw Ed25519 verifications on 300-byte messages, by the library the package verifies with
(`p2pdice.core.signing.ed25519_check`, libsodium), give samples of signatures per second;
OpenSSL's rate (`openssl_ed25519_check`) is measured beside it, for the choice between them. The bound is that rate divided by the signatures one entry carries on average (the
host's signature on every entry, plus each player message inside it: one for a message
entry, one per seat for commitment and contribution sets), counted over the same transcripts.

Target: the median at least 0.8 of the bound's.

    python -m benchmarks.verify_throughput [--quick] [--json]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.core.signing import Checker, SigningKey, ed25519_check, openssl_ed25519_check
from p2pdice.core.transcript import messages_in, parse_entry
from p2pdice.core.verify import verify_lines

from . import common
from .common import figure, rate_stats

TARGET = 0.8
RAW_BATCH = 200


def transcripts(games: int, seed: int = 1) -> list[list[bytes]]:
    rng = random.Random(seed)
    out = []
    for number in range(games):
        table = LocalTable(
            Rules(seats=6), [load_bot("medium")] * 6, rng=rng, name=f"bench {number}"
        )
        table.seat_everyone()
        table.play()
        out.append(table.host.lines())
    return out


def signatures(lines: Sequence[bytes]) -> int:
    return sum(1 + len(messages_in(parse_entry(line))) for line in lines)


def raw_rate(batch: int = RAW_BATCH, check: Checker = ed25519_check) -> float:
    """Ed25519 verifications per second over one batch (300-byte messages, one key)."""
    data, sig, public = _RAW
    start = time.perf_counter()
    for _ in range(batch):
        check(public, data, sig)
    return batch / (time.perf_counter() - start)


_KEY = SigningKey(random.Random(7).randbytes(32))
_DATA = bytes(random.Random(7).randbytes(300))
_RAW = (_DATA, _KEY.sign_raw(_DATA), _KEY.public)
assert ed25519_check(_KEY.public, _DATA, _RAW[1]) and openssl_ed25519_check(
    _KEY.public, _DATA, _RAW[1]
)


def run(*, quick: bool = False) -> dict[str, Any]:
    games = transcripts(2 if quick else 6)
    entries = sum(len(g) for g in games)
    sigs = sum(signatures(g) for g in games)
    per_entry = sigs / entries
    seconds = 3.0 if quick else 12.0
    measured: list[float] = []
    raw: list[float] = []
    openssl: list[float] = []  # the other library, for the choice (docs/benchmarks.md)
    for lines in games:  # warm up both, and check the transcripts verify
        report = verify_lines(lines)
        assert report.ok, report.failure
        raw_rate()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for lines in games:
            start = time.perf_counter()
            verify_lines(lines)
            measured.append(len(lines) / (time.perf_counter() - start))
            raw.append(raw_rate())
            openssl.append(raw_rate(check=openssl_ed25519_check))
    bound = [r / per_entry for r in raw]
    fig = figure(
        "verify",
        "verify_lines: entries verified per second",
        "/s",
        rate_stats(measured),
        rate_stats(bound),
        baseline_what=f"bound: raw Ed25519 verifies/s / {per_entry:.2f} signatures per entry",
        higher_is_better=True,
        targets=[(f">= {TARGET} of the Ed25519 bound", "ratio", TARGET)],
        notes=f"{len(games)} six-seat games, {entries} entries, {sigs} signatures",
    )
    raw_stats = rate_stats(raw)
    openssl_stats = rate_stats(openssl)
    text = [
        f"verify: {entries} entries carry {sigs} signatures ({per_entry:.2f} per entry); raw "
        f"Ed25519 verify {raw_stats['median']:.0f}/s (p99 low tail {raw_stats['p99']:.0f}/s); "
        f"verify_lines {fig['median']:.0f} entries/s = {fig['ratio']:.2f} of the bound",
        f"Ed25519 libraries, same run: libsodium (PyNaCl) {raw_stats['median']:.0f}/s, OpenSSL "
        f"(cryptography) {openssl_stats['median']:.0f}/s: libsodium "
        f"{raw_stats['median'] / openssl_stats['median']:.2f}x",
    ]
    text += parallel_text(games, bound, quick=quick)
    details = {
        "entries": entries,
        "signatures": sigs,
        "signatures_per_entry": per_entry,
        "raw_ed25519_per_s": raw_stats,
        "raw_openssl_ed25519_per_s": openssl_stats,
        "text": text,
    }
    return {"figures": [fig], "details": details}


def parallel_text(games: list[list[bytes]], bound: list[float], *, quick: bool) -> list[str]:
    """One file sequential vs batched, and ~40 files sequential vs parallel (2 processes), as
    entries/s (median of a few runs) and ratios to the one-core bound measured above."""
    from p2pdice.cli.parallel_verify import SignatureWorkers, map_in_order, verify_lines_batched

    jobs = 2
    runs = 3 if quick else 5
    # One file takes some 60 ms: a median of five such runs moved by 0.1 of the bound from run
    # to run, so it gets as many runs as fit in about two seconds.
    one_runs = 10 if quick else 30
    one = max(games, key=len)
    many = (games * 40)[: 12 if quick else 40]
    many_entries = sum(len(g) for g in many)
    bound_median = statistics.median(bound)

    def timed(fn: Any, entries: int, runs: int = runs) -> float:
        rates = []
        for _ in range(runs):
            start = time.perf_counter()
            fn()
            rates.append(entries / (time.perf_counter() - start))
        return statistics.median(rates)

    # As `verify` runs it: the replay on one core and jobs - 1 workers beside it, started
    # beforehand (starting them costs a tenth of a second or two, once per command).
    with SignatureWorkers(jobs - 1) as workers:
        verify_lines_batched(one, jobs=jobs, workers=workers)
        seq_one = timed(lambda: verify_lines(one), len(one), one_runs)
        batched = timed(
            lambda: verify_lines_batched(one, jobs=jobs, workers=workers), len(one), one_runs
        )
    seq_many = timed(lambda: [verify_lines(g) for g in many], many_entries)
    par_many = timed(lambda: map_in_order(_verify_ok, many, jobs), many_entries)
    return [
        f"verify one file ({len(one)} entries): sequential {seq_one:.0f}/s "
        f"({seq_one / bound_median:.2f} of the bound), batched over {jobs} processes "
        f"{batched:.0f}/s ({batched / bound_median:.2f} of the bound; target >= 0.9)",
        f"verify {len(many)} files ({many_entries} entries): sequential {seq_many:.0f}/s "
        f"({seq_many / bound_median:.2f} of the bound), parallel over {jobs} processes "
        f"{par_many:.0f}/s ({par_many / bound_median:.2f}x the bound; target >= 1.6x)",
    ]


def _verify_ok(lines: list[bytes]) -> bool:
    return verify_lines(lines).ok


def main(argv: Sequence[str] | None = None) -> int:
    return common.standalone("verify_throughput", run, argv, needs_network=False)


if __name__ == "__main__":
    sys.exit(main())
