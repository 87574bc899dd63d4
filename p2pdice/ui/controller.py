"""What each key does at a table, and which screen the table shows: one object over UiState.

The controller is the reducer around the one UI state: each event (a key, a tick of the
clock, a session reporting a change) ends with one step (`settle`) that reads each session
that reported a change (`ui.snapshot.snapshot`, once per burst of changes) and applies the
one transition new facts cause (`modes.arrive`, a pure function whose answer the step
writes into the state). Then one new immutable `Snapshot` serves the event: the key filters,
the key handlers and the drawing of the next frame all read it, and building it changes
nothing (it fits the last reading to the state and the time: `ui.snapshot.project`). Which
screen shows is a pure function of the state and the snapshot (`ui.modes`). Nothing here
looks inside a session: the clock and the handlers read its facts from the readings, and a
session is only told to act. Intents (bid, Liar, Exact, undo, start the next round, switch
seat) become actions on the right session. It never draws: `frame` asks the view models and
`screens` for fragments. Key handlers and the ticker catch every error and show it on the
message line, so an unexpected state never takes the app down.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.bids import Bid
from ..core.describe import bid_words
from ..core.errors import P2PDiceError, UserError
from ..core.game import Action, Challenge, ExactCall, Phase, PlaceBid, StartNextRound, Undo
from ..core.view import SeatView
from . import modes
from .bidentry import BidSyntaxError, parse_bid
from .ports import LINK_OPEN, OpenTable, TableSession
from .ratings import RatingBook
from .snapshot import link_word, project, snapshot
from .state import UiState
from .text import safe_text
from .viewmodel import (
    ENDED_LINKS,
    USER_KINDS,
    EntryState,
    Snapshot,
    can_undo,
    choices_of,
    start_cursor,
)

if TYPE_CHECKING:
    from .lobby import LobbyActions

log = logging.getLogger("p2pdice.ui")

_UNREAD = Snapshot()  #: the facts of a session not read yet: connecting

#: The kinds of table on this machine only, whose games nobody can resume.
LOCAL_KINDS = ("practice", modes.PASS_AND_PLAY)

#: What a move made while the link to the table is down says (see `Controller._unreachable`).
ENDED_NOT_SENT = "the connection to the table has ended: nothing was sent"
RECONNECTING_NOT_SENT = "not connected to the table (reconnecting): nothing was sent"

#: Pass-and-play: a pass screen is lifted with Space, not Enter (which places a bid and
#: starts a round, so a second press or a held key would show the next person's dice to the
#: one still holding the device), and only after this many seconds without a key press.
PASS_PAUSE = 0.6


class Controller:
    def __init__(
        self,
        ui: UiState,
        *,
        invalidate: Callable[[], None] = lambda: None,
        exit_app: Callable[[int], None] = lambda code: None,
    ) -> None:
        self.ui = ui
        self.invalidate = invalidate
        self.exit_app = exit_app
        self.rng = random.Random()
        self._tasks: set[asyncio.Task[Any]] = set()
        self.lobby: LobbyActions | None = None  #: set when the lobby is in use
        #: Each session's last reading, by its index in `sessions` (made by `settle`).
        self._facts: dict[int, Snapshot] = {}
        self._changed: set[int] = set()  #: sessions that reported a change since their reading
        self._settling: asyncio.Handle | None = None  #: the step due after a session's change
        self._behind_failed = False  #: players_behind raised once (logged once)
        self._snap: Snapshot | None = None  #: this event's snapshot, once asked for
        self._arrived: Snapshot | None = None  #: the reading `modes.arrive` last saw
        #: Reads the ratings off this device's verified games (blocking: run on a thread),
        #: with the changes the finished table given made; set by the command line.
        self.ratings_source: Callable[[str | None], RatingBook] | None = None
        self._ratings_asked: set[str] = set()  #: finished tables whose changes were asked
        self.clock: Callable[[], float] = time.monotonic  #: for the pauses between keys
        self._last_key_at = -float("inf")  #: when the last key was pressed (`clock`)
        #: Seconds between the key being handled and the one before it.
        self.key_gap = float("inf")

    def key_pressed(self) -> None:
        """A key is about to be handled: note how long after the one before it."""
        now = self.clock()
        self.key_gap, self._last_key_at = now - self._last_key_at, now

    # ---- background work -------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str = "that") -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(self._guard(coro, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def finish_tasks(self, timeout: float) -> None:
        """Let the work still running finish (a table closing: its players must be told
        before the program exits), for at most `timeout` seconds."""
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=timeout)

    async def _guard(self, coro: Coroutine[Any, Any, Any], what: str) -> Any:
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except UserError as err:
            # The user's to fix (a table that cannot be resumed, a host that does not answer):
            # its own words, not a traceback in the log.
            self.say(safe_text(err, 200), error=True)
            return None
        except Exception as err:
            log.exception("%s failed", what)
            self.say(f"{what} failed: {safe_text(err, 200)}", error=True)
            return None
        finally:
            self.refresh()

    def load_ratings(self, finished: str | None = None) -> None:
        """Read the ratings again, off the loop (with the changes `finished` made, once its
        transcript is whole); the screens show them when they arrive."""
        source = self.ratings_source
        if source is None:
            return

        async def read() -> None:
            book = await asyncio.to_thread(source, finished)
            changes = {**self.ui.ratings.changes, **book.changes}
            self.ui.ratings = RatingBook(book.figures, changes)
            self.ui.book.ratings = self.ui.ratings
            self.ui.book.changed()

        self.spawn(read(), "reading the ratings")

    def say_table_hint(self) -> None:
        """Where others join a table this device opened, on the message line; once its game
        has started, where they watch it ("others type p2pdice join ..." seats nobody then)."""
        runtime = self.runtime
        if runtime is None or not runtime.hint:
            return
        session = self.current()
        phase = self.facts(session).phase if session is not None else "connecting"
        started = phase not in ("lobby", "connecting") and runtime.started_hint
        self.say(runtime.started_hint if started else runtime.hint)

    def say(self, text: str, *, error: bool = False) -> None:
        self.ui.message = text
        self.ui.message_style = "class:error" if error else "class:message"
        self.invalidate()

    # ---- sessions --------------------------------------------------------------------------

    @property
    def runtime(self) -> OpenTable | None:
        return self.ui.runtime

    @property
    def sessions(self) -> Sequence[TableSession]:
        return self.runtime.sessions if self.runtime is not None else []

    @property
    def kind(self) -> str:
        return self.runtime.kind if self.runtime is not None else ""

    def seats(self) -> tuple[int, ...]:
        """Every seat this device plays (a spectator's session holds none)."""
        return tuple(me for me in (self.facts(s).me for s in self.sessions) if me is not None)

    def session_for(self, seat: int | None) -> TableSession | None:
        for session in self.sessions:
            if seat is not None and self.facts(session).me == seat:
                return session
        return None

    def current(self) -> TableSession | None:
        sessions = self.sessions
        if not sessions:
            return None
        if self.kind == modes.PASS_AND_PLAY:
            return self.session_for(self.ui.holder) or sessions[0]
        return sessions[self.ui.current % len(sessions)]

    def set_runtime(self, runtime: OpenTable | None) -> None:
        for session in self.sessions:
            session.on_update = None  # a table left behind (closing) no longer redraws this one
        ui = self.ui
        ui.runtime, ui.current, ui.holder, ui.review, ui.seen_results = runtime, 0, None, None, None
        ui.coach = None
        ui.entry, ui.entry_key, ui.sent = EntryState(), None, {}
        ui.errors_seen, ui.auto_moved, ui.followed = {}, set(), None
        ui.help = ui.quitting = False
        self._facts, self._snap, self._arrived = {}, None, None
        self._changed = set(range(len(self.sessions)))
        for index, session in enumerate(self.sessions):
            session.on_update = lambda index=index: self.session_changed(index)
        ui.screen = "table"
        self.settle()

    # ---- the event step and the event's snapshot -------------------------------------------

    def session_changed(self, index: int) -> None:
        """A session reported a change: the step that reads it runs once the code that
        changed it is done (one step for a burst of changes in one turn of the event loop,
        or at the end of the key or tick that caused them, whichever comes first)."""
        self._changed.add(index)
        if self._settling is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a test driving the controller by hand)
            self.refresh()
            return
        self._settling = loop.call_soon(self._changed_step)

    def _changed_step(self) -> None:
        self._settling = None
        self.refresh()

    def refresh(self) -> None:
        """An event is over (a key, a tick, a session's change, a task's end): the event
        step runs, the next snapshot is fitted to the new state, and the screen redrawn."""
        self.settle()
        self._snap = None
        self.invalidate()

    def settle(self) -> None:
        """The event step: read each session that reported a change (and only those), then
        apply what the shown session's new facts change in the UI state (`modes.arrive`),
        so every reader of the next snapshot sees the same state and the same facts."""
        sessions = self.sessions
        changed, self._changed = self._changed, set()
        for index in sorted(changed):
            if index < len(sessions):
                self._facts[index] = snapshot(sessions[index])
        for _ in range(2):  # once more when the device changed hands: the new holder's facts
            session = self.current()
            if session is None:
                return
            facts = self.facts(session)
            if facts is self._arrived:
                return
            if facts.final_check is not None and facts.table_id not in self._ratings_asked:
                self._ratings_asked.add(facts.table_id)  # its transcript is whole on disk
                self.load_ratings(facts.table_id)
            self._arrived = facts
            runtime = self.runtime
            if runtime is not None and runtime.hint and self.ui.message == runtime.hint:
                self.say_table_hint()  # the table's hint still shown: as it reads now
            arrival = modes.arrive(self.ui, facts, kind=self.kind)
            self.ui.seen_results, self.ui.holder = arrival.seen_results, arrival.holder
            if not arrival.handed_back:
                return

    def facts(self, session: TableSession) -> Snapshot:
        """`session`'s last reading (read by the event step after each change it reports)."""
        return self._facts.get(self.sessions.index(session), _UNREAD)

    def snap(self) -> Snapshot:
        """This event's snapshot of the session the screen shows: made once per event, on
        the first ask, from the last readings and the UI state, which it leaves as they are."""
        if self._snap is None:
            self._snap = self._snapshot_now()
        return self._snap

    def _snapshot_now(self) -> Snapshot:
        session = self.current()
        if session is None or self.runtime is None:
            return Snapshot()
        facts = self.facts(session)
        now = asyncio.get_running_loop().time()
        hide = self.kind == modes.PASS_AND_PLAY and self.session_for(self.ui.holder) is None
        cpu_levels, fill_levels = self.runtime.cpu_plan()
        return project(
            replace(
                facts,
                hosting=self.runtime.kind == "host",
                cpu_levels=cpu_levels,
                fill_levels=fill_levels,
            ),
            now=now,
            mine=self.seats(),
            table_link=self.runtime.link_state(),
            sent=self.ui.sent.get(facts.me) if facts.me is not None else None,
            hide_hand=hide,
            next_round_in=self.next_round_in(facts, now),
            ratings=self.ui.ratings,
        )

    def next_round_in(self, snap: Snapshot, now: float) -> float | None:
        """Seconds until this client starts the next round by itself, if one of its seats
        is the starter (see clock.auto_next_round)."""
        view = snap.view
        if view is None or view.phase != Phase.ROUND_OVER or view.next_starter not in self.seats():
            return None
        since = self.ui.round_over_at.get((view.next_starter, view.round))
        if since is None:
            return self.ui.auto_next_round
        return self.ui.auto_next_round - (now - since)

    # ---- modes -----------------------------------------------------------------------------

    def mode(self) -> str:
        return modes.screen_mode(self.ui, self.snap(), kind=self.kind)

    def pass_to(self, snap: Snapshot) -> int | None:
        """Pass-and-play: the person who must take the device before their turn shows."""
        return modes.pass_to(self.ui, snap, kind=self.kind)

    def typing(self) -> bool:
        """Whether letters go into a text field rather than acting as commands."""
        return modes.typing(self.ui, self.mode())

    def my_turn(self) -> bool:
        snap = self.snap()
        return (
            snap.view is not None
            and snap.view.my_turn
            and snap.me is not None
            and snap.me not in snap.absent  # a CPU or the host plays it until the next round
            and snap.link not in ENDED_LINKS
        )

    # ---- acting ----------------------------------------------------------------------------

    def link_of(self, session: TableSession) -> str:
        """How `session`'s link to the table reads now (ui.snapshot.link_word)."""
        table = self.runtime.link_state() if self.runtime is not None else LINK_OPEN
        return link_word(self.facts(session), table)

    def _unreachable(self, session: TableSession) -> str | None:
        """Why no move can be made for `session` now, its link being down (None: it is up).
        A move made then would wait for a connection that may never come ("pending" for
        ever), signed on a table that may have moved on meanwhile: it is not made."""
        link = self.link_of(session)
        if link in ENDED_LINKS:
            return ENDED_NOT_SENT
        return RECONNECTING_NOT_SENT if link != "connected" else None

    def act(self, session: TableSession | None, action: Action, what: str) -> bool:
        if session is None or self.facts(session).phase == "connecting":
            self.say("not connected to the table yet", error=True)
            return False
        unreachable = self._unreachable(session)
        if unreachable is not None:
            self.say(unreachable, error=True)
            return False
        if self.facts(session).pending & set(USER_KINDS):
            self.say("still waiting for the host to confirm your last move", error=True)
            return False
        seat = self.facts(session).me
        try:
            session.act(action)
        except Exception as err:  # a state the session did not expect: say so, keep going
            log.exception("act failed")
            self.say(f"could not send: {safe_text(err, 120)}", error=True)
            return False
        if seat is not None:
            self.ui.sent[seat] = what
        self.ui.entry = EntryState(show_odds=self.ui.entry.show_odds)
        self.ui.message = ""
        self.refresh()
        return True

    def _bidding_view(self) -> tuple[SeatView, int] | None:
        """The view and seat of ours whose turn it is, or None (and the message says so)."""
        snap = self.snap()
        view = snap.view
        if snap.link in ENDED_LINKS:  # no turn to take: the screen offers no bid
            self.say(ENDED_NOT_SENT, error=True)
            return None
        if snap.phase == "lobby":
            # Before the start there are no turns: say who starts the game instead.
            who = "press s to start it" if snap.hosting else "the host starts it"
            self.say(f"the game has not started: {who}", error=True)
            return None
        if (
            snap.me is not None
            and snap.me in snap.absent
            and view is not None
            and view.dice[snap.me]
        ):
            # A move pressed while the host plays our seat (out of time, or back after a drop)
            # says our player is here: a seat still connected is taken back this way.
            session = self.current()
            try:
                if session is not None:
                    session.take_seat_back()
            except Exception as err:  # a state the session did not expect: say so, keep going
                log.exception("take_seat_back failed")
                self.say(f"could not take the seat back: {safe_text(err, 120)}", error=True)
                return None
            self.say("your seat returns at the next round: until then it is played for you")
            return None
        if view is None or view.seat is None or not view.my_turn or snap.me is None:
            self.say("it is not your turn", error=True)
            return None
        return view, view.seat

    def bid(self) -> None:
        self.sync_entry()
        turn = self._bidding_view()
        if turn is None:
            return
        view, seat = turn
        entry = self.ui.entry
        bid: Bid | None
        if entry.typed.strip():
            try:
                bid = parse_bid(entry.typed)
            except BidSyntaxError as err:
                self.say(str(err), error=True)
                return
            if not view.is_legal_bid(bid):
                self.say(f"{bid_words(bid)} is not a legal bid now", error=True)
                return
        else:
            bid = choices_of(view).clamp(entry.cursor) if entry.cursor else start_cursor(view)
            if bid is None:
                self.say("no raise is possible: call Liar (l) or Exact (x)", error=True)
                return
        self.act(self.current(), PlaceBid(seat, bid), bid_words(bid))

    def start_game(self) -> None:
        """The waiting screen's s: the host starts the game with the seats taken."""
        start = getattr(self.runtime, "start_game", None)
        if start is None or self.snap().phase != "lobby":
            return
        try:
            start()
        except P2PDiceError as err:
            self.say(f"cannot start yet: {err.detail}", error=True)

    def liar(self) -> None:
        turn = self._bidding_view()
        if turn is None:
            return
        view, seat = turn
        if view.can_challenge:
            self.act(self.current(), Challenge(seat), "Liar!")
        else:
            self.say("there is no bid to call yet: open the round with a bid", error=True)

    def exact(self) -> None:
        turn = self._bidding_view()
        if turn is None:
            return
        view, seat = turn
        if view.can_exact:
            self.act(self.current(), ExactCall(seat), "Exact!")
        else:
            self.say(
                "this table does not allow exact calls"
                if not view.rules.exact_call
                else "nothing to call yet",
                error=True,
            )

    def undo(self, seat: int | None = None) -> None:
        snap = self.snap()
        seat = snap.me if seat is None else seat
        if seat is None or not can_undo(replace(snap, me=seat, pending_action=None)):
            rules = snap.rules
            why = (
                "this table does not allow undo"
                if rules and not rules.undo
                else "nothing of yours to take back"
            )
            self.say(why, error=True)
            return
        if self.act(self.session_for(seat), Undo(seat), "undo"):
            if self.kind == "pass_and_play":
                # The next player may be the one who pressed u: the hand that bid comes back
                # only behind its own pass screen.
                self.ui.holder = None
            self.say("bid taken back: it is your turn again")

    def step(self, quantity: int = 0, face: int = 0) -> None:
        self.sync_entry()
        turn = self._bidding_view()
        if turn is None:
            return
        view, _ = turn
        choices = choices_of(view)
        cursor = choices.clamp(self.ui.entry.cursor) if self.ui.entry.cursor else start_cursor(view)
        if quantity:
            cursor = choices.step_quantity(cursor, quantity)
        if face:
            cursor = choices.step_face(cursor, face)
        self.ui.entry = replace(self.ui.entry, cursor=cursor, typed="")

    def type_char(self, ch: str) -> None:
        self.sync_entry()
        mode = self.mode()
        if mode == "prompt" and self.ui.prompt is not None:
            if len(self.ui.prompt.text) < 200 and ch.isprintable():
                self.ui.prompt.text += ch
        elif mode == "form" and self.ui.form is not None:
            self.ui.form.type_char(ch)
        elif (
            mode == "table"
            and self.my_turn()
            and (ch.isalnum() or ch in " '")
            and len(self.ui.entry.typed) < 40
        ):
            self.ui.entry = replace(self.ui.entry, typed=self.ui.entry.typed + ch)

    def backspace(self) -> None:
        mode = self.mode()
        if mode == "prompt" and self.ui.prompt is not None:
            self.ui.prompt.text = self.ui.prompt.text[:-1]
        elif mode == "form" and self.ui.form is not None:
            self.ui.form.backspace()
        elif mode == "table":
            self.ui.entry = replace(self.ui.entry, typed=self.ui.entry.typed[:-1])

    def start_next_round(self, snap: Snapshot) -> bool:
        view = snap.view
        if view is None or view.phase != Phase.ROUND_OVER or view.next_starter not in self.seats():
            return False
        seat = view.next_starter
        return self.act(self.session_for(seat), StartNextRound(seat), "start next round")

    def enter(self) -> None:
        mode = self.mode()
        ui = self.ui
        if mode == "prompt" and ui.prompt is not None:
            prompt, ui.prompt = ui.prompt, None
            result = prompt.on_done(prompt.text)
            if asyncio.iscoroutine(result):
                self.spawn(result, "that step")
        elif mode == "help":
            ui.help = False
        elif mode in ("lobby", "form", "confirm") and self.lobby is not None:
            self.lobby.enter(mode)
        elif mode == "pass":
            # Enter also places a bid and starts a round: pressed twice or held, it must
            # not show the next hand to the person still holding the device.
            self.say(f"{self._pass_name()}: press Space to take the device (not Enter)")
        elif mode == "reveal":
            snap = self.snap()
            view = snap.view
            assert view is not None
            self.start_next_round(snap)
            ui.seen_results = len(view.results)
        elif mode == "review":
            ui.review = None
        elif mode == "coach":
            ui.coach = None
        elif mode == "table" and not self.start_next_round(self.snap()):
            self.bid()  # Enter at a finished round starts the next one when it is ours

    def take_device(self) -> None:
        """Space on a pass screen: the person named takes the device and their dice show.
        Only after a pause with no key, so that no key meant for the table before it lifts
        it by accident."""
        if self.mode() != "pass":
            return
        if self.key_gap < PASS_PAUSE:
            self.say(
                f"{self._pass_name()}: press Space once you hold the device (a key pressed "
                "right after another does not count here)"
            )
            return
        ui = self.ui
        ui.holder = self.pass_to(self.snap())
        ui.entry, ui.entry_key = EntryState(show_odds=ui.entry.show_odds), None

    def _pass_name(self) -> str:
        seat = self.pass_to(self.snap())
        return safe_text(self.snap().names[seat], 24) if seat is not None else "the next player"

    def escape(self) -> None:
        mode = self.mode()
        ui = self.ui
        if mode == "prompt":
            ui.prompt = None
        elif mode == "quit":
            ui.quitting = False
        elif mode == "help":
            ui.help = False
        elif mode in ("form", "confirm", "lobby") and self.lobby is not None:
            self.lobby.escape(mode)
        elif mode == "review":
            ui.review = None
        elif mode == "coach":
            ui.coach = None
        elif mode == "table":
            ui.entry = replace(ui.entry, typed="")

    def switch_seat(self) -> None:
        if not self.snap().switches_seats or len(self.sessions) < 2:
            # True wherever Tab is pressed: a practice table of one seat is one too.
            # (one line of 80 columns each)
            self.say(
                "the pass screen hands the device on: Tab only works in practice --humans 2"
                if self.kind == modes.PASS_AND_PLAY
                else "you play one seat here: Tab switches seats only in practice --humans 2",
                error=True,
            )
            return
        self.ui.current = (self.ui.current + 1) % len(self.sessions)
        self.ui.entry, self.ui.entry_key = EntryState(show_odds=self.ui.entry.show_odds), None
        session = self.current()
        facts = self.facts(session) if session is not None else _UNREAD
        if facts.me is not None:
            self.say(f"now playing seat {facts.me} ({safe_text(facts.my_name, 24)})")

    def toggle_odds(self) -> None:
        self.ui.entry = replace(self.ui.entry, show_odds=not self.ui.entry.show_odds)
        self.say(
            "odds hint on: binomial chance over the dice you cannot see"
            if self.ui.entry.show_odds
            else "odds hint off"
        )

    def review(self, delta: int = 0) -> None:
        view = self.snap().view
        if view is None or not view.results:
            self.say("no round has finished yet", error=True)
            return
        last = len(view.results) - 1
        ui = self.ui
        if ui.review is None:
            ui.review = last if delta == 0 else max(0, last + min(delta, 0))
            ui.seen_results = max(ui.seen_results or 0, len(view.results))
        else:
            ui.review = max(0, min(ui.review + delta, last))

    def rematch(self) -> None:
        """Game over: the same table again (same settings, same people, fresh keys and seeds)."""
        runtime = self.runtime
        if runtime is None or runtime.rematch is None or self.lobby is None:
            self.say("a new game is started from the lobby for this table", error=True)
            return
        again = runtime.rematch
        self.set_runtime(None)

        async def fresh() -> OpenTable:
            await runtime.close()  # first: a host gives its port back before opening again
            return await again()

        self.lobby.open_table(fresh, "starting a new game")

    def ask_quit(self) -> None:
        runtime = self.runtime
        if self.ui.screen != "table" or runtime is None:
            self.leave()
            return
        snap = self.snap()
        if self.players_behind():
            self.ui.quitting = True  # leaving closes the table on them: ask first
        elif snap.phase == "over" or snap.fatal is not None or runtime.outcome is not None:
            self.leave()
        else:
            self.ui.quitting = True

    def finished(self) -> bool:
        """The open table's game is over (or its link ended): nothing is left to pause."""
        runtime = self.runtime
        return runtime is not None and (self.snap().phase == "over" or runtime.outcome is not None)

    def players_behind(self) -> tuple[str, ...]:
        """At a finished table we host: the players on other machines still on their way
        back for its end, whom leaving would cut off from it."""
        runtime = self.runtime
        if runtime is None or not self.hosting:
            return ()
        try:
            return runtime.players_behind()
        except Exception:  # a screen is drawn from this: never let it take the app down
            if not self._behind_failed:  # once: it is asked at every redraw
                self._behind_failed = True
                log.exception("players_behind failed")
            return ()

    @property
    def hosting(self) -> bool:
        """We host the open table for players on other machines: leaving it pauses or ends
        their game, which `q` asks about."""
        return self.kind == "host"

    @property
    def local(self) -> bool:
        """The open table is on this machine only (practice, pass-and-play): nobody can
        resume its game, so leaving it in any way ends the game for the record."""
        return self.kind in LOCAL_KINDS

    def leave_at_once(self, code: int) -> None:
        """Close the screen without asking (Ctrl-C, a closed terminal): `ui.app.run_app`
        then closes the open table, pausing a hosted one and ending a local one's game."""
        self.ui.quitting = False
        self.exit_app(code)

    def leave(self, *, end_game: bool = True) -> None:
        """Leave the table; a table we host is ended for everyone, or with `end_game` False
        paused (its players are told, and wait for it to be resumed)."""
        ui = self.ui
        ui.quitting = False
        runtime = ui.runtime
        if runtime is not None:
            if not ui.from_lobby and any(self.facts(s).fatal is not None for s in self.sessions):
                ui.exit_code = 2  # refused for good (a password, a full table): say so to the shell
            paused = runtime.kind == "host" and not end_game
            table_id = next((self.facts(s).table_id for s in self.sessions), "")
            # The message line still says where others join or watch a table that is gone.
            hinted = ui.message != "" and ui.message in (runtime.hint, runtime.started_hint)
            ended_now = runtime.kind == "host" and end_game and not self.finished()
            self.set_runtime(None)
            self.spawn(runtime.close(end_game=end_game), "closing the table")
            if ended_now:
                self.say("you ended the game: your table is closed")
                if not ui.from_lobby:  # the screen closes: say it where it stays
                    ui.farewell = "you ended the game: your table is closed"
            elif hinted:
                self.say("")
            if paused:
                self.say("table paused: press r in the lobby (or p2pdice host --resume) to resume")
                if not ui.from_lobby:  # the screen closes: say it where it stays
                    ui.farewell = (
                        f"table paused: to resume it, open p2pdice{ui.resume_flags} and press r"
                        + (
                            f" (or p2pdice host --resume {table_id}{ui.resume_flags})"
                            if table_id
                            else ""
                        )
                    )
        if ui.from_lobby and self.lobby is not None and ui.screen == "table":
            ui.screen = "lobby"
            return
        if ui.screen in ("form", "confirm", "starting") and ui.from_lobby:
            ui.screen = "lobby"
            return
        self.exit_app(ui.exit_code)

    def answer_quit(self, key: str) -> None:
        """The answer to "leave the table?": y leaves; at a table we host, p pauses it and e
        ends it (y is not an answer there: which of the two it meant is the question), except
        once its game is over, when only leaving is left to ask about."""
        if not self.hosting:
            if key == "y":
                self.leave()
            return
        if self.finished():
            if key == "y":
                self.leave()
            else:  # the question may have changed under a key meant for the one before
                self.say("the game is over: y leaves, n stays", error=True)
            return
        if key == "p":
            self.leave(end_game=False)
        elif key == "e":
            self.leave(end_game=True)
        else:
            self.say("p pauses the table, e ends the game for everyone, n stays", error=True)

    # ---- the clock ---------------------------------------------------------------------------

    def tick(self) -> None:
        """Called a few times a second: messages, seat following, timer moves."""
        from .clock import tick

        self.settle()
        self._snap = None  # time moved: timers and countdowns are fitted to it
        try:
            tick(self)
            self.sync_entry()
        except Exception as err:
            log.exception("tick failed")
            self.say(f"internal error: {safe_text(err, 160)}", error=True)

    def sync_entry(self) -> None:
        """A new turn, bid or seat starts a fresh entry (before any key acts on the old one)."""
        snap = self.snap()
        view = snap.view
        key = (snap.me, view.round, len(view.bids), str(view.phase)) if view else None
        if key != self.ui.entry_key:
            self.ui.entry_key = key
            self.ui.entry = EntryState(show_odds=self.ui.entry.show_odds)
