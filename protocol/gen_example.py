"""Writes protocol/examples/: a whole small game's transcript, its expected verify report (what
`p2pdice verify --json` prints without `file`: `$defs/report` of schemas/v1/report.schema.json) and
mutated copies that must fail; and games with faults (lost messages, seats that drop and
return, stand-ins, undo, host-run seats, lobby leaves, void rounds, forfeits, a game nobody
survives), each with its report, listed in games.json, so that another implementation can
check every fault path.

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

from p2pdice.bots.protosim import Faults, LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.codec import encode
from p2pdice.core.compare import Transcript, compare_transcripts
from p2pdice.core.host import HostTable
from p2pdice.core.messages import Message
from p2pdice.core.rules import Rules
from p2pdice.core.table import TablePhase
from p2pdice.core.transitions import CHOSEN_MESSAGES
from p2pdice.core.verify import report_json, split_lines, verify_lines


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
    report = report_json(verify_lines(lines), lines)  # as `p2pdice verify --json` prints it
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
    # A shape error comes before the chain checks of its entry (SPEC.md 9 step 1): a commit_set
    # carrying a bid message, also out of sequence and no longer matching its signature.
    at = next(i for i, line in enumerate(lines) if b'"type":"commit_set"' in line)
    entry = json.loads(lines[at])
    entry["event"]["commits"][0]["body"]["type"] = "bid"
    entry["seq"] += 1
    shaped = encode(entry)
    mutated = [*lines[:at], shaped, *lines[at + 1 :]]
    result = verify_lines(mutated)
    assert result.failure is not None and (result.failure.index, result.failure.reason) == (
        at,
        "SCHEMA",
    )
    name = f"mutant-{len(mutations) + 1}.jsonl"
    (out / name).write_bytes(b"".join(line + b"\n" for line in mutated))
    mutations.append(
        {
            "file": name,
            "comment": "a commit_set whose first message is a bid, its seq also wrong: the shape "
            "error is reported first",
            "index": at,
            "reason": "SCHEMA",
        }
    )
    # The last line without its line feed: JSON_SYNTAX at that line's own index (SPEC.md 9).
    cut = b"".join(line + b"\n" for line in lines)[:-1]
    _, problem = split_lines(cut)
    assert problem is not None and problem.index == last and problem.reason == "JSON_SYNTAX"
    name = f"mutant-{len(mutations) + 1}.jsonl"
    (out / name).write_bytes(cut)
    mutations.append(
        {
            "file": name,
            "comment": "the last line without its line feed",
            "index": last,
            "reason": "JSON_SYNTAX",
        }
    )
    (out / "mutants.json").write_text(json.dumps(mutations, indent=1) + "\n")
    games = [
        {
            "file": "game.jsonl",
            "report": "game.report.json",
            "comment": "an honest game: aces, exact calls, palifico, a random first starter",
        }
    ]
    several = [fork_example(out, table, lines)]
    (out / "several.json").write_text(json.dumps(several, indent=1) + "\n")
    mine = []
    for name, comment, table in fault_games():
        table.seat_everyone()
        if table.host.phase == TablePhase.LOBBY:  # a table opened for more seats than it has
            table._host_outputs(table.host.request_start(table.now))
        table.play()
        lines = table.host.lines()
        report = verify_lines(lines)
        assert report.ok, (name, report.failure)
        (out / f"{name}.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
        (out / f"{name}.report.json").write_text(
            json.dumps(report_json(report, lines), indent=1) + "\n"
        )
        games.append({"file": f"{name}.jsonl", "report": f"{name}.report.json", "comment": comment})
        if name == "faults-1":
            mine.append(mine_example(out, name, table, lines))
    (out / "games.json").write_text(json.dumps(games, indent=1) + "\n")
    (out / "mine.json").write_text(json.dumps(mine, indent=1) + "\n")


def fork_example(out: Path, table: LocalTable, lines: list[bytes]) -> dict[str, object]:
    """Four transcripts of the honest game's table, as `verify --json` compares them (SPEC.md
    9, "Comparing transcripts"): game.jsonl itself; a player shown another history (the host,
    resumed on the log up to just after round 1's result, ends the game there instead:
    `game_over` `abandoned` at the seq where game.jsonl holds the next entry, both signed by
    the table's host key, a fork); a player who left before that (a prefix: it stops early);
    a copy of the whole game with one line re-encoded with a space (damage, no fork)."""
    k = 1 + next(i for i, line in enumerate(lines) if b'"type":"result"' in line)
    other = HostTable.resume(key=table.host.key, lines=lines[:k], password_verifier=None, now=0.0)
    other.abandon(0.0)
    branch = other.lines()
    assert len(branch) == k + 1 and branch[k] != lines[k] and b'"abandoned"' in branch[k]
    damaged_at = 2
    files = {
        "game.jsonl": lines,
        "fork-other-history.jsonl": branch,
        "fork-left-early.jsonl": lines[: k - 2],
        "fork-damaged-copy.jsonl": [
            *lines[:damaged_at],
            lines[damaged_at].replace(b",", b", ", 1),
            *lines[damaged_at + 1 :],
        ],
    }
    reports = []
    for name, file_lines in files.items():
        if name != "game.jsonl":
            (out / name).write_bytes(b"".join(line + b"\n" for line in file_lines))
        reports.append({"file": name, **report_json(verify_lines(file_lines), file_lines)})
    (comparison,) = compare_transcripts([Transcript(n, ls) for n, ls in files.items()])
    assert [f.seq for f in comparison.forks] == [k]
    assert comparison.damaged == (("fork-damaged-copy.jsonl", damaged_at),)
    body = {"files": reports, "comparisons": [comparison.to_json()]}
    (out / "fork.report.json").write_text(json.dumps(body, indent=1) + "\n")
    return {
        "files": list(files),
        "report": "fork.report.json",
        "status": 4,
        "comment": "game.jsonl beside three other copies of its table: a player the host showed "
        "another history (the game abandoned just after round 1's result: a fork at entry "
        f"{k}, status 4), a player who left before that (it stops early) and a copy with one "
        f"line re-encoded (damaged at entry {damaged_at}, no fork); `verify --json` with the "
        "files in this order prints the report",
    }


def mine_example(out: Path, name: str, table: LocalTable, lines: list[bytes]) -> dict[str, object]:
    """A player's record of sent messages (SPEC.md 9, step 5; 9.1) beside its transcript: the
    seat of the fault game whose messages went missing most often, and the report `verify
    --json --mine` prints for it."""
    best: tuple[int, int, list[dict[str, object]]] | None = None
    for seat in table.seats.values():
        if seat.stand_in_for is not None or seat.client.peer is None:
            continue
        records = [dict(r) for r in seat.client.sent_log]
        undelivered = len(verify_lines(lines, mine=records).mine_undelivered)
        number = seat.client.peer.seat
        assert number is not None
        if best is None or (undelivered, -number) > (best[0], -best[1]):
            best = (undelivered, number, records)
    assert best is not None and best[0] > 0
    undelivered, number, records = best
    record = f"{name}.seat{number}.sent.ndjson"  # JSON Lines, but no transcript: not *.jsonl
    (out / record).write_bytes(b"".join(encode(r) + b"\n" for r in records))
    report = verify_lines(lines, mine=records)
    assert report.ok, report.failure
    report_name = f"{name}.seat{number}.mine.report.json"
    (out / report_name).write_text(json.dumps(report_json(report, lines), indent=1) + "\n")
    return {
        "file": f"{name}.jsonl",
        "mine": record,
        "report": report_name,
        "comment": f"seat {number}'s record of what it sent, refused, saw read and lost, "
        f"beside {name}.jsonl: {undelivered} of its messages never reached the log (undelivered, "
        "information, no failure); `verify --json --mine` prints the report",
    }


def fault_games() -> list[tuple[str, str, LocalTable]]:
    """Seeded games through `simulate --protocol`'s fault injector (p2pdice.bots.protosim.Faults)."""
    medium, easy, hard = load_bot("medium"), load_bot("easy"), load_bot("hard")

    def faulty(seed: int) -> LocalTable:
        return LocalTable(
            Rules(
                seats=4,
                starting_dice=2,
                ones="aces",
                exact_call=True,
                palifico="fixed",
                turn_timer=30,
                undo=True,
                kind="practice",
                first_starter="random",
                time_bank=0,  # the faults of SPEC.md 8 without the bank; see "stalled"
            ),
            [medium, easy, hard, medium],
            rng=random.Random(seed),
            name="faults",
            faults=Faults.uniform(0.25),
            host_cpu=1,
        )

    # Opened for up to 5 seats, started by the host with the 3 seats taken: the start entry
    # fixes a 3-seat game (SPEC.md 3.3); one of them is the host's own CPU.
    three_of_five = LocalTable(
        Rules(seats=5, starting_dice=2, first_starter="random"),
        [medium, easy, hard],
        rng=random.Random(5),
        name="three of five",
        host_cpu=1,
    )
    nobody = LocalTable(
        Rules(seats=2, starting_dice=1, first_starter="seat0"),
        [medium, medium],
        rng=random.Random(1),
        name="no survivor",
        faults=Faults(open=1.0),
    )
    capped = LocalTable(
        Rules(seats=2, starting_dice=1, first_starter="seat0"),
        [medium, medium],
        rng=random.Random(1),
        name="void cap",
    )

    def lose_seat_1_contributions(conn: int, msg: Message) -> Message | None:
        # Seat 1's own contributions never reach the host: what a host that withholds them
        # would write. Two voids (as many as seats), then the game is over.
        own = msg.seat == 1 and capped.seats[conn].stand_in_for is None
        return None if msg.type == "contribute" and own else msg

    def come_back(conn: int, line: bytes) -> bytes:
        # Seat 1 reconnects as each void reaches it, so it takes its seat back (`return`)
        # rather than get a stand-in, whose contribution the host signs and could not void.
        seat = capped.seats[conn]
        if b'"no_contribution"' in line and seat.stand_in_for is None and seat.peer.seat == 1:
            capped.disconnect(conn)
            capped.reconnect(conn)
        return line

    capped.on_send = lose_seat_1_contributions
    capped.on_deliver = come_back
    stalled = LocalTable(
        Rules(seats=3, starting_dice=1, first_starter="seat0", time_bank=30),
        [medium, medium, medium],
        rng=random.Random(1),
        name="stalled",
    )

    def seat_0_never_moves(conn: int, msg: Message) -> Message | None:
        # Seat 0's player never makes a move of its own: its bank runs out on its first turn.
        own = msg.seat == 0 and stalled.seats[conn].stand_in_for is None
        return None if own and msg.type in CHOSEN_MESSAGES else msg

    stalled.on_send = seat_0_never_moves
    return [
        (
            "faults-1",
            "lost commitments, contributions, openings and moves, seats that drop on their "
            "turn and come back before or after the grace period, forced timer and blind "
            "moves, stand-ins and returns, undo, a host-run CPU seat (Faults.uniform(0.25), "
            "seed 5)",
            faulty(5),
        ),
        (
            "faults-2",
            "as faults-1, seed 7: also a player who leaves the lobby and joins again with the "
            "same key (counter 0 again)",
            faulty(7),
        ),
        (
            "three-of-five",
            "a table opened for up to 5 seats and started by the host with the 3 taken (one "
            "the host's CPU): the empty seats are left out and the game has 3 seats",
            three_of_five,
        ),
        (
            "no-survivor",
            "both openings of round 1 are lost: both seats forfeit together, nobody survives, "
            "the game is abandoned",
            nobody,
        ),
        (
            "void-cap",
            "seat 1's contributions never arrive and it comes back after each void: the rounds "
            "are void (no die lost, the same starter) until the cap of as many voids as seats; "
            "then abandoned",
            capped,
        ),
        (
            "stalled",
            "seat 0 never moves on a table with a 30 s time bank: after 15 free seconds and its "
            "bank it is declared absent (`stalled`), the host makes its blind moves and a "
            "stand-in plays it from round 2",
            stalled,
        ),
    ]


def _flip(lines: list[bytes], index: int, marker: bytes, offset: int) -> list[bytes]:
    line = bytearray(lines[index])
    at = line.rindex(marker) + len(marker) + offset
    line[at] = ord("0") if line[at] != ord("0") else ord("1")
    return [*lines[:index], bytes(line), *lines[index + 1 :]]


if __name__ == "__main__":
    main()
