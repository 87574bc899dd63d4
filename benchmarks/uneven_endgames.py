"""Solve the heads-up rounds with uneven dice that hard plays from tables, and write them.

`python -m benchmarks.uneven_endgames --write-table [--iterations N]` solves, per ones mode
(classic's wild ones, and natural), the one-round heads-up games of one die against two
(and, in classic, one against three), either seat opening, with CFR+
(benchmarks/cfr_arrays.py), and writes the moves of the seat with the last die to
p2pdice/bots/uneven_tables.py in the format of p2pdice/bots/solved_rounds.py. Without --write-table it prints what it solved.

A round's result is worth the game that follows (`ArrayGame.round_lost`): the loser of a
challenge opens the next round, so losing a die from (a, b) as the opener leads to the game
(a - 1, b) with the same opener; the follower losing one leads to (b - 1, a) with the
follower opening; a last die lost ends the game. Values are for the opener, in games won
minus lost, and are solved from the smallest game up: (1, 1), then one die against two,
then one against three. Natural with one die against three (24 bids, 2^24 sequences) is
too big to solve here and has no table.

Each stored table is checked: how much a best response wins against the seat playing it,
beyond the game's value (0 for an equilibrium; in games won minus lost).
"""

from __future__ import annotations

import argparse
import base64
import json
import time
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from benchmarks import cfr_arrays
from p2pdice.bots.solved_rounds import Record, encode, table_key
from p2pdice.core.rules import Ones, Rules, preset

#: Per ones mode, the (opener dice, follower dice) rounds solved, smallest first.
ROUNDS: dict[Ones, tuple[tuple[int, int], ...]] = {
    Ones.WILD: ((1, 1), (1, 2), (2, 1), (1, 3), (3, 1)),
    Ones.NATURAL: ((1, 1), (1, 2), (2, 1)),
}
FLOOR = 0.005  #: moves rarer than this (CFR's averaging residue) are dropped from a table
TABLE_PATH = Path(__file__).resolve().parent.parent / "p2pdice" / "bots" / "uneven_tables.py"


def heads_up_rules(ones: Ones, dice: tuple[int, int]) -> Rules:
    return preset("classic", seats=2, ones=ones.value).with_options(starting_dice=max(dice))


def round_lost(dice: tuple[int, int], values: dict[tuple[int, int], float]) -> tuple[float, float]:
    """The opener's result when the opener / the follower loses the round (see above)."""
    opener, follower = dice
    if_opener_loses = -1.0 if opener == 1 else values[(opener - 1, follower)]
    if_follower_loses = 1.0 if follower == 1 else -values[(follower - 1, opener)]
    return if_opener_loses, if_follower_loses


def seat_records(
    tree: cfr_arrays.Tree, strategy: cfr_arrays.Strategy, seat: int, hand: int
) -> dict[tuple[int, ...], Record]:
    """`seat`'s moves with hand index `hand` at every history its own play reaches, moves
    rarer than FLOOR dropped and the rest renormalised."""
    out: dict[tuple[int, ...], Record] = {}

    def walk(d: int, node: int, history: tuple[int, ...]) -> None:
        last = history[-1] if history else -1
        first = int(tree.first_child[d][node])
        count = int(tree.children[d][node])
        if d % 2 == seat:
            row: list[tuple[int | None, float]] = [
                (last + 1 + k, float(strategy.raises[d][first + k, hand])) for k in range(count)
            ]
            if d:
                row.append((None, float(strategy.calls[d][node, hand])))
            kept = [(a, x) for a, x in row if x >= FLOOR]
            total = sum(x for _, x in kept)
            out[history] = tuple((a, x / total) for a, x in kept)
            follow = [a for a, _ in kept if a is not None]
        else:
            follow = list(range(last + 1, last + 1 + count))
        for bid in follow:
            walk(d + 1, first + bid - last - 1, (*history, bid))

    walk(0, 0, ())
    return out


def records_strategy(
    tree: cfr_arrays.Tree, tables: list[dict[tuple[int, ...], Record]], seat: int
) -> cfr_arrays.Strategy:
    """A seat playing its stored records (one per hand), as a Strategy of the tree."""

    def policy(player: int, hand: tuple[int, ...], history: tuple[int, ...]) -> list[float]:
        h = tree.game.seat_hands[player].index(hand)
        last = history[-1] if history else -1
        row = [0.0] * (len(tree.game.bids) - 1 - last + (1 if history else 0))
        for action, chance in tables[h][history]:
            row[-1 if action is None else action - last - 1] += chance
        return row

    strategy, _ = cfr_arrays.policy_strategy(tree, policy, seat)
    return strategy


