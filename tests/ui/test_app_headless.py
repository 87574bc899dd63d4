"""The real Application, headless, through whole games: practice and pass-and-play."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pdice.cli.runtime import start_pass_and_play, start_practice
from p2pdice.core.rules import Rules
from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.ui.viewmodel import start_cursor

from .headless import headless


def practice_setup(
    home: Path, rules: Rules, cpu: list[str], humans: int = 1, *, cpu_think: float = 0
):
    def setup(c, lobby) -> None:
        lobby.open_table(
            lambda: start_practice(home, rules, cpu, humans, name="Tester", cpu_think=cpu_think),
            "practice",
        )

    return setup


def verified(path: str) -> None:
    lines, problem = split_lines(Path(path).read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok, report.failure and report.failure.describe()


async def test_a_whole_practice_game_through_the_keyboard(tmp_path: Path) -> None:
    rules = Rules(seats=3, starting_dice=2, kind="practice", undo=True)
    seen = {"dice": False, "typed": False, "arrows": False, "reveal_ok": False, "help": False}
    async with headless(tmp_path, practice_setup(tmp_path, rules, ["medium", "medium"])) as d:
        await d.until(lambda: d.c.runtime is not None and d.c.snap().view is not None)

        def progress() -> tuple:
            view = d.c.snap().view
            return (view.round, len(view.bids), len(view.results))

        loop = asyncio.get_running_loop()
        end = loop.time() + 40
        while loop.time() < end:
            mode = d.c.mode()
            screen = d.screen()
            if mode == "over":
                break
            if mode == "reveal":
                rows = [line for line in screen.splitlines() if " verified " in line + " "]
                if rows and "ALARM" not in screen:
                    seen["reveal_ok"] = True
                await d.press("\r")
            elif mode == "table" and d.c.my_turn():
                before = progress()
                seen["dice"] |= "Your dice (Tester, seat" in screen and "+-------+" in screen
                if not seen["help"]:
                    await d.press("?")
                    assert "Keys" in d.screen() and "This table:" in d.screen()
                    await d.press("?")
                    seen["help"] = True
                    continue
                elif " l Liar" in screen and (seen["typed"] and seen["arrows"]):
                    await d.press("l")
                elif not seen["typed"]:
                    snap = d.c.snap()
                    bid = d.c.ui.entry.cursor or start_cursor(snap.view)
                    words = ["zero", "one", "two", "three", "four", "five", "six"]
                    await d.press(f"{words[bid.quantity]} {bid.face}s")
                    assert "= " in d.screen(), d.screen()
                    await d.press("\r")
                    seen["typed"] = True
                else:
                    await d.press("\x1b[A")  # up: one more
                    await d.press("\r")
                    seen["arrows"] = True
                await d.until(lambda b=before: progress() != b, 5)  # our move was posted
            else:
                await asyncio.sleep(0.03)
        assert d.c.mode() == "over", d.screen()
        # The self-check runs on the seat's writer thread once game_over is on disk.
        await d.until(lambda: d.c.current().final_check is not None)
        await d.until(lambda: "Verified transcript" in d.screen())
        screen = d.screen()
        assert "Game over" in screen and "Final ranking" in screen
        check = d.c.current().final_check
        assert check is not None and check.verified, check  # the end-of-game self-check ran
        assert "Verified transcript (marked practice) saved" in screen
        path = d.c.snap().transcript
        await d.press("q")
        await asyncio.wait_for(d.task, 10)
    assert all(seen.values()), seen
    verified(path)


async def test_pass_and_play_covers_the_table_between_people_and_undoes(tmp_path: Path) -> None:
    # The people sit first, in --players order, then the CPU: seat 2 is the CPU's.
    rules = Rules(seats=3, starting_dice=1, kind="pass_and_play", undo=True, first_starter="seat2")

    def setup(c, lobby) -> None:
        lobby.open_table(
            lambda: start_pass_and_play(tmp_path, rules, ["Ann", "Bob"], ["medium"], cpu_think=0),
            "pnp",
        )

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: d.c.runtime is not None and d.c.snap().view is not None)
        ann = d.c.snap().names.index("Ann")
        # the CPU opens, then Ann plays next: her pass screen first
        await d.until(lambda: d.c.mode() == "pass")
        screen = d.screen()
        assert "Pass the device to Ann" in screen and "Last bid:" in screen
        assert "Your dice (" not in screen and "+-------+" not in screen
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        assert f"Your dice (Ann, seat {ann}):" in d.screen()
        await d.press("\r")  # Ann raises with the suggested bid
        await d.until(lambda: d.c.mode() == "pass")
        screen = d.screen()
        assert "Pass the device to Bob" in screen and "by Ann" in screen
        assert "Ann: press u to take back your bid" in screen
        await d.press("u")
        # Bob may be the one who pressed u: Ann's dice come back only behind her pass screen
        await d.until(lambda: d.c.mode() == "pass" and d.c.snap().view.turn == ann)
        screen = d.screen()
        assert "Pass the device to Ann" in screen and "+-------+" not in screen
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        view = d.c.snap().view
        assert view.turn == ann and len(view.bids) == 1  # Ann's bid is gone, her turn again
        await d.press("l")  # Ann calls Liar on the CPU's opening instead
        await d.until(lambda: d.c.mode() in ("reveal", "over"))
        assert "the reveal" in d.screen()
        await d.press("q")
        await d.press("y")
        await asyncio.wait_for(d.task, 10)


async def test_pass_and_play_covers_the_next_hand_after_a_reveal(tmp_path: Path) -> None:
    """Everyone saw the reveal: the next round's first player gets a pass screen, even the
    one who held the device before it (here Ann, who called Liar and plays next)."""
    # The people sit first, in --players order, then the CPU: seat 2 is the CPU's.
    rules = Rules(seats=3, starting_dice=2, kind="pass_and_play", undo=True, first_starter="seat2")

    def setup(c, lobby) -> None:
        lobby.open_table(
            lambda: start_pass_and_play(tmp_path, rules, ["Ann", "Bob"], ["medium"], cpu_think=0),
            "pnp",
        )

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: d.c.mode() == "pass")
        ann = d.c.snap().names.index("Ann")
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        await d.press("l")  # Ann calls Liar on the CPU's opening
        await d.until(lambda: d.c.mode() == "reveal")
        await d.press("\r")  # starts round 2 if Ann lost; else the CPU starts it

        def ann_to_play() -> bool:
            view = d.c.snap().view
            return view is not None and view.round == 2 and view.turn == ann

        await d.until(ann_to_play)
        await d.until(lambda: d.c.mode() != "table", 2)  # a covered table never shows dice
        screen = d.screen()
        assert d.c.mode() == "pass", screen
        assert "Pass the device to Ann" in screen and "+-------+" not in screen
        await d.take_the_device()
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        assert f"Your dice (Ann, seat {ann}):" in d.screen()


async def test_practice_cpus_pause_so_a_bid_can_be_taken_back(tmp_path: Path) -> None:
    """CPU seats think for a moment (here 8 s, roomy on a busy machine), as people do: the
    table is followable and the practice table's undo can be used before the next CPU answers."""
    rules = Rules(seats=3, starting_dice=2, kind="practice", undo=True, first_starter="seat0")
    setup = practice_setup(tmp_path, rules, ["medium", "medium"], cpu_think=8.0)
    async with headless(tmp_path, setup) as d:
        for _ in range(300):  # bounded: 30 s to reach our turn
            if d.c.mode() == "table" and d.c.my_turn():
                break
            if d.c.mode() == "reveal":
                await d.press("\r")  # the CPUs settled a round between them: back to the table
            await asyncio.sleep(0.1)
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        assert "Your turn." in d.screen()
        bids_before = len(d.c.snap().view.bids)
        await d.press("\r")  # the suggested bid
        me = d.c.snap().me

        def my_bid_logged() -> bool:
            view = d.c.snap().view
            return view.standing_bidder == me or view.turn == me or view.phase != "bidding"

        await d.until(my_bid_logged)
        view = d.c.snap().view
        assert view.standing_bidder == me, d.screen()  # the next CPU has not answered yet
        assert " u undo" in d.screen()
        await d.press("u")
        await d.until(lambda: d.c.my_turn() and d.c.snap().view.standing_bidder != me)
        assert len(d.c.snap().view.bids) == bids_before  # the CPUs' bids stand, ours is gone


