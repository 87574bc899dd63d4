"""A headless host's "waiting for the start" line counts a host-run CPU seat once: kept for it
until it joins, then among the seats taken by name. It said "4 of up to 3 seats taken" once
the host's CPUs had sat down."""

from __future__ import annotations

import random

from p2pdice.bots.protosim import LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.cli.narrate import Narrator
from p2pdice.core.rules import Rules
from p2pdice.core.table import Replayer
from p2pdice.core.table_state import TablePhase
from p2pdice.core.transcript import parse_entry


def test_a_host_cpu_is_kept_for_until_it_joins_and_then_counted_by_name() -> None:
    rules = Rules(seats=3, starting_dice=1)
    table = LocalTable(
        rules, [load_bot("easy")] * 3, rng=random.Random(1), name="waiting", host_cpu=2
    )
    table.seat_everyone()
    table.run_until_idle()
    said: list[str] = []
    narrator = Narrator(said.append)
    replayer = Replayer()
    hashes: list[bytes] = []
    for line in table.host.lines():
        entry = parse_entry(line)
        replayer.feed(entry)
        hashes.append(entry.hash)
        assert replayer.state is not None
        if replayer.state.phase != TablePhase.LOBBY:
            break
        narrator.update(replayer.state, hashes)
    waiting = [line for line in said if line.startswith("waiting for the start")]
    assert waiting, said
    for line in waiting:
        taken, most = line.split(": ")[1].split(" seats taken")[0].split(" of up to ")
        assert int(taken) <= int(most) == 3, line
    assert waiting[-1].startswith("waiting for the start: 3 of up to 3 seats taken"), waiting
    assert "kept for host CPU" not in waiting[-1], waiting
    assert "2 kept for host CPUs" in waiting[0], waiting
