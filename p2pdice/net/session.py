"""The client adapter: one identity at one table, over any transport.

A ClientSession is a pump around the sans-I/O `core.client.ClientConnection`, which makes
every protocol decision: it decodes frames and feeds them in, and executes the intents that
come back (queue a frame, write a record, arm a timer, stretch a password off the loop). It
is transport-agnostic: `on_frame(text)` in, `outgoing` frames out, so a WebSocket and the
host's in-process link both drive the same code. Bots play through `bots.driver.BotDriver`;
the terminal UI reads `view()` and calls `act()`.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots.driver import BotDriver, Play, StopThinking, Think
from ..bots.registry import Bot
from ..core.client import ClientConnection
from ..core.client_check import FinalCheck
from ..core.client_intents import (
    AppendEntry,
    CancelTimer,
    DrawSecrets,
    ForgetSeat,
    Intent,
    OpenStore,
    Progressed,
    RecordRefused,
    RecordSent,
    SavedSeat,
    SaveSeat,
    SaveSecrets,
    SendFrame,
    SendMessage,
    ShowStatus,
    StartTimer,
    Stopped,
    StretchPassword,
    Timer,
)
from ..core.errors import Reason, RemoteError, UserError
from ..core.game import Action
from ..core.pake import password_verifier
from ..core.peer import Alarm, Peer, Secrets
from ..core.signing import SigningKey
from ..core.view import SeatView
from ..store import ClientStore, SeatRecord, ends_a_round, new_secrets
from .frames import MAX_FRAME, TO_CLIENT, decode_frame

_ENTRY_HEAD = '{"entry":'
_ENTRY_TAIL = ',"type":"entry"}'

log = logging.getLogger("p2pdice.client")


#: The intents that write this seat's records.
Write = SaveSecrets | RecordSent | RecordRefused | AppendEntry | SaveSeat | ForgetSeat
_WRITES = (SaveSecrets, RecordSent, RecordRefused, AppendEntry, SaveSeat, ForgetSeat)


def _what(write: Write) -> str:
    """What a failed write was saving, for the error that stops the seat."""
    if isinstance(write, SaveSecrets):
        return f"the secrets of round {write.round}"
    if isinstance(write, RecordSent):
        return "a sent message"
    if isinstance(write, RecordRefused):
        return "a refusal"
    if isinstance(write, AppendEntry):
        return "the transcript"
    return "its seat"


@dataclass(slots=True)
class Status:
    phase: str = ""
    connected: list[int] = field(default_factory=list)
    turn: int | None = None
    deadline: float | None = None  #: loop time at which the turn timer runs out


class ClientSession:
    def __init__(
        self,
        *,
        key: SigningKey,
        name: str,
        home: Path | None,
        mode: str = "play",  # "play" or "spectate"
        password: str | None = None,
        password_verifier: bytes | None = None,
        cpu: bool = False,
        host_run: bool = False,
        bot: Bot | None = None,
        rng: random.Random | None = None,
        expect_table: bytes | None = None,
        expect_host: bytes | None = None,
        expect_host_prefix: str | None = None,
        secrets_source: Callable[[], Secrets] = new_secrets,
        seat_hint: int | None = None,
        think: float = 0.0,
    ) -> None:
        self.core = ClientConnection(
            key=key,
            name=name,
            mode=mode,
            password=password,
            password_verifier=password_verifier,
            cpu=cpu,
            host_run=host_run,
            expect_table=expect_table,
            expect_host=expect_host,
            expect_host_prefix=expect_host_prefix,
            seat_hint=seat_hint,
        )
        self.home = home
        self.bot = bot
        self.rng = rng or random.Random()
        #: Seconds a bot waits before it moves (see bots.driver.BotDriver). 0: at once.
        self.think = think
        self.driver = BotDriver(bot, self.rng, think=think) if bot is not None else None
        #: Loop time of the last sign of a working table (a welcome, a verified entry).
        self.last_progress = 0.0
        self.secrets_source = secrets_source
        self.store: ClientStore | None = None
        self.status = Status()
        #: Exceptions that escaped the core or this pump: bugs, never a hostile host's doing
        #: (the core records those in `errors`). Logged with their traceback, kept for tests.
        self.internal_errors: list[str] = []
        self.changed = asyncio.Event()
        self.outgoing: asyncio.Queue[str] = asyncio.Queue()
        self.on_update: Callable[[], None] | None = None
        #: Called once when this session stops for a local failure (its records cannot be
        #: written): the transport hangs up (a host-run seat's link closes).
        self.on_fatal: Callable[[], None] | None = None
        self.closed = False  #: after close(): the transcript and sent logs are shut
        self._timers: dict[Timer | str, asyncio.TimerHandle] = {}
        self._stretching: asyncio.Task[None] | None = None

    # ---- facts for the UI and bots (the core's) --------------------------------------------

    @property
    def peer(self) -> Peer | None:
        return self.core.peer

    @property
    def key(self) -> SigningKey:
        return self.core.key

    @property
    def mode(self) -> str:
        return self.core.mode

    @property
    def password(self) -> str | None:
        return self.core.password

    @property
    def cpu(self) -> bool:
        return self.core.cpu

    @property
    def host_run(self) -> bool:
        return self.core.host_run

    @property
    def name(self) -> str:
        return self.core.name

    @property
    def password_verifier(self) -> bytes | None:
        return self.core.password_verifier

    @property
    def expect_table(self) -> bytes | None:
        return self.core.expect_table

    @property
    def expect_host(self) -> bytes | None:
        return self.core.expect_host

    @property
    def expect_host_prefix(self) -> str | None:
        return self.core.expect_host_prefix

    @property
    def seat_hint(self) -> int | None:
        return self.core.seat_hint

    @property
    def errors(self) -> list[tuple[Reason, str]]:
        return self.core.errors

    @property
    def fatal(self) -> tuple[Reason, str] | None:
        return self.core.fatal

    @fatal.setter
    def fatal(self, value: tuple[Reason, str] | None) -> None:
        """The transport may pass over a refusal that says nothing about the table (an
        impostor at an advertised address) and try the address it was given."""
        self.core.fatal = value

    @property
    def connected(self) -> bool:
        return self.core.connected

    @property
    def reconnect_requested(self) -> bool:
        return self.core.reconnect_requested

    @property
    def stopped(self) -> bool:
        return self.core.stopped

    @property
    def table_id(self) -> bytes | None:
        return self.core.table_id

    @property
    def seat(self) -> int | None:
        return self.core.seat

    @property
    def alarms(self) -> list[Alarm]:
        return self.core.alarms

    @property
    def finished(self) -> bool:
        return self.core.finished

    def view(self) -> SeatView | None:
        return self.core.view()

    @property
    def names(self) -> list[str]:
        """Display names by seat (roster after the start, joins before)."""
        return self.core.names

    @property
    def comparison_code(self) -> str | None:
        return self.core.comparison_code

    def pending_kinds(self) -> set[str]:
        return self.core.pending_kinds()

    @property
    def final_check(self) -> FinalCheck | None:
        """The end-of-game self-check (None until the game is over): see core.client_check."""
        return self.core.final_check

    def self_check(self, *, complete: bool) -> FinalCheck | None:
        """The same check on a game that stopped early (`complete=False`: as partial)."""
        return self.core.self_check(complete=complete)

    # ---- frames in -------------------------------------------------------------------------

    def on_frame(self, data: str | bytes) -> None:
        if self.stopped or self.closed:
            return  # a local failure, or frames a link still held when it closed
        self._guarded("a frame from the host", self._take_frame, data)
        self._notify()

    def _take_frame(self, data: str | bytes) -> None:
        now = time.time()
        # The hot path: an entry frame is the entry's canonical line between a fixed head and
        # tail, so the line is sliced out instead of decoded and encoded again. Any frame that
        # is not exactly that shape takes the general path below.
        if (
            isinstance(data, str)
            and self.peer is not None
            and len(data) <= MAX_FRAME
            and data.startswith(_ENTRY_HEAD)
            and data.endswith(_ENTRY_TAIL)
        ):
            line = data[len(_ENTRY_HEAD) : -len(_ENTRY_TAIL)].encode("utf-8")
            self._run(self.core.receive_entry_line(line, now))
            return
        try:
            frame = decode_frame(data, TO_CLIENT)
        except RemoteError as err:
            self._run(self.core.unreadable_frame(data, err.reason, err.detail))
            return
        self._run(self.core.receive_frame(frame, now))

    def _guarded(self, what: str, step: Callable[..., None], *args: Any) -> None:
        """Run one step; an exception here is a bug (hostile input is the core's to refuse):
        it must not take the event loop down, so it is logged with its traceback and kept
        in `internal_errors`, where tests look for it."""
        try:
            step(*args)
        except Exception as err:
            log.exception("handling %s failed", what)
            self.internal_errors.append(f"{what}: {type(err).__name__}: {err}")

    # ---- intents ---------------------------------------------------------------------------

    def _run(self, intents: list[Intent]) -> None:
        for intent in intents:
            if self.stopped:
                return  # a write failed: nothing after it is stored or sent
            self._execute(intent)
        self._review_bot()

    def _execute(self, intent: Intent) -> None:
        if isinstance(intent, (SendFrame, SendMessage)):
            self._send_frame(intent.text())
        elif isinstance(intent, OpenStore):
            self._open_store(intent.table_id)
        elif isinstance(intent, DrawSecrets):
            drawn = self.secrets_source()
            now = time.time()
            self._run(self.core.provide_secrets(intent.round, intent.attempt, drawn, now))
        elif isinstance(intent, StretchPassword):
            self._stretch(intent)
        elif isinstance(intent, StartTimer):
            self._arm(intent.timer, intent.seconds, self._timer_fired, intent.timer)
        elif isinstance(intent, CancelTimer):
            self._disarm(intent.timer)
        elif isinstance(intent, Progressed):
            self.last_progress = asyncio.get_running_loop().time()
        elif isinstance(intent, ShowStatus):
            loop = asyncio.get_running_loop()
            deadline = None if intent.deadline_in is None else loop.time() + intent.deadline_in
            self.status = Status(intent.phase, list(intent.connected), intent.turn, deadline)
        elif isinstance(intent, Stopped):
            who = "host-run seat" if self.host_run else "seat"
            log.error("%s %s: %s", who, self.name, intent.detail)
            if self.on_fatal is not None:
                self.on_fatal()
        elif isinstance(intent, _WRITES):
            self._write(intent)
        # Fatal, Reconnect and RaiseAlarm need nothing done: the transport reads `fatal` and
        # `reconnect_requested` after each frame, and the front ends read `alarms`.

    def _send_frame(self, frame: str) -> None:
        if not self.stopped:
            self.outgoing.put_nowait(frame)

    def _open_store(self, table: bytes) -> None:
        if self.home is None:
            self._run(self.core.store_opened(None))
            return
        try:
            store = ClientStore(self.home, table)
            record = store.load_seat()
            saved = SavedSeat(
                secrets=store.load_secrets(),
                sent=tuple(store.load_sent()),
                transcript=tuple(store.load_transcript()),
                seat=record.seat if record is not None else None,
                seat_host=record.host if record is not None else None,
            )
        except (OSError, UserError) as err:
            self._run(self.core.store_unavailable(str(err)))
            return
        self.store = store
        self._run(self.core.store_opened(saved))

    def _write(self, intent: Write) -> None:
        """One write to this seat's records, in the order the core asked for them."""
        store = self.store
        if store is None:
            return
        try:
            if isinstance(intent, SaveSecrets):
                store.save_secrets(intent.round, intent.attempt, intent.secrets)
            elif isinstance(intent, RecordSent):
                store.record_sent(dict(intent.message), intent.at_ms)
            elif isinstance(intent, RecordRefused):
                store.record_refused(intent.ref, str(intent.reason), intent.at_ms)
            elif isinstance(intent, AppendEntry):
                store.append_entry(intent.entry.line)
                if ends_a_round(intent.entry):
                    # Once a round, on the loop, measured: an fsync of the ~16 KB a round
                    # appends took 0.3 ms (median), 4 ms (p90) and 15 ms at worst of 30 on
                    # this project's virtual disk while other jobs ran, far under asyncio's
                    # 100 ms slow-callback mark; moving it to a thread would let the next
                    # round's writes race it on the same file.
                    store.sync()
            elif isinstance(intent, SaveSeat):
                store.save_seat(SeatRecord(seat=intent.seat, host=intent.host))
            elif isinstance(intent, ForgetSeat):
                store.forget_seat()
        except (OSError, UserError) as err:
            what = _what(intent)
            self._run_all(self.core.storage_failed(what, str(err)))

    def _stretch(self, ask: StretchPassword) -> None:
        """scrypt (about 0.1 s and 32 MiB) runs in a thread, so the loop keeps serving frames
        meanwhile; entries that arrive are verified while the join waits for its answer."""

        async def stretch() -> None:
            verifier = None
            if ask.password is not None:
                verifier = await asyncio.to_thread(password_verifier, ask.password, ask.table_id)
            entropy = secrets.token_bytes(ask.entropy_bytes)
            if self.stopped or self.closed:
                return
            self._guarded(
                "the password exchange", self._password_ready, ask.attempt, verifier, entropy
            )
            self._notify()

        self._stretching = asyncio.get_running_loop().create_task(stretch(), name="scrypt")

    def _password_ready(self, attempt: int, verifier: bytes | None, entropy: bytes) -> None:
        self._run(self.core.password_ready(attempt, verifier, entropy))

    # ---- timers --------------------------------------------------------------------------

    def _arm(
        self, name: Timer | str, seconds: float, callback: Callable[..., None], *args: Any
    ) -> None:
        self._disarm(name)
        self._timers[name] = asyncio.get_running_loop().call_later(seconds, callback, *args)

    def _disarm(self, name: Timer | str) -> None:
        handle = self._timers.pop(name, None)
        if handle is not None:
            handle.cancel()

    def _timer_fired(self, timer: Timer) -> None:
        self._timers.pop(timer, None)
        self._guarded(f"the {timer} timer", lambda: self._run(self.core.timer_fired(timer)))

    # ---- actions and the bot ---------------------------------------------------------------

    def act(self, action: Action) -> None:
        """A bid, call, undo or start-next-round for our seat (the host checks it)."""
        assert self.peer is not None
        self._run(self.core.act(action, time.time()))
        self._notify()

    def _bot_may_play(self) -> bool:
        return not self.stopped and self.connected and self.core.resumed

    def _review_bot(self) -> None:
        """A bot plays its own seat when it is its move (after its think time, if any)."""
        if self.driver is None:
            return
        step = self.driver.review(self.peer, may_play=self._bot_may_play())
        if isinstance(step, Play):
            self.act(step.action)
        elif isinstance(step, Think):
            self._arm("think", step.seconds, self._think_over)
        elif isinstance(step, StopThinking):
            self._disarm("think")

    def _think_over(self) -> None:
        self._timers.pop("think", None)
        self._guarded("the bot's move", self._play_thought)

    def _play_thought(self) -> None:
        assert self.driver is not None
        play = self.driver.think_over(self.peer, may_play=self._bot_may_play())
        if play is not None:
            self.act(play.action)

    def _stop_thinking(self) -> None:
        if self.driver is not None and self.driver.forget() is not None:
            self._disarm("think")

    def _notify(self) -> None:
        self.changed.set()
        if self.on_update is not None:
            self.on_update()

    # ---- the connection ----------------------------------------------------------------------

    def disconnected(self) -> None:
        self._stop_thinking()
        self._run_all(self.core.connection_lost())
        if self._stretching is not None:
            self._stretching.cancel()
            self._stretching = None
        while not self.outgoing.empty():
            self.outgoing.get_nowait()
        self._notify()

    def _run_all(self, intents: list[Intent]) -> None:
        """Execute every intent, also after a stop (the stop's own, the timers' cancels)."""
        for intent in intents:
            self._execute(intent)

    def close(self) -> None:
        for name in list(self._timers):
            self._disarm(name)
        if self._stretching is not None:
            self._stretching.cancel()
            self._stretching = None
        self.closed = True
        self._stop_thinking()
        if self.store is not None:
            self.store.close()