def solve_mode(
    ones: Ones,
    iterations: int,
    *,
    rounds: Sequence[tuple[int, int]] | None = None,
    say: Callable[[str], object] = print,
) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Every round of ROUNDS[ones] (or the first of them, `rounds`, smallest first): its
    tables (key -> base64 of zlib) and a report row each."""
    values: dict[tuple[int, int], float] = {}
    tables: dict[str, str] = {}
    report = []
    for dice in ROUNDS[ones] if rounds is None else rounds:
        lost = round_lost(dice, values)
        game = cfr_arrays.array_game(heads_up_rules(ones, dice), dice, round_lost=lost)
        tree = cfr_arrays.Tree(game)
        started = time.perf_counter()
        solver = cfr_arrays.CfrPlus(tree)
        solver.iterate(iterations)
        average = solver.average()
        values[dice] = cfr_arrays.value(tree, average)
        row = {
            "mode": ones.value,
            "dice": f"{dice[0]}v{dice[1]}",
            "bids": len(game.bids),
            "sequences": tree.nodes,
            "round_lost": lost,
            "value": values[dice],
            "cfr_exploitability": cfr_arrays.exploitability(tree, average),
            "solve_seconds": time.perf_counter() - started,
        }
        if dice != (1, 1):  # bots/endgame.py holds (1, 1)
            size = 0
            for seat in (0, 1):
                if dice[seat] != 1:
                    continue  # hard plays its own game with more dice (bots/solved_rounds.py)
                hands = game.seat_hands[seat]
                records = [seat_records(tree, average, seat, h) for h in range(len(hands))]
                starts = [()] if seat == 0 else [(b,) for b in range(len(game.bids))]
                for hand, recs in zip(hands, records, strict=True):
                    for start in starts:
                        raw = encode(recs, len(game.bids), seat, start)
                        packed = base64.b64encode(zlib.compress(raw, 9)).decode()
                        key = table_key(ones, dice, seat, hand, start[0] if start else None)
                        tables[key] = packed
                        size += len(packed)
                stored = records_strategy(tree, records, seat)
                gain = cfr_arrays.best_response(tree, stored, 1 - seat)
                # What the other seat wins beyond the value: the table's exploitability.
                row[f"seat{seat}_table_gap"] = gain + (values[dice] if seat == 0 else -values[dice])
            row["table_chars"] = size
        report.append(row)
        say(json.dumps(row))
    return tables, report


def write_module(
    path: Path, tables: dict[str, str], report: list[dict[str, Any]], iterations: int
) -> None:
    rows = "\n".join(
        f"{r['mode']} {r['dice']}: value {r['value']:+.4f}; a best response against the seat "
        f"with one die wins {r[gap]:.4f} beyond it."
        for r in report
        for gap in ("seat0_table_gap", "seat1_table_gap")
        if gap in r
    )
    lines = [
        '"""Generated by `python -m benchmarks.uneven_endgames --write-table`: do not edit.',
        "",
        "hard's moves in heads-up rounds with its last die against two or three: CFR+",
        f"equilibria ({iterations} iterations, benchmarks/cfr_arrays.py) in the format of",
        "bots/solved_rounds.py. Values for the opener (the first number of a round's dice) in",
        "games won minus lost:",
        rows,
        '"""',
        "",
        "TABLES: dict[str, str] = {",
    ]
    for key in sorted(tables):
        text = tables[key]
        one_line = f'    "{key}": "{text}",'
        if len(one_line) <= 100:  # as ruff format writes it (the line length of pyproject.toml)
            lines.append(one_line)
            continue
        lines.append(f'    "{key}": (')
        lines.extend(f'        "{text[i : i + 76]}"' for i in range(0, len(text), 76))
        lines.append("    ),")
    lines.append("}")
    lines.append("")
    lines.append(
        "#: Each solved game's value for its opener (games won minus lost), smallest first:"
    )
    lines.append("#: what a round's result is worth when the game goes on.")
    lines.append("VALUES: dict[str, float] = {")
    for r in report:
        lines.append(f'    "{r["mode"]} {r["dice"]}": {r["value"]!r},')
    lines.append("}")
    path.write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.uneven_endgames")
    parser.add_argument("--iterations", type=int, default=300)
    parser.add_argument("--write-table", action="store_true")
    parser.add_argument("--modes", default="wild,natural")
    args = parser.parse_args(argv)
    tables: dict[str, str] = {}
    report: list[dict[str, Any]] = []
    for mode in args.modes.split(","):
        got, rows = solve_mode(Ones(mode), args.iterations)
        tables.update(got)
        report.extend(rows)
    if args.write_table:
        write_module(TABLE_PATH, tables, report, args.iterations)
        print(f"wrote {TABLE_PATH} ({sum(map(len, tables.values()))} characters of tables)")


if __name__ == "__main__":
    main()
