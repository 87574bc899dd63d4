"""The client adapter: one identity at one table, over any transport.

A ClientSession is a pump around the sans-I/O `core.client.ClientConnection`, which makes
every protocol decision: it decodes frames and feeds them in, and executes the intents that
come back, in order (queue a frame, write a record, arm a timer, stretch a password off the
loop). It is transport-agnostic: `on_frame(text)` in, `outgoing` frames out, so a WebSocket
and the host's in-process link both drive the same code. Bots play through
`bots.driver.BotDriver`; the terminal UI reads `view()` and calls `act()`.

Nothing here blocks the event loop. The seat's files (opening its records, every write and
fsync, closing them) and the end-of-game check run on the session's own writer thread, one
job at a time in the order the core asked for them; an intent that follows one waits in
`_queue` until it is done, so the commitment after `SaveSecrets` leaves only once the secrets
are on disk. The front end hears of a change (`on_update`) once what it caused is carried out.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import random
import secrets
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from ..bots.driver import BotDriver, Play, StopThinking, Think
from ..bots.registry import Bot
from ..core.client import ClientConnection
from ..core.client_check import FinalCheck
from ..core.client_intents import (
    AppendEntry,
    CancelTimer,
    CheckGame,
    DrawSecrets,
    Fatal,
    ForgetSeat,
    Intent,
    OpenStore,
    Progressed,
    Reconnect,
    RecordDelivery,
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
from ..core.pake import JoinerAnswer, password_verifier
from ..core.peer import Alarm, Peer, Secrets
from ..core.signing import SigningKey
from ..core.verify import Report
from ..core.view import SeatView
from ..store import ClientStore, SeatLock, SeatRecord, new_secrets
from .frames import MAX_FRAME, TO_CLIENT, decode_frame

_ENTRY_HEAD = '{"entry":'
_ENTRY_TAIL = ',"type":"entry"}'

log = logging.getLogger("p2pdice.client")


#: The intents that write this seat's records.
Write = (
    SaveSecrets | RecordSent | RecordRefused | RecordDelivery | AppendEntry | SaveSeat | ForgetSeat
)
_WRITES = (
    SaveSecrets,
    RecordSent,
    RecordRefused,
    RecordDelivery,
    AppendEntry,
    SaveSeat,
    ForgetSeat,
)
#: Intents the pump drops when the connection they were for is lost (as `outgoing` is
#: emptied): its frames and its timers. What was queued to be written is still written.
_OF_THE_CONNECTION = (SendFrame, SendMessage, StartTimer)


def _appends_only(write: Write) -> bool:
    """A write that only appends a line to a log, flushed and not fsynced: a few microseconds
    into the kernel's page cache, so it is done on the loop rather than handed to the writer
    thread (whose round trip costs a hundred microseconds of CPU and, on a busy machine,
    a wake-up before the frame it precedes may leave)."""
    return isinstance(write, (RecordSent, RecordRefused)) or (
        isinstance(write, AppendEntry) and not write.durable
    )


def _what(write: Write) -> str:
    """What a failed write was saving, for the error that stops the seat."""
    if isinstance(write, SaveSecrets):
        return f"the secrets of round {write.round}"
    if isinstance(write, RecordSent):
        return "a sent message"
    if isinstance(write, RecordRefused):
        return "a refusal"
    if isinstance(write, RecordDelivery):
        return "what became of a sent message"
    if isinstance(write, AppendEntry):
        return "the transcript"
    return "its seat"


@dataclass(frozen=True, slots=True)
class _Failed:
    """A job's expected failure (a file it could not read or write), handed to the loop."""

    error: str
    write: Write | None = None  #: the write that failed (a write job)


