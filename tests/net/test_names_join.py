"""Two people called Hana join one table over real WebSockets: the second sits as "Hana 2";
a person calling themselves "CPU medium 1" is stopped with a clear reason (SPEC.md 10.5)."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from p2pdice.bots.registry import load_bot
from p2pdice.core.errors import Reason
from p2pdice.core.rules import Rules
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key
from tests.support.wire import hosted, url_of


def _session(home: Path, name: str, *, bot: bool = True) -> ClientSession:
    return ClientSession(
        key=load_or_create_key(home / "identity.key"),
        name=name,
        home=home,
        bot=load_bot("easy") if bot else None,
        rng=random.Random(1),
    )


async def test_a_second_hana_sits_as_hana_2_and_the_game_is_played(tmp_path: Path) -> None:
    rules = Rules(seats=3, starting_dice=1)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy"]) as (service, table):
        first, second = _session(tmp_path / "a", "Hana"), _session(tmp_path / "b", "hana")
        url = url_of(service, table)
        a = asyncio.create_task(run_websocket(first, url, give_up_after=20))
        for _ in range(500):  # the first Hana is seated before the second looks
            if len(table.host.state.joins) == 2:
                break
            await asyncio.sleep(0.01)
        b = asyncio.create_task(run_websocket(second, url, give_up_after=20))
        try:
            outcomes = await asyncio.wait_for(asyncio.gather(a, b), 30)
        finally:
            a.cancel()
            b.cancel()
            first.close()
            second.close()
    assert outcomes == [Outcome.OVER, Outcome.OVER]
    names = [s.name for s in table.host.state.roster]
    assert sorted(names) == ["CPU easy 1", "Hana", "hana 2"], names
    assert not [e for e in first.errors + second.errors if e[0] == Reason.NAME_TAKEN]


async def test_a_person_in_the_cpu_form_is_told_to_pick_another_name(tmp_path: Path) -> None:
    async with hosted(tmp_path / "h", rules=Rules(seats=2)) as (service, table):
        person = _session(tmp_path / "p", "CPU medium 1", bot=False)
        outcome = await asyncio.wait_for(
            run_websocket(person, url_of(service, table), give_up_after=10), 15
        )
        person.close()
    assert outcome == Outcome.FATAL
    assert person.fatal is not None and person.fatal[0] == Reason.NAME_RESERVED
    assert "kept for computer players" in person.fatal[1]
    assert not table.host.state.joins


async def test_two_hanas_joining_at_once_still_get_different_names(tmp_path: Path) -> None:
    """Neither sees the other's join before signing: the loser of the race is refused
    NAME_TAKEN and signs again, on the same challenge, with the next free name."""
    async with hosted(tmp_path / "h", rules=Rules(seats=2, starting_dice=1)) as (service, table):
        sessions = [_session(tmp_path / n, "Hana") for n in "ab"]
        url = url_of(service, table)
        tasks = [asyncio.create_task(run_websocket(s, url, give_up_after=20)) for s in sessions]
        try:
            outcomes = await asyncio.wait_for(asyncio.gather(*tasks), 30)
        finally:
            for task in tasks:
                task.cancel()
            for s in sessions:
                s.close()
    assert outcomes == [Outcome.OVER, Outcome.OVER]
    assert sorted(s.name for s in table.host.state.roster) == ["Hana", "Hana 2"]
    assert not sessions[0].errors and not sessions[1].errors  # no timeout, no reconnect
