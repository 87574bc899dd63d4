"""The drill and the lessons take the table's keys (ui/keys.py): a typed bid may be words
("eight 2s"), a letter is a command only while nothing is typed, `l` is Liar and `x` Exact,
and Esc clears what was typed (first-time user report: `e` was Exact in the drill and took
the first letter of "eight"; Esc did nothing)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from p2pdice.bots.drill import Answer, DrillProgress
from p2pdice.core.bids import Bid
from p2pdice.core.lessons import Progress, course
from p2pdice.core.rules import Rules
from p2pdice.ui import drill, learn
from p2pdice.ui.screens import plain
from p2pdice.ui.text import ASCII


def pressed(build: Callable[[], Application[int]], steps: list[tuple[str, Callable[[], None]]]):
    """Run the app on a pipe, send each text in turn and check after each."""

    async def go() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
            app = build()
            task = asyncio.ensure_future(app.run_async())
            await asyncio.sleep(0.2)
            for text, check in steps:
                inp.send_text(text)
                await asyncio.sleep(1.2 if text == "\x1b" else 0.3)  # a lone Esc waits
                check()
            if not task.done():
                app.exit(result=0)
            await task

    asyncio.run(go())


def test_the_drill_types_number_words_clears_with_esc_and_calls_with_l_and_x() -> None:
    ds = drill.DrillState(
        rules=Rules(exact_call=True), progress=DrillProgress(), save=lambda p: None
    )
    ds.next()

    def typed(text: str) -> Callable[[], None]:
        def check() -> None:
            assert ds.typed == text and ds.answer is None, (ds.typed, ds.answer)

        return check

    def exact() -> None:
        assert ds.answer == Answer("exact")

    pressed(
        lambda: drill.build(ds, ASCII),
        [("eight 2s", typed("eight 2s")), ("\x1b", typed("")), ("x", exact)],
    )
    screen = plain(drill.render(ds))
    assert "You called Exact" in screen


def test_the_drill_names_the_tables_keys_and_no_host() -> None:
    ds = drill.DrillState(rules=Rules(), progress=DrillProgress(), save=lambda p: None)
    ds.next()
    screen = " ".join(plain(drill.render(ds)).split())
    assert "call Liar (l)" in screen and "l Liar" in screen and "Esc clear" in screen
    assert "(c)" not in screen and "c Liar" not in screen
    drill.answer(ds, Answer("exact"))  # no exact call on this table
    assert "host" not in ds.said and "learn --exact-call" in ds.said


def test_a_lesson_takes_a_bid_typed_in_words_and_l_then_answers_liar() -> None:
    rules = Rules()
    ls = learn.opening(rules, course(rules), Progress())

    def typed() -> None:
        assert ls.typed == "two 3s" and ls.finish is None

    def bid_placed() -> None:
        assert ls.finish is not None and ls.finish.result.bid == Bid(2, 3), ls.said

    pressed(lambda: learn.build(ls, lambda p: None, ASCII), [("two 3s", typed), ("\r", bid_placed)])
