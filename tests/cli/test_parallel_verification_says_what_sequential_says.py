"""Verification on every core says exactly what the sequential replay says (issue 26, item 2):
over the examples, the chain vectors' transcripts and mutants of a finished game, the
many-files path (`verify_paths`) and the batched one-file path (`verify_lines_batched`) give
the same report (verdict, reason, detail, failing entry, and everything else) as
`verify_lines`."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from p2pdice.bots import load_bot
from p2pdice.bots.protosim import LocalTable
from p2pdice.cli.parallel_verify import BATCH, verify_lines_batched, verify_paths
from p2pdice.core.rules import Rules
from p2pdice.core.transcript import messages_in, parse_entry
from p2pdice.core.verify import split_lines, verify_lines

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "protocol" / "examples").glob("*.jsonl"))
JOBS = 2


@pytest.fixture(scope="module")
def pool() -> Iterator[ProcessPoolExecutor]:
    with ProcessPoolExecutor(max_workers=JOBS) as workers:
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


def same_report(lines: list[bytes], pool: ProcessPoolExecutor) -> None:
    sequential = verify_lines(lines).to_json()
    batched = verify_lines_batched(lines, jobs=JOBS, pool=pool).to_json()
    assert batched == sequential


def test_batched_verification_of_each_example_says_what_sequential_says(
    pool: ProcessPoolExecutor,
) -> None:
    assert EXAMPLES
    for path in EXAMPLES:
        lines, problem = split_lines(path.read_bytes())
        same_report(lines if problem is None else lines[:-1], pool)


def test_batched_verification_of_each_chain_vector_says_what_sequential_says(
    pool: ProcessPoolExecutor,
) -> None:
    chains = chain_transcripts()
    assert chains
    for lines in chains:
        same_report(lines, pool)


def test_batched_verification_of_a_long_game_and_its_mutants_says_what_sequential_says(
    pool: ProcessPoolExecutor, long_game: list[bytes]
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
