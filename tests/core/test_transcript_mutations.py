"""Mutated transcripts never verify, and never crash `verify` (issue 4, item 8).

A few seeded protosim games are saved as JSON Lines files. From them a seeded sample of
mutants is drawn:

- at least 1,000 single-byte changes (any position, the final line feed included; any other
  byte value);
- line deletions (every line of every file, so the first and the last line are included);
- swaps of two different lines;
- a few structural edits: a duplicated line, an appended line, the final line feed removed.

Every mutant must be refused (`ok == False`) with a reason code other than INTERNAL, and
`split_lines` / `verify_lines` must return a report instead of raising.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pdice.bots import load_bot
from p2pdice.bots.protosim import LocalTable
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.core.verify import split_lines, verify_lines

SEED = 20240604
SWAPS_PER_FILE = 40

#: Short games keep the sample fast (verify checks one or more Ed25519 signatures per line);
#: the options differ so that different entries occur (a challenge and an exact call, wild
#: ones and aces, a turn timer, a random and a fixed first starter, a next-round message).
#: The last number is how many single-byte changes each file gets: 1,050 in all.
GAMES = [
    ("two-seats", Rules(seats=2, starting_dice=1), 11, 400),
    (
        "aces-exact",
        Rules(seats=2, starting_dice=1, ones="aces", exact_call=True, first_starter="seat0"),
        12,
        400,
    ),
    ("three-seats", Rules(seats=3, starting_dice=1, palifico="fixed", turn_timer=30), 13, 250),
]
BYTE_CHANGES = {name: n for name, _, _, n in GAMES}


@pytest.fixture(scope="module")
def transcripts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Saved transcripts of honest games, read back from disk as bytes."""
    folder = tmp_path_factory.mktemp("transcripts")
    saved: dict[str, bytes] = {}
    for name, rules, seed, _ in GAMES:
        table = LocalTable(rules, [load_bot("medium")] * rules.seats, rng=random.Random(seed))
        table.seat_everyone()
        table.play()
        path = folder / f"{name}.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in table.host.lines()))
        saved[name] = Path(path).read_bytes()
    return saved


def outcome(data: bytes) -> tuple[bool, Reason | None, str]:
    """(ok, reason, detail) of verifying a file's bytes; an exception is a test failure."""
    lines, failure = split_lines(data)
    if failure is not None:
        return False, failure.reason, failure.detail
    report = verify_lines(lines)
    if report.failure is None:
        return True, None, ""
    return False, report.failure.reason, report.failure.describe()


def test_the_originals_verify(transcripts: dict[str, bytes]) -> None:
    for name, data in transcripts.items():
        ok, reason, detail = outcome(data)
        assert ok, (name, reason, detail)
        assert data.endswith(b"\n") and b"\r" not in data


def byte_changes(transcripts: dict[str, bytes], rng: random.Random) -> Iterator[tuple[str, bytes]]:
    for name, data in sorted(transcripts.items()):
        for _ in range(BYTE_CHANGES[name]):
            pos = rng.randrange(len(data))
            value = rng.choice([v for v in range(256) if v != data[pos]])
            yield (
                f"{name}: byte {pos} {data[pos]:#04x} -> {value:#04x}",
                (data[:pos] + bytes([value]) + data[pos + 1 :]),
            )


def line_deletions(transcripts: dict[str, bytes]) -> Iterator[tuple[str, bytes]]:
    for name, data in sorted(transcripts.items()):
        lines = data[:-1].split(b"\n")
        for i in range(len(lines)):
            rest = lines[:i] + lines[i + 1 :]
            yield f"{name}: line {i} of {len(lines)} deleted", b"".join(x + b"\n" for x in rest)


def line_swaps(transcripts: dict[str, bytes], rng: random.Random) -> Iterator[tuple[str, bytes]]:
    for name, data in sorted(transcripts.items()):
        lines = data[:-1].split(b"\n")
        pairs = [(0, len(lines) - 1), (len(lines) - 2, len(lines) - 1)]
        pairs += [tuple(sorted(rng.sample(range(len(lines)), 2))) for _ in range(SWAPS_PER_FILE)]
        for i, j in pairs:
            if lines[i] == lines[j]:
                continue
            swapped = list(lines)
            swapped[i], swapped[j] = swapped[j], swapped[i]
            yield f"{name}: lines {i} and {j} swapped", b"".join(x + b"\n" for x in swapped)


