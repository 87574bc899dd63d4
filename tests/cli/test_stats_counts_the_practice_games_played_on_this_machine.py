"""A new player's record (`p2pdice stats`, and the lobby's `g`) holds every game played on
this machine, wherever the tables saved it: practice and pass-and-play games in their own
sections, apart from contests, a hosted game among the contests, and a practice game left
part-way as a game ended early. Each game is shown once, however many copies of it the
machine holds (the host's log, each seat's copy); none of those copies is a "skipped" file.

The games are played here by the same code the terminal client plays them on
(cli/runtime.py), in the default data folder of a user whose HOME is new, with a bot
playing the seats a person would."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest

from p2pdice.bots.registry import load_bot
from p2pdice.cli import main, runtime
from p2pdice.cli.runtime import TableRuntime, start_hosting, start_pass_and_play, start_practice
from p2pdice.cli.stats import record_text
from p2pdice.core.rules import Rules
from p2pdice.stats.games import DUPLICATE
from p2pdice.store import data_dir
from tests.support.waiting import until

CPU = ["medium", "medium"]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A first-time user: a new HOME, no P2PDICE_HOME, no --home: the default data folder."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("P2PDICE_HOME", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    found = data_dir()
    assert found.is_relative_to(tmp_path)
    return found


@pytest.fixture(autouse=True)
def bots_play_my_seats(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats held on this screen are played by a bot, as the person would play them."""
    seated = functools.partial(runtime.ClientSession, bot=load_bot("medium"), rng=random.Random(7))
    monkeypatch.setattr(runtime, "ClientSession", seated)


async def play(opening: Awaitable[TableRuntime]) -> list[str]:
    """Play the table to its end and close it; its people's keys (hex)."""
    table = await opening
    try:
        table.start_game()  # a hosted table starts on the host's word; the others at once
        await until(lambda: all(s.finished for s in table.sessions), 60)
    finally:
        await table.close()
    return [s.key.public.hex() for s in table.sessions]


def stats(capsys: pytest.CaptureFixture[str], *flags: str) -> dict[str, Any]:
    assert main(["stats", "--json", *flags]) == 0  # no --home: the default data folder
    body: dict[str, Any] = json.loads(capsys.readouterr().out)
    return body


def games_of(body: dict[str, Any], kind: str) -> dict[str, int]:
    """Each key's games in the sections of one table kind."""
    return {p["key"]: p["games"] for g in body["groups"] if g["kind"] == kind for p in g["players"]}


def assert_nothing_skipped_but_copies(body: dict[str, Any], home: Path) -> None:
    assert [s for s in body["skipped"] if s["reason"] != DUPLICATE] == []
    assert all(Path(s["file"]).is_relative_to(home) for s in body["skipped"])


async def test_a_finished_practice_game_is_in_the_record_once_among_the_practice_games(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = Rules(seats=3, starting_dice=2, kind="practice", undo=True)
    [me] = await play(start_practice(home, rules, CPU, cpu_think=0))
    # Saved where practice saves it: its host's log and the seat's copy, outside tables/.
    assert list(home.glob("practice/host/hosted/*/log.jsonl"))
    assert list(home.glob("practice/1/tables/*/transcript.jsonl"))
    assert not (home / "tables").exists() and not (home / "hosted").exists()

    body = stats(capsys)
    assert body["games"] == 1
    assert [g["kind"] for g in body["groups"]] == ["practice"]
    assert games_of(body, "practice")[me] == 1
    assert body["ratings"] == []  # a practice game is never rated
    assert_nothing_skipped_but_copies(body, home)
    assert len(body["skipped"]) == 1  # the seat's copy beside the host's log
    assert stats(capsys) == body  # the second run, from the cache, says the same
    assert stats(capsys, "--no-cache") == body

    assert main(["stats"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("1 verified game(s)") and "(practice: not a contest)" in text
    assert "skipped" not in text
    # What the lobby's g shows is the same record.
    shown = record_text(home)
    assert shown.startswith("1 verified game(s)") and "(practice: not a contest)" in shown
    assert main(["stats", "--json", "--practice", "omit"]) == 0
    assert json.loads(capsys.readouterr().out)["games"] == 0


async def test_pass_and_play_and_hosted_games_are_each_shown_once_in_their_own_section(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pnp = Rules(seats=3, starting_dice=2, kind="pass_and_play", undo=True)
    ann, bob = await play(start_pass_and_play(home, pnp, ["Ann", "Bob"], ["medium"], cpu_think=0))
    [host] = await play(
        start_hosting(
            home,
            name="Friday",
            player="me",
            rules=Rules(seats=3, starting_dice=2),
            cpu=CPU,
            password=None,
            bind="127.0.0.1",
            advertise=False,
            cpu_think=0,
        )
    )
    body = stats(capsys)
    assert body["games"] == 2
    assert sorted(g["kind"] for g in body["groups"]) == ["pass_and_play", "standard"]
    assert {ann: 1, bob: 1}.items() <= games_of(body, "pass_and_play").items()
    assert games_of(body, "standard")[host] == 1
    assert_nothing_skipped_but_copies(body, home)
    # The pass-and-play host's log beside two seats' copies; the host's seat copy.
    assert len(body["skipped"]) == 3
    assert stats(capsys, "--practice", "omit")["games"] == 1


async def test_a_practice_game_left_part_way_is_shown_as_ended_early(
    home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rules = Rules(seats=3, starting_dice=5, kind="practice", undo=True)
    table = await start_practice(home, rules, CPU, cpu_think=0)
    try:

        def a_round_played() -> bool:
            peer = table.sessions[0].peer
            state = peer.state if peer is not None else None
            return state is not None and state.game is not None and len(state.game.results) > 0

        await until(a_round_played, 60)
    finally:
        await table.close()  # the player leaves: the table ends the game early
    [me] = [s.key.public.hex() for s in table.sessions]
    body = stats(capsys)
    assert body["games"] == 1
    [group] = body["groups"]
    [mine] = [p for p in group["players"] if p["key"] == me]
    assert group["kind"] == "practice" and mine["games"] == 1
    assert all(p["wins"] == 0 for p in group["players"])  # ended early: no winner
    assert_nothing_skipped_but_copies(body, home)