class _SeatFiles:
    """This seat's records, touched by one job at a time, so the jobs need no lock: open,
    write (in order), close. Jobs run on the session's writer thread, but for appending a
    line (`_appends_only`), which runs on the loop while no job does."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.store: ClientStore | None = None
        self.lock: SeatLock | None = None  #: held from the open to the close

    def open(self, table: bytes) -> SavedSeat | _Failed:
        try:
            store = ClientStore(self.home, table)
            if self.lock is None:
                # Before reading anything: a second program at this table from this home
                # would append to the same records and draw secrets over ours.
                self.lock = SeatLock(store.folder)
            record = store.load_seat()
            saved = SavedSeat(
                secrets=store.load_secrets(),
                sent=tuple(store.load_sent()),
                transcript=tuple(store.load_transcript()),
                seat=record.seat if record is not None else None,
                seat_host=record.host if record is not None else None,
            )
        except (OSError, UserError) as err:
            return _Failed(str(err))
        self.store = store
        return saved

    def write(self, batch: Iterable[Write]) -> _Failed | None:
        """Each write in turn; the first that fails ends the batch (what follows it waits on
        it, so it must not happen)."""
        store = self.store
        if store is None:
            return None
        for intent in batch:
            try:
                _write(store, intent)
            except (OSError, UserError) as err:
                return _Failed(str(err), intent)
        return None

    def close(self, batch: Iterable[Write]) -> None:
        """The writes still queued, then the logs flushed, fsynced and closed. Nothing waits
        on these any more, so a failure is only logged."""
        failed = self.write(batch)
        if failed is not None and failed.write is not None:
            log.error("could not save %s on closing: %s", _what(failed.write), failed.error)
        if self.store is not None:
            try:
                self.store.close()
            except OSError as err:
                log.error("could not close the records in %s: %s", self.store.folder, err)
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def _write(store: ClientStore, intent: Write) -> None:
    if isinstance(intent, SaveSecrets):
        store.save_secrets(intent.round, intent.attempt, intent.secrets)
    elif isinstance(intent, RecordSent):
        store.record_sent(dict(intent.message), intent.at_ms)
    elif isinstance(intent, RecordRefused):
        store.record_refused(intent.ref, str(intent.reason), intent.at_ms)
    elif isinstance(intent, RecordDelivery):
        store.record_delivery(dict(intent.record))
    elif isinstance(intent, AppendEntry):
        store.append_entry(intent.entry.line)
        if intent.durable:
            store.sync()
    elif isinstance(intent, SaveSeat):
        store.save_seat(SeatRecord(seat=intent.seat, host=intent.host))
    elif isinstance(intent, ForgetSeat):
        store.forget_seat()


@dataclass(slots=True)
class Status:
    phase: str = ""
    connected: list[int] = field(default_factory=list)
    turn: int | None = None
    deadline: float | None = None  #: loop time at which the turn timer runs out
    bank_deadline: float | None = None  #: loop time at which the seat on turn is out of time


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
        self.status = Status()
        #: Exceptions that escaped the core or this pump: bugs, never a hostile host's doing
        #: (the core records those in `errors`). Logged with their traceback, kept for tests.
        self.internal_errors: list[str] = []
        self.outgoing: asyncio.Queue[str] = asyncio.Queue()
        self.on_update: Callable[[], None] | None = None
        #: Called when this session can go no further: a local failure stopped it (its
        #: records cannot be written), or a refusal retrying cannot help (`fatal`). Either
        #: may come from a job's answer, between frames: the transport hangs up then.
        self.on_fatal: Callable[[], None] | None = None
        #: Called when the core drops the connection between frames (a wait ran out): the
        #: transport hangs up, and reconnects.
        self.on_reconnect: Callable[[], None] | None = None
        self.closed = False  #: after close(): nothing more is read, sent or queued
        self._timers: dict[Timer | str, asyncio.TimerHandle] = {}
        self._stretching: asyncio.Task[None] | None = None
        self._files = _SeatFiles(home) if home is not None else None
        #: The seat's writer thread (made on its first job): every job runs there, in order.
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self._queue: deque[Intent] = deque()  #: intents waiting their turn, in order
        self._job: asyncio.Future[Any] | None = None  #: the job on the writer thread now
        self._pumping = False
        self._idle = asyncio.Event()  #: nothing queued and no job running
        self._idle.set()
        self._untold = False  #: a change the front end has not heard of yet
        self._closing: concurrent.futures.Future[None] | None = None

    # ---- facts for the UI (ui.ports.TableSession) and the transports: the core's -----------

    @property
    def peer(self) -> Peer | None:
        return self.core.peer

    @property
    def key(self) -> SigningKey:
        return self.core.key

    @property
    def name(self) -> str:
        return self.core.name

    @property
    def mode(self) -> str:
        return self.core.mode

    @property
    def password_verifier(self) -> bytes | None:
        return self.core.password_verifier

    @property
    def errors(self) -> list[tuple[Reason, str]]:
        return self.core.errors

    @property
    def fatal(self) -> tuple[Reason, str] | None:
        return self.core.fatal

    @property
    def notice(self) -> str | None:
        """What the link waits for: a busy password table's retry (core/password_retry.py)."""
        return self.core.password_retry.notice

    @property
    def connected(self) -> bool:
        return self.core.connected

    @property
    def reconnect_requested(self) -> bool:
        return self.core.reconnect_requested

    @property
    def host_closing(self) -> str | None:
        """Why the host last closed our connection (core.closing), until it welcomes us."""
        return self.core.host_closing

    @property
    def seat(self) -> int | None:
        return self.core.seat

    @property
    def alarms(self) -> list[Alarm]:
        return self.core.alarms

    @property
    def finished(self) -> bool:
        return self.core.finished

    @property
    def comparison_code(self) -> str | None:
        return self.core.comparison_code

    @property
    def store(self) -> ClientStore | None:
        """This seat's records, once opened (on the writer thread)."""
        return self._files.store if self._files is not None else None

    def view(self) -> SeatView | None:
        return self.core.view()

    def pending_kinds(self) -> set[str]:
        return self.core.pending_kinds()

    @property
    def final_check(self) -> FinalCheck | None:
        """The end-of-game self-check (core/client_check.py), computed on the writer thread
        once the game is over; None until then. Reading it never runs it."""
        return self.core.final_check_ready

    def self_check(self, *, complete: bool) -> FinalCheck | None:
        """The same check on a game that stopped early (`complete=False`: as partial). It
        replays the log where it is called: for the end of a program, not for a screen."""
        return self.core.self_check(complete=complete)

    # ---- the connection opening, and its waits ---------------------------------------------

    def opened(self, peer_key: bytes | None) -> None:
        """A new connection is up; `peer_key` is what its TLS peer proved it holds (see
        net/tls.peer_key; None without TLS). The core checks it before anything is sent."""
        if self.core.stopped or self.closed:
            return
        self._guarded(
            "the connection's opening",
            lambda: self._run(self.core.connection_opened(peer_key, time.time())),
        )
        self._notify()

    def _arm_deadline(self) -> None:
        """One timer at the core's deadline for the connection's current state."""
        deadline = self.core.deadline
        if deadline is None or self.closed:
            self._disarm("deadline")
            return
        self._arm("deadline", max(0.0, deadline - time.time()), self._deadline_passed)

    def _deadline_passed(self) -> None:
        self._timers.pop("deadline", None)
        self._guarded("a wait", lambda: self._run(self.core.time_passed(time.time())))
        self._notify()

    # ---- frames in -------------------------------------------------------------------------

    def on_frame(self, data: str | bytes) -> None:
        if self.core.stopped or self.closed:
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
            and self.core.peer is not None
            and len(data) <= MAX_FRAME
            and data.startswith(_ENTRY_HEAD)
            and data.endswith(_ENTRY_TAIL)
            # An entry is an object: anything else is a frame that does not decode (below).
            and data[len(_ENTRY_HEAD) : len(_ENTRY_HEAD) + 1] == "{"
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
        """The core's intents for a new input: in order, behind those still waiting."""
        self._queue.extend(self._drawn(intents))
        self._pump()
        self._review_bot()
        self._arm_deadline()

    def _continue(self, intents: list[Intent]) -> None:
        """The core's intents for a job's answer: they come in the job's place, before what
        was queued behind it."""
        self._queue.extendleft(reversed(self._drawn(intents)))

    def _drawn(self, intents: list[Intent]) -> list[Intent]:
        """`intents` with each DrawSecrets replaced by the core's answer to fresh secrets
        (random bytes, drawn at once: the core hears of them as soon as it asks)."""
        out: list[Intent] = []
        for intent in intents:
            if isinstance(intent, DrawSecrets):
                drawn = self.secrets_source()
                answer = self.core.provide_secrets(intent.round, intent.attempt, drawn, time.time())
                out += self._drawn(answer)
            else:
                out.append(intent)
        return out

    def _pump(self) -> None:
        """Carry out the queued intents in order, up to one that runs on the writer thread;
        the rest wait until it is done (`_job_done` pumps again)."""
        if self._pumping:
            return  # an intent carried out below queued more: the loop below takes them
        self._pumping = True
        try:
            while self._job is None and self._queue:
                if self.core.stopped or self.closed:
                    self._queue.clear()  # a write failed: nothing after it is stored or sent
                    break
                intent = self._queue.popleft()
                files = self._files
                if files is not None and isinstance(intent, _WRITES) and _appends_only(intent):
                    # No job is running (the loop's condition), so the writer thread does not
                    # touch the files now: the same write, in the same order, done here.
                    self._written(files.write((intent,)))
                elif isinstance(intent, CheckGame) or (
                    files is not None and isinstance(intent, (OpenStore, *_WRITES))
                ):
                    self._start_job(intent)
                else:
                    self._execute(intent)
        finally:
            self._pumping = False
        if self._job is None and not self._queue:
            self._idle.set()
            if self._untold:
                self._untold = False
                self._tell()

    def _execute(self, intent: Intent) -> None:
        if isinstance(intent, (SendFrame, SendMessage)):
            self._send_frame(intent.text())
        elif isinstance(intent, OpenStore):  # a session without a folder keeps no records
            self._continue(self.core.store_opened(None))
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
            bank = None if intent.bank_in is None else loop.time() + intent.bank_in
            self.status = Status(intent.phase, list(intent.connected), intent.turn, deadline, bank)
        elif isinstance(intent, (Stopped, Fatal)):
            if isinstance(intent, Stopped):
                who = "host-run seat" if self.core.host_run else "seat"
                log.error("%s %s: %s", who, self.core.name, intent.detail)
            if self.on_fatal is not None:
                self.on_fatal()
        elif isinstance(intent, Reconnect) and self.on_reconnect is not None:
            # The transport also reads `reconnect_requested` after each frame; between
            # frames (a wait that ran out) it is told to hang up.
            self.on_reconnect()
        # Writes need nothing done without a folder (the core asks for none then).
        # RaiseAlarm needs nothing done: the front ends read `alarms`.

    def _send_frame(self, frame: str) -> None:
        """Every frame for the host leaves through here, in order."""
        self.outgoing.put_nowait(frame)

    # ---- jobs on the writer thread -------------------------------------------------------------

    def _executor(self) -> concurrent.futures.ThreadPoolExecutor:
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="p2pdice-seat"
            )
        return self._writer

    def _start_job(self, intent: OpenStore | CheckGame | Write) -> None:
        """Run `intent` (with the writes right behind it: one hop) on the writer thread."""
        files = self._files
        done: Callable[[Any], None]
        if isinstance(intent, CheckGame):
            job: Callable[[], Any] = intent.check
            done = partial(self._game_checked, intent)
        elif isinstance(intent, OpenStore):
            assert files is not None
            job, done = partial(files.open, intent.table_id), self._store_ready
        else:
            assert files is not None
            batch: list[Write] = [intent]
            while self._queue:
                head = self._queue[0]
                if not isinstance(head, _WRITES):
                    break
                self._queue.popleft()
                batch.append(head)
            job, done = partial(files.write, batch), self._written
        self._idle.clear()
        self._job = asyncio.get_running_loop().run_in_executor(self._executor(), job)
        self._job.add_done_callback(partial(self._job_done, done))

    def _job_done(self, done: Callable[[Any], None], job: asyncio.Future[Any]) -> None:
        self._job = None
        if self.closed:  # close() took over what was queued; nothing waits on this any more
            self._idle.set()
            lost = None if job.cancelled() or job.exception() else job.result()
            if isinstance(lost, _Failed) and lost.write is not None:
                log.error("could not save %s on closing: %s", _what(lost.write), lost.error)
            return
        if job.cancelled():
            self._guarded("a job on the writer thread", self._pump)
            return
        error = job.exception()
        if error is not None:
            log.error("a job on the writer thread failed", exc_info=error)
            self.internal_errors.append(
                f"a job on the writer thread: {type(error).__name__}: {error}"
            )
        else:
            self._guarded("a job's answer", done, job.result())
        self._guarded("the intents behind a job", self._pump)
        self._guarded("the bot", self._review_bot)

    def _store_ready(self, opened: SavedSeat | _Failed) -> None:
        if isinstance(opened, _Failed):
            self._continue(self.core.store_unavailable(opened.error))
        else:
            self._continue(self.core.store_opened(opened))

    def _written(self, failed: _Failed | None) -> None:
        if failed is None or failed.write is None:
            return
        # Everything queued behind the failed write waited on it: none of it may happen.
        self._queue.clear()
        for intent in self.core.storage_failed(_what(failed.write), failed.error):
            self._execute(intent)

    def _game_checked(self, asked: CheckGame, report: Report) -> None:
        self._continue(self.core.game_checked(asked, report))

    async def settled(self) -> None:
        """Wait until every intent asked for so far is carried out: the records written,
        the frames queued in `outgoing`, the game checked."""
        await self._idle.wait()

    # ---- the password ----------------------------------------------------------------------

    def _stretch(self, ask: StretchPassword) -> None:
        """scrypt (about 0.1 s and 32 MiB) and the SPAKE2 answer (about 20 ms) run in a
        thread, so the loop keeps serving frames meanwhile; entries that arrive are verified
        while the join waits for its answer."""

        def work(entropy: bytes) -> tuple[bytes | None, JoinerAnswer | ValueError]:
            verifier = None
            if ask.password is not None:
                verifier = password_verifier(ask.password, ask.table_id)
            return verifier, ask.answer(verifier, entropy)

        async def stretch() -> None:
            entropy = secrets.token_bytes(ask.entropy_bytes)
            verifier, answer = await asyncio.to_thread(work, entropy)
            if self.core.stopped or self.closed:
                return
            self._guarded(
                "the password exchange",
                self._password_ready,
                ask.attempt,
                verifier,
                entropy,
                answer,
            )
            self._notify()

        self._stretching = asyncio.get_running_loop().create_task(stretch(), name="scrypt")

    def _password_ready(
        self,
        attempt: int,
        verifier: bytes | None,
        entropy: bytes,
        answer: JoinerAnswer | ValueError,
    ) -> None:
        self._run(self.core.password_ready(attempt, verifier, entropy, answer=answer))

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
        """A bid, call, undo or start-next-round for our seat (the host checks it); a
        UserError when there is no game or no seat to act for."""
        self._run(self.core.act(action, time.time()))
        self._notify()

    @property
    def back_next_round(self) -> bool:
        return self.core.back_next_round

    def take_seat_back(self) -> None:
        """Our player is back while the host plays our seat: see ClientConnection."""
        self._run(self.core.take_seat_back())
        self._notify()

    def _review_bot(self) -> None:
        """A bot plays its own seat when it is its move (after its think time, if any)."""
        if self.driver is None or self.closed:
            return
        step = self.driver.review(self.core.peer, may_play=self.core.may_move)
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
        if self.driver is None:
            return
        play = self.driver.think_over(self.core.peer, may_play=self.core.may_move)
        if play is not None:
            self.act(play.action)

    def _stop_thinking(self) -> None:
        if self.driver is not None and self.driver.forget() is not None:
            self._disarm("think")

    def _notify(self) -> None:
        """The front end hears of a change once what it caused is carried out."""
        self._untold = True
        if self._job is None and not self._queue:
            self._untold = False
            self._tell()

    def _tell(self) -> None:
        if self.on_update is not None:
            self.on_update()

    # ---- the connection ----------------------------------------------------------------------

    def disconnected(self) -> None:
        self._stop_thinking()
        self._disarm("deadline")
        self._queue = deque(i for i in self._queue if not isinstance(i, _OF_THE_CONNECTION))
        for intent in self.core.connection_lost():  # cancels its timers: also after a stop
            if isinstance(intent, _WRITES):
                # What the loss says of our messages (lost with it) is written in turn.
                if not self.core.stopped and not self.closed:
                    self._queue.append(intent)
            else:
                self._execute(intent)
        self._pump()
        if self._stretching is not None:
            self._stretching.cancel()
            self._stretching = None
        while not self.outgoing.empty():
            self.outgoing.get_nowait()
        self._notify()

    def close(self) -> None:
        """Stop for good, without blocking the loop: the timers, the password exchange and
        the bot stop at once; the writes still queued, then the final fsync and the closing
        of the logs, run on the writer thread after the job in hand (`aclose` waits for
        them). Off an event loop, this waits for them itself."""
        if self.closed:
            return
        self.closed = True
        for name in list(self._timers):
            self._disarm(name)
        if self._stretching is not None:
            self._stretching.cancel()
            self._stretching = None
        self._stop_thinking()
        writes = [i for i in self._queue if isinstance(i, _WRITES)]
        self._queue.clear()
        if self._job is None:
            self._idle.set()
        writer = self._writer
        if writer is None:
            return  # no job ever ran: nothing was opened
        if self._files is None:
            writer.shutdown(wait=False)  # a check still running finishes; nothing to close
            return
        self._closing = writer.submit(self._files.close, writes)
        self._closing.add_done_callback(lambda _: writer.shutdown(wait=False))
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self._closing.result()  # no loop to block: the caller may read the files next

    async def aclose(self) -> None:
        """`close`, and wait until the records are written, fsynced and closed."""
        self.close()
        if self._closing is not None:
            await asyncio.wrap_future(self._closing)
