"""Verification on every core (issue 26, item 2): the same verdicts as the sequential path.

Many files: each worker process verifies whole files with the sequential `verify_lines`, and
the reports come back in the order of the files named. One long file: the state machine
replays in this process with a checker that records every signature (after the strict checks,
which stay in-process) and provisionally accepts it, while batches of those signatures are
checked by worker processes fed over pipes (`SignatureWorkers`). If every one holds, the
replay's report stands; if any fails, the file is replayed again with the verdicts now known
(the bad ones refused), so the verdict, reason, detail and failing entry are those of the
sequential run.
"""

from __future__ import annotations

import multiprocessing
import struct
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from ..core.signing import ed25519_check
from ..core.verify import Report, verify_lines

#: Signatures sent to a worker at a time: enough that a pipe write is a small share of their
#: checks, few enough that the last batch, which this process checks itself, is short. 32 to
#: 128 measured alike (docs/benchmarks.md).
BATCH = 64
#: The first batch: the workers idle until it is sent, and a whole batch is some 30 entries of
#: replay (4% of a 600-entry file's time); the batches double from here up to `BATCH`.
FIRST_BATCH = 4
#: Batches a worker holds at once: one it checks and one ready behind it, so that it never
#: waits for this process between two; the others wait here, for whichever side is free first.
OUTSTANDING = 2

#: Less than this much transcript is verified in this process: a pool of workers costs a few
#: tenths of a second to start, about what 512 KiB (some 2,000 entries) takes on one core.
PARALLEL_FROM_BYTES = 512 * 1024

Triple = tuple[bytes, bytes, bytes]
T = TypeVar("T")
R = TypeVar("R")


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


def _pack(batch: Sequence[Triple]) -> bytes:
    """Signatures as one message: per signature, the data's length (4 bytes, little-endian),
    the public key (32), the signature (64) and the data. No pickling: the worker reads exactly
    these bytes and nothing it could be made to execute."""
    parts: list[bytes] = []
    for public, data, signature in batch:
        parts += (_LENGTH.pack(len(data)), public, signature, data)
    return b"".join(parts)


_LENGTH = struct.Struct("<I")


def _check_packed(packed: bytes) -> bytes:
    """One byte per signature in `packed` (see `_pack`): 1 if it holds, 0 if not."""
    verdicts = bytearray()
    at, end = 0, len(packed)
    while at < end:
        (length,) = _LENGTH.unpack_from(packed, at)
        public = packed[at + 4 : at + 36]
        signature = packed[at + 36 : at + 100]
        data = packed[at + 100 : at + 100 + length]
        at += 100 + length
        verdicts.append(ed25519_check(public, data, signature))
    return bytes(verdicts)


def _serve(connection: Connection) -> None:
    """A worker: check each batch received, answer its verdicts; stop at an empty message,
    or quietly when the verifying process is gone (its end of the pipe closed)."""
    with connection:
        try:
            while packed := connection.recv_bytes():
                connection.send_bytes(_check_packed(packed))
        except (EOFError, OSError):
            return


