"""On the real Application (headless), once a game's end-of-game check has run, the screen
asks the command line's ratings port for that table's changes (off the loop) and game over
shows each known player's change beside their place. The port here stands in for the
command line's reading of saved games (`cli.stats.ratings_book`, tested over real logs in
tests/stats): a practice game is never rated, so only a stand-in gives it a change."""

from __future__ import annotations

from pathlib import Path

from p2pdice.core.rules import Rules
from p2pdice.ui.ratings import RatingBook, RatingChange, RatingFigure

from .headless import headless
from .test_app_headless import practice_setup


async def test_game_over_shows_the_change_the_ratings_port_gives(tmp_path: Path) -> None:
    # Your seat first, then the CPU's: the CPU (seat 1) opens and your call ends the game.
    rules = Rules(seats=2, starting_dice=1, kind="practice", first_starter="seat1")
    asked: list[str | None] = []
    seats: dict[str, str] = {}

    def source(finished: str | None) -> RatingBook:
        asked.append(finished)
        if finished is None:
            return RatingBook()
        change = RatingChange(RatingFigure(20.0, False, 7), RatingFigure(22.5, False, 8))
        return RatingBook(
            {k: change.after for k in seats}, {finished: dict.fromkeys(seats, change)}
        )

    setup = practice_setup(tmp_path, rules, ["medium"])

    def with_ratings(c, lobby) -> None:
        c.ratings_source = source
        c.load_ratings()
        setup(c, lobby)

    async with headless(tmp_path, with_ratings) as d:
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        seats.update((s.key, s.name) for s in d.c.snap().seats if s is not None)
        await d.press("l")
        await d.until(lambda: d.c.mode() == "reveal")
        await d.press("\r")
        await d.until(lambda: d.c.mode() == "over")
        await d.until(lambda: "rating 20.0 -> 22.5 (+2.5)" in d.screen())
        assert asked == [None, d.c.snap().table_id]
        screen = d.screen()
        assert screen.count("rating 20.0 -> 22.5") == 2
        assert all(len(line) <= 80 for line in screen.splitlines())
