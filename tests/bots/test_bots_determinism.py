"""Same view and same seed, same decision; same tournament seed, same figures."""

from __future__ import annotations

import random

import pytest

from p2pdice.bots.names import STYLE_NAMES
from p2pdice.bots.registry import BOT_NAMES, load_bot
from p2pdice.bots.sim import play_game
from p2pdice.bots.tournament import run_tournament
from p2pdice.core.rules import preset
from p2pdice.core.view import SeatView


def _views(seed: int) -> list[tuple[SeatView, int]]:
    """Views met by `hard` in a few real games (perudo: aces, exact calls, palifico)."""
    seen: list[tuple[SeatView, int]] = []
    hard = load_bot("hard")

    def recording(view: SeatView, rng: random.Random):  # type: ignore[no-untyped-def]
        seen.append((view, rng.getrandbits(32)))
        return hard(view, rng)

    medium = load_bot("medium")
    rng = random.Random(seed)
    for _ in range(3):
        play_game(preset("perudo", seats=4), [recording, medium, medium, medium], rng)
    return seen


@pytest.mark.parametrize("name", (*BOT_NAMES, *STYLE_NAMES))
def test_a_decision_depends_only_on_the_view_and_the_seed(name: str) -> None:
    bot = load_bot(name)
    for view, seed in _views(7):
        first = bot(view, random.Random(seed))
        # Interleave other decisions so caches are warm and in another order the second time.
        bot(view, random.Random(seed + 1))
        assert bot(view, random.Random(seed)) == first


def test_whole_games_repeat_under_a_seed() -> None:
    bots = [load_bot(n) for n in ("hard", "medium", "easy")]
    rules = preset("classic", seats=3)
    first = [play_game(rules, bots, random.Random(s)).ranking for s in range(5)]
    again = [play_game(rules, bots, random.Random(s)).ranking for s in range(5)]
    assert first == again


def test_tournament_figures_do_not_depend_on_jobs() -> None:
    rules = preset("perudo", seats=3)
    one = run_tournament(rules, ["hard", "medium", "easy"], games=24, seed=3, jobs=1)
    two = run_tournament(rules, ["hard", "medium", "easy"], games=24, seed=3, jobs=2)
    strip = lambda r: {k: v for k, v in r.to_json().items() if k != "games_per_second"}  # noqa: E731
    assert strip(one) == strip(two)
    assert one.rounds == two.rounds
