"""The reveal and game-over screens show the comparison code of the entry everyone compares
at (SPEC.md 3.5, the code of head H): the latest result, then the game-over entry. Players
who read the same code hold the same history up to it; a host that forked the log cannot
make two players' codes agree."""

from __future__ import annotations

from dataclasses import replace

from p2pdice.core.bids import Bid
from p2pdice.core.compare import history_code
from p2pdice.core.fairness import comparison_code
from p2pdice.core.game import Challenge, Reveal, apply
from p2pdice.core.rules import Rules
from p2pdice.core.table import Replayer, TablePhase
from p2pdice.core.transcript import parse_entry
from p2pdice.ui.reveal import game_over_model, reveal_model
from p2pdice.ui.screens import render_game_over, render_reveal
from tests.support.cheats import Game

from .helpers import bidding, opened, revealed, snap_of


def replayed(lines: list[bytes]) -> Replayer:
    replayer = Replayer()
    for line in lines:
        replayer.feed(parse_entry(line))
    return replayer


def test_the_code_is_of_the_latest_result_then_of_the_game_over_entry() -> None:
    g = Game(seed=1).start()
    g.play()
    lines = g.host.lines()
    results = [i for i, line in enumerate(lines) if parse_entry(line).kind == "event:result"]
    after_first = replayed(lines[: results[0] + 2])  # the result and one acknowledgement
    assert after_first.state is not None
    assert history_code(after_first.state, after_first.chain) == (
        results[0],
        comparison_code(after_first.chain.hashes[results[0]]),
    )
    whole = replayed(lines)
    assert whole.state is not None and whole.state.phase == TablePhase.OVER
    seq, code = history_code(whole.state, whole.chain) or (None, None)
    assert seq == len(lines) - 1 and code == comparison_code(whole.chain.head)
    # A second history (the last entry signed otherwise) reads another code at that entry.
    last = parse_entry(lines[-1])
    assert last.event is not None
    other = g.forge_like(last, ranking=list(reversed(last.event["ranking"])))
    assert other.hash != last.hash and comparison_code(other.hash) != code


def test_the_reveal_of_the_latest_round_shows_the_code_to_read_aloud() -> None:
    snap = replace(snap_of(revealed(), me=0, notes=opened(1, (0, 1, 2))), history=(41, "0" * 5))
    model = reveal_model(snap)
    assert model is not None
    assert model.history_line.startswith("Code at entry 41: 00000")
    shown = ["".join(text for _, text in line) for line in render_reveal(model)]
    assert any("Code at entry 41: 00000" in line for line in shown)


def test_game_over_shows_the_code_of_the_last_entry() -> None:
    rules = Rules(seats=2, starting_dice=1, first_starter="seat0")
    state = apply(bidding(rules, bids=((0, Bid(1, 5)),)), Challenge(1))
    state = apply(state, Reveal(((5,), (2,))))
    code = "01234-56789-01234-56789"
    snap = replace(snap_of(state, me=0, names=("Ann", "Bob")), history=(57, code))
    model = game_over_model(snap)
    shown = ["".join(text for _, text in line) for line in render_game_over(model)]
    assert any(f"Code at entry 57: {code}" in line for line in shown)
    assert all(len(line) <= 80 for line in shown)
