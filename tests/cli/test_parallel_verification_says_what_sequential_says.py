"""Verification on every core says exactly what the sequential replay says (issue 26, item 2):
over the examples, the chain vectors' transcripts and mutants of a finished game, the
many-files path (`verify_paths`) and the batched one-file path (`verify_lines_batched`) give
the same report (verdict, reason, detail, failing entry, and everything else) as
`verify_lines`."""

from __future__ import annotations

import json
import os
import random
import signal
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from p2pdice.bots import load_bot
from p2pdice.bots.protosim import LocalTable
from p2pdice.cli import parallel_verify
from p2pdice.cli.parallel_verify import (
    BATCH,
    SignatureWorkers,
    verify_lines_batched,
    verify_paths,
)
from p2pdice.core.rules import Rules
from p2pdice.core.signing import ed25519_check
from p2pdice.core.transcript import messages_in, parse_entry
from p2pdice.core.verify import split_lines, verify_lines

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "protocol" / "examples").glob("*.jsonl"))
JOBS = 2


@pytest.fixture(scope="module")
def pool() -> Iterator[SignatureWorkers]:
    with SignatureWorkers(JOBS) as workers:
        yield workers


@pytest.fixture(scope="module")
def long_game() -> list[bytes]:
    table = LocalTable(Rules(seats=4), [load_bot("medium")] * 4, rng=random.Random(2601))
    table.seat_everyone()
    table.play()
    lines = table.host.lines()
    signatures = sum(1 + len(messages_in(parse_entry(line))) for line in lines)
    assert signatures > 2 * BATCH  # several batches are in flight while the replay goes on
    return lines


def chain_transcripts() -> list[list[bytes]]:
    vectors = json.loads((ROOT / "protocol/vectors/v1/chain.json").read_text())
    return [
        [line.encode() for line in test["lines"]]
        for group in vectors["test_groups"]
        for test in group["tests"]
        if "lines" in test
    ]


def mutants(lines: list[bytes]) -> list[list[bytes]]:
    rng = random.Random(26)
    middle = len(lines) // 2
    out = []
    flipped = bytearray(lines[middle])
    at = flipped.rindex(b'"sig":"') + len(b'"sig":"') + 10  # a hex digit inside the signature
    flipped[at] = ord("0") if flipped[at] != ord("0") else ord("1")
    out.append([*lines[:middle], bytes(flipped), *lines[middle + 1 :]])
    out.append(lines[:middle] + lines[middle + 1 :])  # a line deleted
    swapped = list(lines)
    swapped[middle], swapped[middle + 3] = swapped[middle + 3], swapped[middle]
    out.append(swapped)
    for _ in range(12):  # single-byte changes anywhere
        index = rng.randrange(len(lines))
        line = bytearray(lines[index])
        pos = rng.randrange(len(line))
        line[pos] = (line[pos] + rng.randrange(1, 256)) % 256
        out.append([*lines[:index], bytes(line), *lines[index + 1 :]])
    out.append(lines[:-1])  # stops before game over
    return out


def same_report(lines: list[bytes], pool: SignatureWorkers) -> None:
    sequential = verify_lines(lines).to_json()
    batched = verify_lines_batched(lines, jobs=JOBS, workers=pool).to_json()
    assert batched == sequential


def test_batched_verification_of_each_example_says_what_sequential_says(
    pool: SignatureWorkers,
) -> None:
    assert EXAMPLES
    for path in EXAMPLES:
        lines, problem = split_lines(path.read_bytes())
        same_report(lines if problem is None else lines[:-1], pool)


def test_batched_verification_of_each_chain_vector_says_what_sequential_says(
    pool: SignatureWorkers,
) -> None:
    chains = chain_transcripts()
    assert chains
    for lines in chains:
        same_report(lines, pool)


def test_batched_verification_of_a_long_game_and_its_mutants_says_what_sequential_says(
    pool: SignatureWorkers, long_game: list[bytes]
) -> None:
    assert verify_lines(long_game).ok
    same_report(long_game, pool)
    bad = mutants(long_game)
    assert not verify_lines(bad[0]).ok  # the flipped signature byte is caught
    for lines in bad:
        same_report(lines, pool)


