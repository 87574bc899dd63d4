"""Multiplayer ratings from placements, with openskill's Plackett-Luce model (docs/stats.md).

Everything that decides a figure is fixed here and written in docs/stats.md: the model and
its parameters, which games and seats count, and the order they are applied in (by the hash
of each game's start entry, so neither file names, file order nor clocks matter).

A seat a CPU stand-in played part of (SPEC.md 8) is rated for none of that game: the host
chose when its own CPU took the seat and the CPU played it, so its place is not its key's
work, and the log cannot tell a player who left from a host that said so. The other seats
are rated among themselves, in the order of their places.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from .games import Game, Player

MU = 25.0
SIGMA = MU / 3
BETA = MU / 6
KAPPA = 0.0001
TAU = MU / 300
#: Games a key needs before its rating loses its provisional mark.
PROVISIONAL_GAMES = 5
#: Distinct keys of human seats a game needs to be rated: one key alone can only be playing
#: CPUs, and a rating is a claim about people playing people.
MIN_HUMAN_KEYS = 2


def model() -> PlackettLuce:
    """The rating model, every parameter given rather than left to the library's defaults."""
    return PlackettLuce(
        mu=MU, sigma=SIGMA, beta=BETA, kappa=KAPPA, tau=TAU, limit_sigma=False, balance=False
    )


@dataclass(slots=True)
class Rating:
    key: str
    kind: str
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    #: (game's table id, ordinal after it), one per rated game in the order applied
    history: list[tuple[str, float]] = field(default_factory=list)

    @property
    def ordinal(self) -> float:
        """The figure shown: mu - 3 sigma, a cautious estimate that rises with games."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "mu": self.mu,
            "sigma": self.sigma,
            "rating": self.ordinal,
            "games": self.games,
            "provisional": self.provisional,
            "history": [{"table": t, "rating": r} for t, r in self.history],
        }


def rated_players(game: Game) -> tuple[Player, ...]:
    """The seats a game rates: on a standard table, every seat no CPU stand-in played for,
    when they hold at least two distinct human keys; none otherwise."""
    if game.kind != "standard":
        return ()
    stood_in = game.stood_in
    seats = tuple(p for p in game.players if p.seat not in stood_in)
    humans = {p.key for p in seats if p.kind == "human"}
    return seats if len(humans) >= MIN_HUMAN_KEYS else ()


def rated(game: Game) -> bool:
    """Whether a game counts for ratings: a standard table with two distinct human keys at
    seats their own keys played throughout (`rated_players`)."""
    return bool(rated_players(game))


def apply_order(games: Iterable[Game]) -> list[Game]:
    """The games that count, in the order they are applied: by start-entry hash."""
    return sorted((g for g in games if rated(g)), key=lambda g: g.start_hash)


def rate(games: Iterable[Game]) -> dict[str, Rating]:
    """Every key's rating after the rated games, applied in `apply_order`."""
    pl = model()
    ratings: dict[str, Rating] = {}
    for game in apply_order(games):
        seats = list(rated_players(game))
        mine = [ratings.setdefault(p.key, Rating(key=p.key, kind=p.kind)) for p in seats]
        # A key holds one seat at a table (the protocol refuses a second: ALREADY_SEATED);
        # were it ever otherwise, it would still be one player, rated once at its best place.
        unique: dict[str, tuple[Rating, int]] = {}
        for player, rating in zip(seats, mine, strict=True):
            place = game.places[player.seat]
            if player.key not in unique or place < unique[player.key][1]:
                unique[player.key] = (rating, place)
        order = sorted(unique)
        teams = [[pl.create_rating([unique[k][0].mu, unique[k][0].sigma], name=k)] for k in order]
        after = pl.rate(teams, ranks=[float(unique[k][1]) for k in order])
        for key, (team,) in zip(order, after, strict=True):
            rating = unique[key][0]
            rating.mu, rating.sigma = float(team.mu), float(team.sigma)
            rating.games += 1
            rating.history.append((game.table_id, rating.ordinal))
    return ratings


@dataclass(frozen=True, slots=True)
class Change:
    """What one game did to one key's rating: the rating over every other game held, and
    over them all with this one (docs/stats.md, "At the table")."""

    key: str
    before: Rating | None  #: None: this game is the key's first rated game
    after: Rating


def change_of(games: Iterable[Game], table_id: str) -> dict[str, Change]:
    """Each rated key's change from the game at `table_id`: ratings without it, then with
    it, each applied in `apply_order`. Empty when that game is not held or not rated; a key
    whose seat a CPU stand-in played part of (`Game.stood_in`) has none."""
    held = list(games)
    game = next((g for g in held if g.table_id == table_id), None)
    if game is None or not rated(game):
        return {}
    before = rate(g for g in held if g.table_id != table_id)
    after = rate(held)
    return {
        p.key: Change(p.key, before.get(p.key), after[p.key])
        for p in rated_players(game)
        if p.key in after
    }


def stood_in_keys(games: Iterable[Game], table_id: str) -> list[str]:
    """The keys of the standard game at `table_id` whose seats a CPU stand-in played part
    of: the game rates none of them (`rated_players`), and the game-over screen says so."""
    game = next((g for g in games if g.table_id == table_id), None)
    if game is None or game.kind != "standard":
        return []
    stood_in = game.stood_in
    return [p.key for p in game.players if p.seat in stood_in]
