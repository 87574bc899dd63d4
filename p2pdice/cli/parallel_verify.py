"""Verification on every core (issue 26, item 2): the same verdicts as the sequential path.

Many files: each worker process verifies whole files with the sequential `verify_lines`, and
the reports come back in the order of the files named. One long file: the state machine
replays in this process with a checker that records every signature (after the strict checks,
which stay in-process) and provisionally accepts it, while batches of those signatures are
checked by worker processes. If every one holds, the replay's report stands; if any fails,
the file is replayed again with the verdicts now known (the bad ones refused), so the verdict,
reason, detail and failing entry are those of the sequential run.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from ..core.signing import ed25519_check
from ..core.verify import Report, verify_lines

#: Signatures sent to a worker at a time: large enough that pickling is a small share of the
#: work, small enough that the workers start while the replay goes on.
BATCH = 256

#: Less than this much transcript is verified in this process: a pool of workers costs a few
#: tenths of a second to start, about what 512 KiB (some 2,000 entries) takes on one core.
PARALLEL_FROM_BYTES = 512 * 1024

Triple = tuple[bytes, bytes, bytes]
T = TypeVar("T")
R = TypeVar("R")


def default_jobs() -> int:
    return os.cpu_count() or 1


def jobs_for(total_bytes: int, jobs: int) -> int:
    """The processes worth starting for `total_bytes` of transcript (1: this one alone)."""
    return jobs if total_bytes >= PARALLEL_FROM_BYTES else 1


def _pool(workers: int) -> ProcessPoolExecutor:
    # Not fork: a caller may run threads (the terminal client reads ratings on one), and a
    # child forked from a threaded process can inherit a lock held forever.
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=multiprocessing.get_context("forkserver")
    )


def map_in_order(fn: Callable[[T], R], items: Sequence[T], jobs: int) -> list[R]:
    """`[fn(x) for x in items]`, spread over `jobs` processes when there is more than one
    item and more than one job (`fn` and its arguments and results must pickle)."""
    if jobs <= 1 or len(items) <= 1:
        return [fn(item) for item in items]
    with _pool(min(jobs, len(items))) as pool:
        return list(pool.map(fn, items, chunksize=1))


def _check_batch(triples: list[Triple]) -> list[bool]:
    return [ed25519_check(*t) for t in triples]


def verify_lines_batched(
    lines: Sequence[bytes],
    *,
    jobs: int,
    partial: bool = False,
    mine: Sequence[dict[str, Any]] | None = None,
    pool: Executor | None = None,
) -> Report:
    """`verify_lines` with the Ed25519 checks done by `jobs` worker processes."""
    if jobs <= 1:
        return verify_lines(lines, partial=partial, mine=mine)
    if pool is None:
        with _pool(jobs) as own:
            return verify_lines_batched(lines, jobs=jobs, partial=partial, mine=mine, pool=own)
    pending: list[tuple[list[Triple], Future[list[bool]]]] = []
    batch: list[Triple] = []

    def record(public: bytes, data: bytes, signature: bytes) -> bool:
        batch.append((public, data, signature))
        if len(batch) >= BATCH:
            pending.append((batch.copy(), pool.submit(_check_batch, batch.copy())))
            batch.clear()
        return True

    report = verify_lines(lines, partial=partial, mine=mine, checker=record)
    if batch:
        pending.append((batch.copy(), pool.submit(_check_batch, batch.copy())))
    verdicts: dict[Triple, bool] = {}
    for triples, future in pending:
        verdicts.update(zip(triples, future.result(), strict=True))
    if all(verdicts.values()):
        return report

    def known(public: bytes, data: bytes, signature: bytes) -> bool:
        verdict = verdicts.get((public, data, signature))
        return ed25519_check(public, data, signature) if verdict is None else verdict

    return verify_lines(lines, partial=partial, mine=mine, checker=known)


def _verify_one_path(
    job: tuple[str, bool, list[dict[str, Any]] | None],
) -> tuple[Report, list[bytes]]:
    from .verify import _verify_read

    name, partial, mine = job
    return _verify_read(Path(name), partial=partial, mine=mine)


def verify_paths(
    paths: Sequence[Path], *, jobs: int, partial: bool, mine: list[dict[str, Any]] | None
) -> list[tuple[Report, list[bytes]]]:
    """Each file's report and the complete lines read, in the order given."""
    return map_in_order(_verify_one_path, [(str(p), partial, mine) for p in paths], jobs)


def _read_game(job: tuple[str, bytes]) -> Any:
    from ..stats.games import read_game

    return read_game(*job)


def read_games(items: Sequence[tuple[str, bytes]], *, jobs: int) -> list[Any]:
    """`read_game(source, data)` for each item, in order, over `jobs` processes."""
    return map_in_order(_read_game, list(items), jobs)