async def test_the_next_round_starts_by_itself_when_its_starter_walks_away(tmp_path: Path) -> None:
    """The player who starts round 2 (an exact call's caller) presses nothing: after the
    pause their client starts it, and the reveal they are still looking at says so."""
    # Your seat first, then the CPU's: the CPU (seat 1) opens.
    rules = Rules(seats=2, starting_dice=2, kind="practice", exact_call=True, first_starter="seat1")
    base = practice_setup(tmp_path, rules, ["medium"])

    def setup(c, lobby) -> None:
        c.ui.auto_next_round = 1.0
        base(c, lobby)

    async with headless(tmp_path, setup) as d:
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        await d.press("x")  # Exact on the CPU's opening: the caller starts the next round
        await d.until(lambda: d.c.mode() == "reveal")
        view = d.c.snap().view
        if view.phase == "round_over":
            assert "You start the next round: press Enter (it starts by itself in" in d.screen()
        await d.until(lambda: d.c.snap().view.round == 2, 10)
        assert d.c.mode() == "reveal"  # still looking at round 1, never touched a key
        assert "Round 2 has started" in d.screen()


async def test_the_lobby_asks_for_the_password_of_a_table_joined_by_address(
    tmp_path: Path,
) -> None:
    from tests.support.wire import hosted

    async with hosted(tmp_path / "h", rules=Rules(seats=2), password="open sesame") as (
        service,
        _,
    ):

        def setup(c, lobby) -> None:
            c.ui.screen, c.ui.from_lobby = "lobby", True

        async with headless(tmp_path / "c", setup) as d:
            await d.press("a")
            await d.until(lambda: d.c.mode() == "prompt")
            await d.press(f"127.0.0.1:{service.port}\r")
            await d.until(lambda: "Your name at the table:" in d.screen())
            await d.press("\r")  # the suggested name
            await d.until(lambda: "Password for this table:" in d.screen(), 5)
            await d.press("open sesame\r")
            await d.until(lambda: d.c.runtime is not None and d.c.snap().me is not None, 10)
            assert "You are watching" not in d.screen()


