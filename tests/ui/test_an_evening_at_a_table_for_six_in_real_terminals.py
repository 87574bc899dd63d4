"""An evening on three machines of one LAN (namespaces on a bridge), every person at the real
terminal client (tmux, 80x24), every key pressed as a person would, real mDNS.

The host opens a table for six from `p2pdice host`, with CPUs of its own for the seats still
empty at the start (`--fill-cpu easy,hard`). Two friends open `p2pdice`, find the table in
their lobbies by themselves and sit down with Enter and their names. The host's screen says
that three are seated and it may start; `s` starts the game, and the empty seats are taken by
an easy CPU and hard ones. Mid-game one friend's program is killed with -9; the same command
again in the same terminal finds the table marked as theirs, and Enter takes the seat back.
The host presses `q` and `p` while one friend is still reading a reveal: both friends are
told at once that the host paused the table (no "reconnecting"), the host's terminal says how
to resume it, the host opens its lobby and resumes the table with `r`, and the friends'
clients come back by themselves. The game ends on every screen; the host's log, its
own seat's transcript and both friends' transcripts are the same bytes and each verifies, and
the start entry is accepted by the generator's own reading of SPEC.md 3.3."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pdice.store import AppendLog
from tests.support import netns, tmux
from tests.support.procs import p2pdice
from tests.support.start_reading import independent_reading, joins_before

pytestmark = [
    pytest.mark.usefixtures("private_network"),
    pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed"),
]

TABLE = "Evening"
HOST, ANN, BEA = 0, 1, 2
NAMES = ("Hal", "Ann", "Bea")


def as_home(home: Path, *args: str) -> list[str]:
    """`p2pdice ARGS` on the machine whose data folder is `home` (as P2PDICE_HOME says)."""
    return ["env", f"P2PDICE_HOME={home}", *p2pdice(*args)]


class Evening:
    """Three terminals, one per machine, and what the test reads of them."""

    def __init__(self, tmp_path: Path, machines: list[str]) -> None:
        self.tmp = tmp_path
        self.homes = [tmp_path / who.lower() for who in NAMES]
        self.terms = [tmux.Tmux(netns=ns) for ns in machines]
        self.began = time.monotonic()
        self.timings: dict[str, float] = {}

    def mark(self, what: str) -> None:
        self.timings[what] = round(time.monotonic() - self.began, 1)

    def stderr(self, i: int) -> Path:
        return self.tmp / f"stderr-{NAMES[i].lower()}.txt"

    def entries(self) -> list[bytes]:
        logs = sorted(self.homes[HOST].glob("hosted/*/log.jsonl"))
        return AppendLog.read(logs[0]) if logs else []

    def events(self) -> list[dict]:
        return [json.loads(line).get("event") or {} for line in self.entries()]

    def report(self) -> str:
        """Every screen and every stderr file, for a failure."""
        parts = []
        for i, t in enumerate(self.terms):
            parts.append(f"--- {NAMES[i]}'s screen ---\n{t.screen()}")
            err = self.stderr(i)
            parts.append(f"--- {NAMES[i]}'s stderr ---\n{err.read_text() if err.exists() else ''}")
        parts.append(f"--- timings ---\n{self.timings}")
        return "\n".join(parts)

    def wait(self, i: int, cue: Callable[[str], bool], timeout: float, what: str) -> str:
        """Wait for `cue` on person `i`'s screen, failing with every screen."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.terms[i].screen()
            if cue(screen):
                self.mark(what)
                return screen
            time.sleep(0.2)
        raise AssertionError(f"no {what} within {timeout} s\n{self.report()}")

    def play(
        self,
        done: Callable[[], bool],
        timeout: float,
        what: str,
        who: tuple[int, ...] = (0, 1, 2),
        reading: int | None = None,
        facing_a_bid: tuple[int, ...] = (),
    ) -> None:
        """Everyone in `who` plays their turns by the screen until `done()`; `reading` stays
        on a reveal once one shows (a person reading it); those in `facing_a_bid` leave a
        turn with a bid to answer unplayed (a person thinking it over), so `done()` sees it
        however fast the CPUs bid before them."""
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise AssertionError(f"no {what} within {timeout} s\n{self.report()}")
            for i in who:
                screen = self.terms[i].screen()
                if i == reading and reading_a_reveal_with_rounds_to_come(screen):
                    continue
                if i in facing_a_bid and "Your turn." in screen and " l Liar" in screen:
                    continue
                tmux.play_step(self.terms[i])
            time.sleep(0.2)
        self.mark(what)

    def join_from_lobby(self, i: int) -> None:
        t = self.terms[i]
        self.wait(i, lambda s: re.search(rf"{TABLE} +\d/6 +lobby", s) is not None, 30,
                  f"{NAMES[i]}'s lobby listing")  # fmt: skip
        t.keys("Enter")
        self.wait(i, lambda s: "Your name at the table:" in s, 10, f"{NAMES[i]}'s name prompt")
        t.keys(*(["BSpace"] * 24), NAMES[i], "Enter")

    def kill9(self, i: int) -> None:
        pid = tmux.child_pid(self.terms[i].pane_pid())
        assert pid is not None, self.report()
        os.kill(pid, signal.SIGKILL)