def other_genesis(transcripts: dict[str, bytes], name: str) -> bytes:
    other = next(v for k, v in sorted(transcripts.items()) if k != name)
    return other.split(b"\n")[0]


def structural(transcripts: dict[str, bytes]) -> Iterator[tuple[str, bytes]]:
    for name, data in sorted(transcripts.items()):
        lines = data[:-1].split(b"\n")
        yield f"{name}: last line repeated", data + lines[-1] + b"\n"
        yield (
            f"{name}: a middle line repeated",
            b"".join(x + b"\n" for x in [*lines[:5], lines[4], *lines[5:]]),
        )
        yield f"{name}: final line feed removed", data[:-1]
        yield f"{name}: CRLF line ends", data.replace(b"\n", b"\r\n")
        yield f"{name}: empty line appended", data + b"\n"
        yield (
            f"{name}: another game's genesis prepended",
            b"".join([other_genesis(transcripts, name), b"\n", data]),
        )
    yield "empty file", b""


def check_all(mutants: Iterator[tuple[str, bytes]]) -> Counter[str]:
    """Verify every mutant; fail with a list of the ones that passed, crashed or said INTERNAL."""
    reasons: Counter[str] = Counter()
    bad: list[str] = []
    for label, data in mutants:
        try:
            ok, reason, detail = outcome(data)
        except Exception as err:  # a traceback is exactly what this test is about
            bad.append(f"{label}: raised {type(err).__name__}: {err}")
            continue
        if ok:
            bad.append(f"{label}: verified")
        elif reason is None or reason == Reason.INTERNAL:
            bad.append(f"{label}: reason {reason}: {detail}")
        else:
            reasons[str(reason)] += 1
    assert not bad, f"{len(bad)} mutants not refused properly:\n" + "\n".join(bad[:25])
    return reasons


def test_single_byte_changes(transcripts: dict[str, bytes]) -> None:
    reasons = check_all(byte_changes(transcripts, random.Random(SEED)))
    assert sum(reasons.values()) >= 1_000
    # The sample reaches the different layers of the checks, not only one of them.
    assert {"BAD_SIGNATURE", "JSON_SYNTAX", "SCHEMA"} <= set(reasons), reasons


def test_line_deletions(transcripts: dict[str, bytes]) -> None:
    reasons = check_all(line_deletions(transcripts))
    assert reasons["MISSING_GAME_OVER"] == len(transcripts)  # the last line of each file
    assert set(reasons) <= {"BAD_SEQ", "MISSING_GAME_OVER", "BAD_EVENT"}, reasons


def test_line_swaps(transcripts: dict[str, bytes]) -> None:
    reasons = check_all(line_swaps(transcripts, random.Random(SEED + 1)))
    assert sum(reasons.values()) >= 3 * SWAPS_PER_FILE
    assert set(reasons) <= {"BAD_SEQ", "BAD_EVENT"}, reasons


def test_structural_edits(transcripts: dict[str, bytes]) -> None:
    check_all(structural(transcripts))


def test_partial_verify_still_refuses_mutants(transcripts: dict[str, bytes]) -> None:
    """`--partial` forgives only a missing end, never a changed, missing or moved line."""
    rng = random.Random(SEED + 2)
    bad = []
    for name, data in sorted(transcripts.items()):
        lines = data[:-1].split(b"\n")
        for _ in range(20):
            i = rng.randrange(len(lines))
            line = bytearray(lines[i])
            pos = rng.randrange(len(line))
            line[pos] = rng.choice([v for v in range(256) if v not in (line[pos], 0x0A)])
            mutated = [*lines[:i], bytes(line), *lines[i + 1 :]]
            report = verify_lines(mutated, partial=True)
            if report.ok or report.failure.reason == Reason.INTERNAL or report.failure.index != i:
                bad.append((name, i, pos, report.failure))
        assert verify_lines(lines[: len(lines) // 2], partial=True).ok
    assert not bad, bad[:10]