async def test_game_over_offers_a_new_game_with_the_same_table(tmp_path: Path) -> None:
    # Your seat first, then the CPU's: the CPU (seat 1) opens, so the first call ends the game.
    rules = Rules(seats=2, starting_dice=1, kind="practice", first_starter="seat1")
    async with headless(tmp_path, practice_setup(tmp_path, rules, ["medium"])) as d:
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        await d.press("l")  # one die each: this call ends the game
        await d.until(lambda: d.c.mode() == "reveal")
        await d.press("\r")
        await d.until(lambda: d.c.mode() == "over")
        assert " n new game" in d.screen()
        old = d.c.runtime
        await d.press("n")
        await d.until(lambda: d.c.runtime not in (None, old) and d.c.snap().view is not None)
        view = d.c.snap().view
        assert view.round == 1 and not view.results and d.c.mode() in ("table", "pass")
        assert d.c.snap().rules == rules


async def test_a_pasted_bid_is_typed_and_a_pasted_line_break_presses_nothing(
    tmp_path: Path,
) -> None:
    rules = Rules(seats=2, starting_dice=2, kind="practice", first_starter="seat0")
    async with headless(tmp_path, practice_setup(tmp_path, rules, ["medium"])) as d:
        await d.until(lambda: d.c.mode() == "table" and d.c.my_turn())
        await d.press("\x1b[200~3 x 6s\n\x1b[201~")  # a terminal's bracketed paste
        assert d.c.ui.entry.typed == "3 x 6s", d.screen()
        assert d.c.my_turn() and not d.c.snap().view.bids  # the line break bid nothing
        assert "= 3 x 6s" in d.screen()