def in_play(screen: str, name: str) -> bool:
    """The table screen of `name`, who holds dice."""
    return f"Your dice ({name}, seat" in screen


def at_the_table(screen: str) -> bool:
    """A table screen (not a reveal, a question or a lobby)."""
    return f" {TABLE}  round " in screen and "q quit" in screen


def reading_a_reveal_with_rounds_to_come(screen: str) -> bool:
    """A reveal that is not the game's last: its screen says who starts the next round, or
    that the next round has begun. The last round's reveal can show before the game's end
    reaches the client, so "no game over yet" cannot tell it apart."""
    return "the reveal" in screen and ("the next round" in screen or "has started" in screen)


def paused(screen: str) -> bool:
    return "The host paused the table; it can be resumed" in screen


def back_after_the_pause(screen: str) -> bool:
    """At the table or on the reveal, connected again: no word of a pause or a reconnection."""
    return (
        (at_the_table(screen) or "the reveal" in screen)
        and "paused" not in screen
        and "reconnect" not in screen.lower()
    )


def test_an_evening_at_a_table_for_six_played_in_real_terminals(tmp_path: Path) -> None:
    with netns.lan() as machines:
        night = Evening(tmp_path, machines)
        host, ann, bea = night.terms
        try:
            host.start(
                as_home(night.homes[HOST], "host", "--name", TABLE, "--seats", "6",
                        "--fill-cpu", "easy,hard", "--starting-dice", "2", "--cpu-think", "0",
                        "--player", NAMES[HOST]),
                stderr=night.stderr(HOST),
            )  # fmt: skip
            night.wait(HOST, lambda s: "Waiting for players" in s, 30, "the table open")
            ann.start(as_home(night.homes[ANN]), stderr=night.stderr(ANN))
            bea.start(as_home(night.homes[BEA]), stderr=night.stderr(BEA))
            night.join_from_lobby(ANN)
            night.join_from_lobby(BEA)

            # Who is waiting for whom, on every screen; the host may start.
            screen = night.wait(
                HOST, lambda s: "3 seated of up to 6: press s to start" in s, 30, "s offered"
            )
            # Its own screen names the level of each CPU that will take an empty seat.
            assert screen.count("at start: CPU easy") == 1, screen
            assert screen.count("at start: CPU hard") == 2, screen
            for i in (ANN, BEA):
                screen = night.wait(
                    i,
                    lambda s: "Waiting for the host to start: 3 seated" in s,
                    20,
                    f"{NAMES[i]} waiting for the host",
                )
                assert screen.count("free: CPU at the start") == 3, screen
            host.keys("s")

            # The empty seats are taken by CPUs at the levels asked for, on screen and in the log.
            night.play(lambda: any(e.get("type") == "start" for e in night.events()), 20, "start")
            start = next(e for e in night.events() if e.get("type") == "start")
            roster = start["roster"]
            assert len(roster) == 6, roster
            people = [s["name"] for s in roster if not s["host_run"]]
            cpus = [s["name"] for s in roster if s["host_run"]]
            assert people == list(NAMES), roster
            assert cpus == ["CPU easy 1", "CPU hard 2", "CPU hard 3"], roster
            screen = night.wait(
                ANN, lambda s: all(c in s for c in cpus), 20, "the CPUs on a friend's screen"
            )

            # A friend's laptop dies with a bid standing and a die in their cup (the other
            # friend, should the first be out already), and they open p2pdice again.
            def bid_and_friend_in_play() -> int | None:
                if b'"type":"bid"' not in b"".join(night.entries()[-1:]):
                    return None
                return next(
                    (i for i in (ANN, BEA) if in_play(night.terms[i].screen(), NAMES[i])), None
                )

            night.play(
                lambda: bid_and_friend_in_play() is not None,
                30,
                "a bid standing",
                facing_a_bid=(ANN, BEA),
            )
            victim = bid_and_friend_in_play()
            assert victim is not None, night.report()
            night.kill9(victim)
            night.mark(f"{NAMES[victim]} killed")
            night.terms[victim].respawn(as_home(night.homes[victim]), stderr=night.stderr(victim))
            night.wait(
                victim, lambda s: f"{TABLE} " in s and "(you)" in s, 30, "the seat in the lobby"
            )
            night.terms[victim].keys("Enter")
            # Only the one who came back touches a key meanwhile (the reveal of a round missed
            # comes first): nobody else moves, so the game cannot end before the pause.
            night.play(
                lambda: in_play(night.terms[victim].screen(), NAMES[victim]),
                30,
                "back at the seat",
                who=(victim,),
            )
            assert not any(e.get("type") == "stand_in" for e in night.events()), night.report()

            # The game goes on until the other friend is reading a reveal (Enter not pressed
            # yet), and the host pauses: both friends are told at once, at the table and on
            # the reveal, and wait quietly.
            reader = BEA if victim == ANN else ANN
            night.play(
                lambda: reading_a_reveal_with_rounds_to_come(night.terms[reader].screen()),
                40,
                f"{NAMES[reader]} reading a reveal",
                who=(HOST, victim, reader),
                reading=reader,
            )
            assert night.events()[-1].get("type") != "game_over", night.report()
            night.wait(HOST, lambda s: "q quit" in s, 20, "q offered to the host")
            host.keys("q")
            night.wait(HOST, lambda s: "Leave your table?" in s, 10, "the host's question")
            host.keys("p")
            for i in (ANN, BEA):
                screen = night.wait(i, paused, 10, f"{NAMES[i]} told of the pause")
                assert "reconnecting" not in screen.lower(), night.report()
            assert "the reveal" in night.terms[reader].screen(), night.report()
            assert night.events()[-1].get("type") != "game_over", night.report()

            # The host's terminal says how to resume; it does so from its lobby, in the same
            # terminal, as the lobby offers.
            night.wait(HOST, lambda s: "and press r" in s, 10, "how to resume")
            host.respawn(as_home(night.homes[HOST]), stderr=night.stderr(HOST))
            night.wait(HOST, lambda s: "Press r to resume" in s, 30, "the offer to resume")
            for i in (ANN, BEA):
                screen = night.terms[i].screen()
                assert paused(screen) and "reconnecting" not in screen.lower(), night.report()
            host.keys("r")
            for i in (ANN, BEA):  # no key pressed: their clients find the table again
                night.wait(i, back_after_the_pause, 40, f"{NAMES[i]} back by themselves")

            night.play(lambda: night.events()[-1].get("type") == "game_over", 90, "the game's end")
            for i in (HOST, ANN, BEA):
                night.play(lambda i=i: "Game over" in night.terms[i].screen(), 20,
                           f"game over on {NAMES[i]}'s screen")  # fmt: skip
        finally:
            screens = night.report()
            for t in night.terms:
                t.kill()
        print("evening timings (s since start):", night.timings)

    lines = night.entries()
    transcripts = [
        *sorted(night.homes[HOST].glob("hosted/*/log.jsonl")),
        *sorted(night.homes[HOST].glob("seat/tables/*/transcript.jsonl")),
        *sorted(night.homes[ANN].glob("tables/*/transcript.jsonl")),
        *sorted(night.homes[BEA].glob("tables/*/transcript.jsonl")),
    ]
    assert len(transcripts) == 4, transcripts
    assert len({path.read_bytes() for path in transcripts}) == 1, screens
    events = [json.loads(line).get("event") or {} for line in lines]
    assert events[-1]["type"] == "game_over" and events[-1].get("reason") != "abandoned"
    for files in (transcripts, *([path] for path in transcripts)):
        checked = subprocess.run(
            p2pdice("verify", *map(str, files)), capture_output=True, text=True, timeout=60
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
    for i in range(3):
        assert "Traceback" not in night.stderr(i).read_text(), screens

    # The generator's reading of SPEC.md 3.3 accepts the start the screens showed.
    reading = independent_reading()
    text = [line.decode("utf-8") for line in lines]
    assert len(reading.check_chain(text)) == len(text)
    at_start = next(i for i, e in enumerate(events) if e.get("type") == "start")
    joins = joins_before(lines, at_start)
    start = events[at_start]
    assert reading.start_refusal(events[0], joins, start["roster"], start) is None
    # ... and the same reading refuses a start that leaves a seat taken out.
    short = {**start, "roster": start["roster"][:5]}
    assert reading.start_refusal(events[0], joins, short["roster"], short) is not None
