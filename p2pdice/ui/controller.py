"""What each key does at a table, and which screen the table shows: one object over UiState.

The controller reads the sessions (through `snapshot`), decides the mode (table, pass
screen, reveal, review, game over...) and turns intents (bid, Liar, Exact, undo, start the
next round, switch seat) into actions on the right session. It never draws: the
`frame` module asks the pure view model and `screens` for fragments. Key handlers and the
ticker catch every error and show it on the message line, so an unexpected state never
takes the app down.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable, Coroutine
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..core.describe import bid_words
from ..core.game import Action, Challenge, ExactCall, Phase, PlaceBid, StartNextRound, Undo
from ..net.session import ClientSession
from .bidentry import BidSyntaxError, parse_bid
from .snapshot import snapshot
from .state import UiState
from .text import safe_text
from .viewmodel import USER_KINDS, EntryState, Snapshot, can_undo, choices_of, start_cursor

if TYPE_CHECKING:  # the runtime pulls in aiohttp and zeroconf: loaded after the first frame
    from ..cli.runtime import TableRuntime

log = logging.getLogger("p2pdice.ui")


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
        self.lobby: Any = None  #: the LobbyActions when the lobby is in use

    # ---- background work -------------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, Any], what: str = "that") -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(self._guard(coro, what))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _guard(self, coro: Coroutine[Any, Any, Any], what: str) -> Any:
        try:
            return await coro
        except asyncio.CancelledError:
            raise
        except Exception as err:
            log.exception("%s failed", what)
            self.say(f"{what} failed: {safe_text(err, 200)}", error=True)
            return None
        finally:
            self.invalidate()

    def say(self, text: str, *, error: bool = False) -> None:
        self.ui.message = text
        self.ui.message_style = "class:error" if error else "class:message"
        self.invalidate()

    # ---- sessions --------------------------------------------------------------------------

    @property
    def runtime(self) -> TableRuntime | None:
        return self.ui.runtime

    @property
    def sessions(self) -> list[ClientSession]:
        return self.runtime.sessions if self.runtime is not None else []

    @property
    def kind(self) -> str:
        return self.runtime.kind if self.runtime is not None else ""

    def seats(self) -> tuple[int, ...]:
        return tuple(s.seat for s in self.sessions if s.seat is not None and s.mode != "spectate")

    def session_for(self, seat: int | None) -> ClientSession | None:
        for session in self.sessions:
            if seat is not None and session.seat == seat:
                return session
        return None

    def current(self) -> ClientSession | None:
        sessions = self.sessions
        if not sessions:
            return None
        if self.kind == "pass_and_play":
            return self.session_for(self.ui.holder) or sessions[0]
        return sessions[self.ui.current % len(sessions)]

    def set_runtime(self, runtime: TableRuntime | None) -> None:
        ui = self.ui
        ui.runtime, ui.current, ui.holder, ui.review, ui.seen_results = runtime, 0, None, None, None
        ui.entry, ui.entry_key, ui.sent = EntryState(), None, {}
        ui.errors_seen, ui.auto_moved, ui.followed = {}, set(), None
        ui.help = ui.quitting = False
        for session in self.sessions:
            session.on_update = self.invalidate
        ui.screen = "table"

    def snap(self) -> Snapshot:
        session = self.current()
        if session is None or self.runtime is None:
            return Snapshot()
        hide = self.kind == "pass_and_play" and self.session_for(self.ui.holder) is None
        snap = snapshot(
            session,
            now=asyncio.get_running_loop().time(),
            mine=self.seats(),
            pending_action=self.ui.sent.get(session.seat) if session.seat is not None else None,
            link=self.runtime.link_state(session),
            hide_hand=hide,
        )
        snap = replace(snap, next_round_in=self.next_round_in(snap))
        return replace(snap, me=None) if hide else snap

    def next_round_in(self, snap: Snapshot) -> float | None:
        """Seconds until this client starts the next round by itself, if one of its seats
        is the starter (see clock.auto_next_round)."""
        view = snap.view
        if view is None or view.phase != Phase.ROUND_OVER or view.next_starter not in self.seats():
            return None
        since = self.ui.round_over_at.get((view.next_starter, view.round))
        if since is None:
            return self.ui.auto_next_round
        return self.ui.auto_next_round - (asyncio.get_running_loop().time() - since)

    # ---- modes -----------------------------------------------------------------------------

    def mode(self) -> str:
        ui = self.ui
        if ui.quitting:
            return "quit"
        if ui.too_small:
            return "small"  # nothing acts unseen: a bid placed on a screen one cannot read
        if ui.prompt is not None:
            return "prompt"
        if ui.help:
            return "help"
        if ui.screen != "table":
            return ui.screen
        return self.table_mode(self.snap())

    def table_mode(self, snap: Snapshot) -> str:
        ui = self.ui
        view = snap.view
        if view is None:
            return "over" if snap.phase == "over" else "table"
        results = len(view.results)
        if ui.seen_results is None:
            ui.seen_results = results - (1 if view.phase == Phase.ROUND_OVER else 0)
        if ui.review is not None and results:
            return "review"
        if results > ui.seen_results:
            if self.kind == "pass_and_play":
                # Everyone looks at a reveal together: whoever plays next takes the device
                # through a pass screen, even the one who held it before.
                ui.holder = None
            return "reveal"
        if snap.phase == "over" or view.phase == Phase.GAME_OVER:
            return "over"
        if self.pass_to(snap) is not None:
            return "pass"
        if view.phase == Phase.SHOWDOWN:
            return "live"
        return "table"

    def pass_to(self, snap: Snapshot) -> int | None:
        """Pass-and-play: the person who must take the device before their turn shows."""
        view = snap.view
        if self.kind != "pass_and_play" or view is None or view.phase != Phase.BIDDING:
            return None
        if view.turn in self.seats() and view.turn != self.ui.holder:
            return view.turn
        return None

    def typing(self) -> bool:
        """Whether letters go into a text field rather than acting as commands."""
        mode = self.mode()
        if mode == "prompt":
            return True
        if mode == "form":
            return self.ui.form is not None and self.ui.form.current.text
        return mode == "table" and bool(self.ui.entry.typed)

    def my_turn(self) -> bool:
        snap = self.snap()
        return snap.view is not None and snap.view.my_turn and snap.me is not None

    # ---- acting ----------------------------------------------------------------------------

    def act(self, session: ClientSession | None, action: Action, what: str) -> bool:
        if session is None or session.peer is None or session.peer.state is None:
            self.say("not connected to the table yet", error=True)
            return False
        if set(session.pending_kinds()) & set(USER_KINDS):
            self.say("still waiting for the host to confirm your last move", error=True)
            return False
        try:
            session.act(action)
        except Exception as err:  # a state the session did not expect: say so, keep going
            log.exception("act failed")
            self.say(f"could not send: {safe_text(err, 120)}", error=True)
            return False
        if session.seat is not None:
            self.ui.sent[session.seat] = what
        self.ui.entry = EntryState(show_odds=self.ui.entry.show_odds)
        self.ui.message = ""
        self.invalidate()
        return True

    def _bidding_view(self):
        snap = self.snap()
        view = snap.view
        if view is None or not view.my_turn or snap.me is None:
            self.say("it is not your turn", error=True)
            return None
        return view

    def bid(self) -> None:
        self.sync_entry()
        view = self._bidding_view()
        if view is None:
            return
        entry = self.ui.entry
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
        self.act(self.current(), PlaceBid(view.seat, bid), bid_words(bid))

    def liar(self) -> None:
        view = self._bidding_view()
        if view is not None and view.can_challenge:
            self.act(self.current(), Challenge(view.seat), "Liar!")
        elif view is not None:
            self.say("there is no bid to call yet: open the round with a bid", error=True)

    def exact(self) -> None:
        view = self._bidding_view()
        if view is not None and view.can_exact:
            self.act(self.current(), ExactCall(view.seat), "Exact!")
        elif view is not None:
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
        view = self._bidding_view()
        if view is None:
            return
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
            seat = self.pass_to(self.snap())
            ui.holder = seat
            ui.entry, ui.entry_key = EntryState(show_odds=ui.entry.show_odds), None
        elif mode == "reveal":
            snap = self.snap()
            view = snap.view
            assert view is not None
            self.start_next_round(snap)
            ui.seen_results = len(view.results)
        elif mode == "review":
            ui.review = None
        elif mode == "table" and not self.start_next_round(self.snap()):
            self.bid()  # Enter at a finished round starts the next one when it is ours

    def escape(self) -> None:
        mode = self.mode()
        ui = self.ui
        if mode == "prompt":
            ui.prompt = None
        elif mode == "quit":
            ui.quitting = False
        elif mode == "help":
            ui.help = False
        elif mode in ("form", "confirm") and self.lobby is not None:
            self.lobby.escape(mode)
        elif mode == "review":
            ui.review = None
        elif mode == "table":
            ui.entry = replace(ui.entry, typed="")

    def switch_seat(self) -> None:
        if self.kind != "practice" or len(self.sessions) < 2:
            self.say("only practice tables let you switch seats", error=True)
            return
        self.ui.current = (self.ui.current + 1) % len(self.sessions)
        self.ui.entry, self.ui.entry_key = EntryState(show_odds=self.ui.entry.show_odds), None
        session = self.current()
        if session is not None and session.seat is not None:
            self.say(f"now playing seat {session.seat} ({safe_text(session.name, 24)})")

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

        async def fresh() -> TableRuntime:
            await runtime.close()  # first: a host gives its port back before opening again
            return await again()

        self.lobby.open_table(fresh, "starting a new game")

    def ask_quit(self) -> None:
        runtime = self.runtime
        if self.ui.screen != "table" or runtime is None:
            self.leave()
            return
        snap = self.snap()
        if snap.phase == "over" or snap.fatal is not None or runtime.outcome is not None:
            self.leave()
        else:
            self.ui.quitting = True

    def leave(self) -> None:
        ui = self.ui
        ui.quitting = False
        runtime = ui.runtime
        if runtime is not None:
            if not ui.from_lobby and any(s.fatal is not None for s in runtime.sessions):
                ui.exit_code = 2  # refused for good (a password, a full table): say so to the shell
            self.set_runtime(None)
            self.spawn(runtime.close(), "closing the table")
        if ui.from_lobby and self.lobby is not None and ui.screen == "table":
            ui.screen = "lobby"
            return
        if ui.screen in ("form", "confirm", "starting") and ui.from_lobby:
            ui.screen = "lobby"
            return
        self.exit_app(ui.exit_code)

    # ---- the clock ---------------------------------------------------------------------------

    def tick(self) -> None:
        """Called a few times a second: messages, seat following, timer moves."""
        from .clock import tick

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