class SignatureWorkers:
    """Worker processes that check batches of Ed25519 signatures sent over pipes.

    A pipe, not a `ProcessPoolExecutor`: the executor pickles and sends on threads of this
    process, which take the GIL from the replay they are meant to run beside (the batched path
    ran at 0.63 of the one-core bound through one, 0.87-0.93 over pipes, docs/benchmarks.md).
    The batches go round the workers in turn; each worker answers them in order. A worker that
    dies leaves its batches to this process, so a verdict never depends on a worker."""

    def __init__(self, count: int) -> None:
        context = multiprocessing.get_context("forkserver")  # see `_pool`
        self._pipes: list[Connection | None] = []
        self._processes: list[Any] = []
        for _ in range(max(1, count)):
            ours, theirs = context.Pipe()
            process = context.Process(target=_serve, args=(theirs,), daemon=True)
            process.start()
            theirs.close()
            self._pipes.append(ours)
            self._processes.append(process)

    def __enter__(self) -> SignatureWorkers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pids(self) -> list[int]:
        """The workers' process ids (a test kills one to see its batches checked here)."""
        return [process.pid for process in self._processes]

    def close(self) -> None:
        for pipe in self._pipes:
            if pipe is not None:
                try:
                    pipe.send_bytes(b"")
                    pipe.close()
                except OSError:
                    pass
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
        self._pipes = []

    def check_all(
        self, batches: Callable[[Callable[[list[Triple]], None]], None]
    ) -> dict[Triple, bool]:
        """Verdicts for every signature of every batch `batches` hands its callback.

        A worker holds at most `OUTSTANDING` batches; the rest wait here. While `batches` runs
        (the replay), each new batch is handed to a worker with room. After it, this process
        checks the waiting batches itself, from the newest, handing the oldest to workers as
        they free up: the replay is faster than a worker, so it finishes first, and the split
        of the checks between it and the workers comes out of their speeds, not a constant.
        The batches of a worker that failed are checked here."""
        sent: list[list[list[Triple]]] = [[] for _ in self._pipes]  # unanswered, per worker
        waiting: deque[list[Triple]] = deque()
        verdicts: dict[Triple, bool] = {}

        def answered(worker: int, block: bool) -> None:
            pipe = self._pipes[worker]
            while sent[worker] and pipe is not None:
                try:
                    if not block and not pipe.poll():
                        return
                    answer = pipe.recv_bytes()
                except (OSError, EOFError):
                    self._pipes[worker] = None
                    return
                batch = sent[worker].pop(0)
                if len(answer) != len(batch):
                    self._pipes[worker] = pipe = None  # not our worker's answer: trust none
                    sent[worker].insert(0, batch)
                    return
                verdicts.update(zip(batch, map(bool, answer), strict=True))

        def hand_out() -> None:
            for worker in range(len(self._pipes)):
                answered(worker, block=False)
                while waiting and len(sent[worker]) < OUTSTANDING:
                    pipe = self._pipes[worker]
                    if pipe is None:
                        break
                    try:
                        pipe.send_bytes(_pack(waiting[0]))
                    except OSError:
                        self._pipes[worker] = None
                        break
                    sent[worker].append(waiting.popleft())

        def send(batch: list[Triple]) -> None:
            waiting.append(batch)
            hand_out()

        batches(send)
        while waiting:
            hand_out()
            if waiting:
                verdicts.update((t, ed25519_check(*t)) for t in waiting.pop())
        for worker in range(len(self._pipes)):
            answered(worker, block=True)
            for batch in sent[worker]:  # the worker died or misbehaved
                verdicts.update((t, ed25519_check(*t)) for t in batch)
            sent[worker].clear()
        return verdicts


def verify_lines_batched(
    lines: Sequence[bytes],
    *,
    jobs: int,
    partial: bool = False,
    mine: Sequence[dict[str, Any]] | None = None,
    workers: SignatureWorkers | None = None,
) -> Report:
    """`verify_lines` with the Ed25519 checks done by worker processes beside the replay
    (`jobs - 1` of them when none are given: the replay keeps a core busy itself)."""
    if jobs <= 1:
        return verify_lines(lines, partial=partial, mine=mine)
    if workers is None:
        with SignatureWorkers(jobs - 1) as own:
            return verify_lines_batched(lines, jobs=jobs, partial=partial, mine=mine, workers=own)
    found: list[Report] = []
    verdicts_here: dict[Triple, bool] = {}

    def replay(send: Callable[[list[Triple]], None]) -> None:
        batch: list[Triple] = []
        size = FIRST_BATCH

        def record(public: bytes, data: bytes, signature: bytes) -> bool:
            nonlocal size
            batch.append((public, data, signature))
            if len(batch) >= size:
                send(batch.copy())
                batch.clear()
                size = min(BATCH, 2 * size)
            return True

        found.append(verify_lines(lines, partial=partial, mine=mine, checker=record))
        if batch:  # the last, short batch: checked here while the workers finish theirs
            verdicts_here.update((t, ed25519_check(*t)) for t in batch)

    verdicts = workers.check_all(replay)
    verdicts.update(verdicts_here)
    if all(verdicts.values()):
        return found[0]

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
