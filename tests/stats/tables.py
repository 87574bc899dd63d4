"""Protocol games between bots whose seats reuse a small pool of keys, as friends who meet
again do (bots/protosim.py draws a fresh key per seat per game; here the draws of the seat
keys are served from the pool), saved in a data folder laid out as p2pdice/store.py does."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Sequence
from pathlib import Path

from p2pdice.bots.names import DEFAULT_LEVEL
from p2pdice.bots.protosim import Faults, LocalTable
from p2pdice.bots.registry import load_bot
from p2pdice.core.rules import Rules, preset
from p2pdice.core.table import TablePhase


class PooledKeys(random.Random):
    """A seeded stream whose next 32-byte draws are the queued keys (the seat keys)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.queued: list[bytes] = []

    def randbytes(self, n: int) -> bytes:
        if n == 32 and self.queued:
            return self.queued.pop(0)
        return super().randbytes(n)


POOL = [bytes([n]) * 32 for n in range(1, 5)]  #: four players' secret keys


def play_game(
    number: int, rules: Rules, keys: Sequence[bytes], *, humans: bool = True, host_run: int = 0
) -> list[bytes]:
    """One whole protocol game (its host's log), seats signed by `keys` in order; the last
    `host_run` seats are CPUs the host runs."""
    rng = PooledKeys(number)
    bot = load_bot(DEFAULT_LEVEL)
    table = LocalTable(rules, [bot] * len(keys), rng=rng, name=f"game {number}", host_cpu=host_run)
    rng.queued = list(keys)
    for seat in range(len(keys)):
        by_host = seat >= len(keys) - host_run
        table.add_player(bot, name=f"P{seat}", cpu=not humans or by_host, host_run=by_host)
    table.run_until_idle()
    assert not rng.queued, "every seat key came from the pool"
    table.play()
    return table.host.lines()


def league(count: int = 8) -> list[list[bytes]]:
    """`count` games among the pool, alternating classic and perudo rules, 3 seats each."""
    games = []
    for number in range(count):
        chosen = [POOL[(number + i) % len(POOL)] for i in range(3)]
        name = "classic" if number % 2 == 0 else "perudo"
        games.append(play_game(number, preset(name, seats=3, starting_dice=2), chosen))
    return games


def save_home(home: Path, games: Sequence[list[bytes]], names: Sequence[str]) -> Path:
    """Each game as `hosted/<name>/log.jsonl` under `home` (the name is the folder)."""
    for name, lines in zip(names, games, strict=True):
        folder = home / "hosted" / name
        folder.mkdir(parents=True)
        (folder / "log.jsonl").write_bytes(b"".join(line + b"\n" for line in lines))
    return home


def until_a_knock_out(table: LocalTable) -> None:
    """Play the seated table one step at a time until a seat is knocked out."""
    table.run_until_idle(decide=False)  # seated; no bot has moved yet
    for _ in range(100_000):
        game = table.host.state.game
        if game is not None and any(result.eliminated for result in game.results):
            return
        # One step taken with more to come is what max_steps=1 says by raising.
        with contextlib.suppress(RuntimeError):
            table.run_until_idle(max_steps=1)
    raise AssertionError("nobody was knocked out")


def play_abandoned(number: int, rules: Rules, keys: Sequence[bytes]) -> list[bytes]:
    """A game its host ends (shutting down) just after the first seat is knocked out."""
    rng = PooledKeys(number)
    bot = load_bot(DEFAULT_LEVEL)
    table = LocalTable(rules, [bot] * len(keys), rng=rng, name=f"game {number}")
    rng.queued = list(keys)
    for seat in range(len(keys)):
        table.add_player(bot, name=f"P{seat}", cpu=False)
    until_a_knock_out(table)
    table._host_outputs(table.host.abandon(table.now))
    table.run_until_idle(decide=False)
    assert table.host.phase == TablePhase.OVER
    return table.host.lines()


def play_with_a_leaver(
    number: int, rules: Rules, keys: Sequence[bytes], leaver: int
) -> list[bytes]:
    """A game of people (human seats) in which the player at seat `leaver` leaves for good on
    its first turn with a bid standing (as `q`, `y` at the table does): after the grace period
    the host makes its blind move, a challenge (`forced`), and from the next round a CPU it
    runs plays the seat (`stand_in`) to the end. Its host's log."""
    rng = PooledKeys(number)
    bot = load_bot(DEFAULT_LEVEL)
    table = LocalTable(rules, [bot] * len(keys), rng=rng, name=f"game {number}")
    rng.queued = list(keys)
    conns = [table.add_player(bot, name=f"P{seat}", cpu=False) for seat in range(len(keys))]
    table.run_until_idle(decide=False)  # seated; no bot has moved yet
    for _ in range(100_000):  # one step at a time, to stop on the leaver's turn
        game = table.host.state.game
        on_turn = game is not None and game.turn == leaver and bool(game.bids)
        if table.host.phase == TablePhase.BIDDING and on_turn:
            break
        with contextlib.suppress(RuntimeError):
            table.run_until_idle(max_steps=1)
    else:
        raise AssertionError("never the leaver's turn with a bid standing")
    table.disconnect(conns[leaver])  # and never back
    table.play()
    return table.host.lines()


def play_to_no_survivor(number: int, rules: Rules, keys: Sequence[bytes]) -> list[bytes]:
    """A game of people in which, once a seat is knocked out, every opening is lost on its
    way to the host: at the next call the seats still in all forfeit together and nobody
    survives (RULES.md R6: the game ends abandoned). Its host's log."""
    rng = PooledKeys(number)
    bot = load_bot(DEFAULT_LEVEL)
    table = LocalTable(rules, [bot] * len(keys), rng=rng, name=f"game {number}", faults=Faults())
    rng.queued = list(keys)
    for seat in range(len(keys)):
        table.add_player(bot, name=f"P{seat}", cpu=False)
    until_a_knock_out(table)
    table.faults = Faults(open=1.0, limit=len(keys))
    table.play()
    return table.host.lines()


def play_with_faults(
    number: int, rules: Rules, keys: Sequence[bytes], faults: Faults
) -> list[bytes]:
    """A game of people that goes wrong as `simulate --protocol --faults` does, in the ways
    `faults` gives: lost openings (forfeits), lost contributions (voids), seats that drop and
    come back or are stood in for. Its host's log."""
    rng = PooledKeys(number)
    bot = load_bot(DEFAULT_LEVEL)
    table = LocalTable(rules, [bot] * len(keys), rng=rng, name=f"game {number}", faults=faults)
    rng.queued = list(keys)
    for seat in range(len(keys)):
        table.add_player(bot, name=f"P{seat}", cpu=False)
    table.run_until_idle()
    assert not rng.queued, "every seat key came from the pool"
    table.play()
    return table.host.lines()