def test_files_verified_in_parallel_give_the_sequential_reports_in_order(
    tmp_path: Path, long_game: list[bytes]
) -> None:
    paths = list(EXAMPLES)
    for number, lines in enumerate([long_game, *mutants(long_game)[:4], *chain_transcripts()[:6]]):
        path = tmp_path / f"{number:02}.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        paths.append(path)
    parallel = verify_paths(paths, jobs=JOBS, partial=False, mine=None)
    sequential = verify_paths(paths, jobs=1, partial=False, mine=None)
    assert [(r.to_json(), lines) for r, lines in parallel] == [
        (r.to_json(), lines) for r, lines in sequential
    ]
    assert any(not r.ok for r, _ in sequential) and any(r.ok for r, _ in sequential)


def test_workers_that_die_leave_their_signatures_to_be_checked_here(
    long_game: list[bytes],
) -> None:
    bad = mutants(long_game)[0]  # one signature byte flipped: a worker would have caught it
    with SignatureWorkers(2) as workers:
        for pid in workers.pids:
            os.kill(pid, signal.SIGKILL)
        assert verify_lines_batched(long_game, jobs=JOBS, workers=workers).ok
        assert (
            verify_lines_batched(bad, jobs=JOBS, workers=workers).to_json()
            == verify_lines(bad).to_json()
        )


def test_batched_verification_without_given_workers_starts_and_stops_its_own(
    long_game: list[bytes],
) -> None:
    bad = mutants(long_game)[0]
    assert verify_lines_batched(long_game, jobs=JOBS).to_json() == verify_lines(long_game).to_json()
    assert verify_lines_batched(bad, jobs=JOBS).to_json() == verify_lines(bad).to_json()


def test_batches_a_worker_took_and_never_answered_are_checked_here(
    long_game: list[bytes],
) -> None:
    triples: list[tuple[bytes, bytes, bytes]] = []

    def collect(public: bytes, data: bytes, signature: bytes) -> bool:
        triples.append((public, data, signature))
        return True

    verify_lines(long_game[:40], checker=collect)
    public, data, signature = triples[5]
    triples[5] = (public, data + b"!", signature)  # one that does not hold
    with SignatureWorkers(1) as workers:
        (pid,) = workers.pids
        os.kill(pid, signal.SIGSTOP)  # it can take the batch into its pipe, never answer it

        def batches(send: Callable[[list[tuple[bytes, bytes, bytes]]], None]) -> None:
            send(triples)
            os.kill(pid, signal.SIGKILL)

        verdicts = workers.check_all(batches)
    assert verdicts == {t: ed25519_check(*t) for t in triples}
    assert list(verdicts.values()).count(False) == 1


def test_batches_no_worker_has_room_for_are_checked_here_while_the_workers_are_busy(
    long_game: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy worker (here: stopped) holds only `OUTSTANDING` batches; once the replay is
    done this process checks the rest itself rather than waiting for the worker to take them.
    The worker is let go on when this process has checked all it should have."""
    triples: list[tuple[bytes, bytes, bytes]] = []

    def collect(public: bytes, data: bytes, signature: bytes) -> bool:
        triples.append((public, data, signature))
        return True

    verify_lines(long_game, checker=collect)
    batches_made = [triples[at : at + 8] for at in range(0, 8 * 12, 8)]
    kept_here = sum(len(b) for b in batches_made[parallel_verify.OUTSTANDING :])
    checked_here: list[tuple[bytes, bytes, bytes]] = []
    with SignatureWorkers(1) as workers:
        (pid,) = workers.pids
        os.kill(pid, signal.SIGSTOP)
        resume = threading.Timer(20, os.kill, (pid, signal.SIGCONT))  # fails, never hangs
        resume.start()

        def counted_check(public: bytes, data: bytes, signature: bytes) -> bool:
            checked_here.append((public, data, signature))
            if len(checked_here) == kept_here:
                os.kill(pid, signal.SIGCONT)
            return ed25519_check(public, data, signature)

        monkeypatch.setattr(parallel_verify, "ed25519_check", counted_check)

        def batches(send: Callable[[list[tuple[bytes, bytes, bytes]]], None]) -> None:
            for batch in batches_made:
                send(batch)

        try:
            verdicts = workers.check_all(batches)
        finally:
            resume.cancel()
    made = [t for batch in batches_made for t in batch]
    assert verdicts == dict.fromkeys(made, True)
    assert sorted(checked_here) == sorted(made[8 * parallel_verify.OUTSTANDING :])
