"""hard's moves in a few seeded games, hashed. Its speed-ups (caches keyed by numbers, sums
run in C) must leave every move as it was: a swapped argument among the many floats its
cached functions take would change a chance, and so, sooner or later, a move. When a change
to hard's play is meant, the new hash is recorded here with the change and its measurements
(docs/bots.md)."""

from __future__ import annotations

import hashlib
import random

from p2pdice.bots.registry import load_bot
from p2pdice.bots.sim import play_game
from p2pdice.core.game import Action
from p2pdice.core.rules import ChallengePenalty, Ones, Rules, preset
from p2pdice.core.view import SeatView

#: The games: (rules, the opponent in every other seat, games), each game seeded in turn.
GAMES: tuple[tuple[Rules, str, int], ...] = (
    (preset("classic", seats=2), "medium", 3),
    (preset("classic", seats=2, starting_dice=3), "sampler", 2),
    (preset("perudo", seats=3, starting_dice=3), "crediting-reader", 2),
    (preset("classic", seats=4, ones=Ones.NATURAL, starting_dice=2), "style-switcher", 2),
    (
        preset("classic", seats=2, starting_dice=4, challenge_penalty=ChallengePenalty.DIFFERENCE),
        "weakest-face",
        2,
    ),
)
#: Recorded when hard came to check the follower's calls against its model (CHECK_CALLS;
#: docs/bots.md, "This version: the follower's calls checked against the model").
#: Before, from the play of d7b1dde on: 7f42a29aa0c4a81a, in more moves (the new play loses
#: or wins some of these games sooner).
RECORDED = "d8a8be5f43b2f7c4"


def hards_moves() -> list[str]:
    hard = load_bot("hard")
    moves: list[str] = []

    def recorded(view: SeatView, rng: random.Random) -> Action:
        action = hard(view, rng)
        moves.append(repr(action))
        return action

    rng = random.Random(11)
    for rules, opponent, games in GAMES:
        other = load_bot(opponent)
        for game in range(games):
            bots = [other] * rules.seats
            bots[game % rules.seats] = recorded
            play_game(rules, bots, rng)
    return moves


def test_hard_plays_the_moves_recorded_for_these_games() -> None:
    moves = hards_moves()
    assert len(moves) > 80
    assert hashlib.sha256("\n".join(moves).encode()).hexdigest()[:16] == RECORDED
