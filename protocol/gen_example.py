"""Writes protocol/examples/: a whole small game's transcript, its expected verify report and
mutated copies that must fail.

Unlike gen_vectors.py this uses the reference implementation (p2pdice) to play the game,
because a game needs the whole table machine. It is an *example* to check an implementation
against, not an independent statement of the spec: the vectors under vectors/v1 are that.

    python protocol/gen_example.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules
from p2pdice.core.verify import verify_lines
from p2pdice.protosim import LocalTable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=str(Path(__file__).parent / "examples"))
    out = Path(parser.parse_args().out)
    out.mkdir(parents=True, exist_ok=True)
    rules = Rules(
        seats=2,
        starting_dice=2,
        ones="aces",
        exact_call=True,
        palifico="fixed",
        first_starter="random",
    )
    table = LocalTable(
        rules, [load_bot("medium"), load_bot("easy")], rng=random.Random(2026), name="example"
    )
    table.seat_everyone()
    table.play()
    lines = table.host.lines()
    (out / "game.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    report = verify_lines(lines).to_json()
    (out / "game.report.json").write_text(json.dumps(report, indent=1) + "\n")
    mutations = []
    last = len(lines) - 1
    cases = [
        ("drop the game-over entry", lines[:-1], None, "MISSING_GAME_OVER"),
        ("swap two entries", [*lines[:5], lines[6], lines[5], *lines[7:]], 5, "BAD_SEQ"),
        (
            "flip one hex digit of the host signature of entry 3",
            _flip(lines, 3, b'"sig":"', 10),
            3,
            "BAD_SIGNATURE",
        ),
        (
            "re-encode the last entry with a space",
            [*lines[:-1], lines[-1].replace(b",", b", ", 1)],
            last,
            "JSON_NOT_CANONICAL",
        ),
    ]
    for comment, mutated, index, reason in cases:
        result = verify_lines(mutated)
        assert result.failure is not None and result.failure.reason == reason, (
            comment,
            result.failure,
        )
        name = f"mutant-{len(mutations) + 1}.jsonl"
        (out / name).write_bytes(b"".join(line + b"\n" for line in mutated))
        mutations.append({"file": name, "comment": comment, "index": index, "reason": reason})
    (out / "mutants.json").write_text(json.dumps(mutations, indent=1) + "\n")


def _flip(lines: list[bytes], index: int, marker: bytes, offset: int) -> list[bytes]:
    line = bytearray(lines[index])
    at = line.rindex(marker) + len(marker) + offset
    line[at] = ord("0") if line[at] != ord("0") else ord("1")
    return [*lines[:index], bytes(line), *lines[index + 1 :]]


if __name__ == "__main__":
    main()
