"""The client adapter's heart: one identity at one table, over any transport.

A ClientSession turns frames from the host into Peer calls and Peer outputs into frames,
storing what must survive a crash before it is sent: secrets before the commitment, each
sent message before it leaves, each verified entry as it is applied. It is transport-agnostic:
`on_frame(text)` in, `outgoing` frames out, so a WebSocket and the host's in-process link
both drive the same code. Bots and the terminal UI read `view()` and call `act()`.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots.registry import Bot
from ..bots.sim import bot_due, bot_move
from ..core.codec import encode
from ..core.errors import Reason, RemoteError, UserError
from ..core.game import Action
from ..core.host import sign_auth
from ..core.messages import parse_message
from ..core.names import free_name, reserved_for_cpu
from ..core.pake import ENTROPY_BYTES, Binding, joiner_answer, password_verifier
from ..core.peer import Alarm, Applied, NeedSecrets, Peer, PeerOutput, Secrets, Send
from ..core.signing import SigningKey
from ..core.table import TablePhase
from ..core.transcript import Entry, parse_entry
from ..core.view import SeatView
from ..store import ClientStore, SeatRecord, ends_a_round, new_secrets
from .frames import MAX_FRAME, TO_CLIENT, decode_frame, encode_frame

_ENTRY_HEAD = '{"entry":'
_ENTRY_TAIL = ',"type":"entry"}'

log = logging.getLogger("p2pdice.client")

#: Seconds between two `sync`s of a spectator that is up to date: the host closes a spectator
#: that sends none for two minutes (SPEC.md 10.3), so a quiet table does not lose its watchers.
SPECTATOR_KEEPALIVE = 30.0

#: Errors after which retrying cannot help.
FATAL = {
    Reason.BAD_PASSWORD,
    Reason.PASSWORD_THROTTLED,
    Reason.TABLE_FULL,
    Reason.BAD_CHALLENGE,
    Reason.NOT_SEATED,
    Reason.BAD_NAME,
    Reason.NAME_RESERVED,
}


class WrongTable(Exception):
    """The host answered with another table or host key than expected."""


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
        self.key = key
        self.name = name
        self.home = home
        self.mode = mode
        self.password = password
        #: The table's stretched password (pake.password_verifier), when it is known already
        #: (host-run seats get it from their host, which keeps no plain password).
        self.password_verifier = password_verifier
        #: The host's confirmation our welcome must carry after a join with a password.
        self._host_proof: bytes | None = None
        self.cpu = cpu
        self.host_run = host_run
        self.bot = bot
        self.rng = rng or random.Random()
        self.expect_table = expect_table
        self.expect_host = expect_host
        self.expect_host_prefix = expect_host_prefix  #: from the advertisement (TXT `hk`)
        #: Loop time of the last sign of a working table (a welcome, a verified entry).
        self.last_progress = 0.0
        self.secrets_source = secrets_source
        self.peer: Peer | None = None
        self.store: ClientStore | None = None
        self.status = Status()
        self.errors: list[tuple[Reason, str]] = []
        self.fatal: tuple[Reason, str] | None = None
        self.changed = asyncio.Event()
        self.outgoing: asyncio.Queue[str] = asyncio.Queue()
        self.connected = False
        self._catch_up_to = 0
        self._resumed = False
        self._pending_join: tuple[dict[str, Any], tuple[bytes, bytes] | None] | None = None
        #: The challenge our last join answered, and names the host refused as taken.
        self._join_challenge: tuple[dict[str, Any], tuple[bytes, bytes] | None] | None = None
        self._names_refused: set[str] = set()
        self._seatless = False
        self._authing = False
        #: Set when this connection should be dropped and opened again (the transport obeys).
        self.reconnect_requested = False
        self._early: dict[int, Entry] = {}  #: entries that arrived ahead of a gap
        self._resend_timer: asyncio.TimerHandle | None = None
        self._keepalive: asyncio.TimerHandle | None = None
        self.seat_hint = seat_hint
        self.on_update: Callable[[], None] | None = None
        #: Called once when this session stops for a local failure (its records cannot be
        #: written): the transport hangs up (a host-run seat's link closes).
        self.on_fatal: Callable[[], None] | None = None
        self.stopped = False  #: a local failure: nothing more is read, sent or stored
        #: Seconds a bot waits before it moves, as a person would: people at the table can
        #: follow the play, and take a bid back before the bot answers it. 0: at once.
        self.think = think
        self._think: tuple[tuple[int, int, str], asyncio.TimerHandle] | None = None
        self.closed = False  #: after close(): the transcript and sent logs are shut

    # ---- facts for the UI and bots -------------------------------------------------------

    @property
    def table_id(self) -> bytes | None:
        return self.peer.state.table_id if self.peer and self.peer.state else None

    @property
    def seat(self) -> int | None:
        return self.peer.seat if self.peer else None

    @property
    def alarms(self) -> list[Alarm]:
        return self.peer.alarms if self.peer else []

    @property
    def finished(self) -> bool:
        state = self.peer.state if self.peer else None
        return state is not None and state.phase == TablePhase.OVER

    def view(self) -> SeatView | None:
        return self.peer.view() if self.peer else None

    @property
    def names(self) -> list[str]:
        """Display names by seat (roster after the start, joins before)."""
        state = self.peer.state if self.peer else None
        if state is None:
            return []
        if state.roster:
            return [s.name for s in state.roster]
        return [
            state.joins[s].name if s in state.joins else "(free)" for s in range(state.rules.seats)
        ]

    @property
    def comparison_code(self) -> str | None:
        from ..core.fairness import comparison_code

        state = self.peer.state if self.peer else None
        if state is None or state.start_seq is None:
            return None
        return comparison_code(self.peer.replayer.chain.hashes[state.start_seq])

    def pending_kinds(self) -> set[str]:
        return {p.message.type for p in self.peer.pending.values()} if self.peer else set()

    # ---- frames --------------------------------------------------------------------------

    def _send_frame(self, frame: str) -> None:
        if not self.stopped:
            self.outgoing.put_nowait(frame)

    def _stored(self, what: str, write: Callable[..., Any], *args: Any) -> bool:
        """Run one write to this seat's records; a failure (a full disk, no file descriptors
        left, a refused link) stops the session with a clear local error instead of playing on
        without its records, which would stall the table at the next commitment."""
        try:
            write(*args)
        except (OSError, UserError) as err:
            detail = f"could not save {what}: {err}; this seat stops"
            log.error("%s %s: %s", "host-run seat" if self.host_run else "seat", self.name, detail)
            self.fatal = (Reason.INTERNAL, detail)
            self.errors.append((Reason.INTERNAL, detail))
            if not self.stopped:
                self.stopped = True
                if self.on_fatal is not None:
                    self.on_fatal()
            return False
        return True

    def on_frame(self, data: str | bytes) -> None:
        if self.stopped or self.closed:
            return  # a local failure, or frames a link still held when it closed
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
            try:
                self._take_entry(data[len(_ENTRY_HEAD) : -len(_ENTRY_TAIL)].encode("utf-8"))
            except Exception as err:  # a hostile host must never crash the client
                log.exception("an entry from the host failed")
                self.errors.append((Reason.INTERNAL, f"could not handle an entry: {err}"))
            self._notify()
            return
        try:
            frame = decode_frame(data, TO_CLIENT)
        except RemoteError as err:
            self.errors.append((err.reason, f"unreadable frame from the host: {err.detail}"))
            if isinstance(data, str) and '"type":"challenge"' in data:
                # Without a challenge we answer we can never sit down: stop, say why.
                self.fatal = (
                    err.reason,
                    "the host's challenge is unreadable (another protocol version?)",
                )
            return
        handler = getattr(self, f"_on_{frame['type']}")
        try:
            handler(frame)
        except Exception as err:  # a hostile host must never crash the client
            log.exception("frame %s from the host failed", frame["type"])
            self.errors.append(
                (Reason.INTERNAL, f"could not handle the host's {frame['type']}: {err}")
            )
            if frame["type"] == "challenge":
                # Unanswered, the challenge times out and the retries fail the same way: a
                # local problem (an unwritable folder, say) must be said, not retried forever.
                self.fatal = (Reason.INTERNAL, f"could not answer the host's challenge: {err}")
        self._notify()

    def _on_challenge(self, frame: dict[str, Any]) -> None:
        table, host = bytes.fromhex(frame["table"]), bytes.fromhex(frame["host"])
        if self.expect_table is not None and table != self.expect_table:
            self.fatal = (Reason.BAD_CHALLENGE, "this address now serves another table")
            return
        if self.expect_host_prefix and not frame["host"].startswith(self.expect_host_prefix):
            self.fatal = (Reason.BAD_CHALLENGE, "the host key differs from the one it advertised")
            return
        if self.expect_host is not None and host != self.expect_host:
            self.fatal = (
                Reason.BAD_CHALLENGE,
                "the host key changed: this may not be the same table",
            )
            return
        self.expect_table, self.expect_host = table, host
        self._open_store(table)
        assert self.peer is not None
        self._catch_up_to = frame["entries"]
        self._resumed = False
        self.peer.quiet = len(self.peer.replayer.chain) < self._catch_up_to
        record = self.store.load_seat() if self.store is not None else None
        seat = (
            record.seat if record is not None and record.host == frame["host"] else self.seat_hint
        )
        if self.mode == "spectate":
            seat = None  # a watcher never holds a seat, even one this identity owns
        self._authing = seat is not None
        if seat is not None:
            auth = sign_auth(self.key, table=table, host=host, nonce=bytes.fromhex(frame["nonce"]))
            self.peer.seat = seat
            self._send_frame(encode_frame("auth", auth=auth))
        elif self.mode == "spectate":
            self._send_frame(encode_frame("spectate"))
        elif frame["seat"] is None:
            # No seat offered: the game has started, or every free seat is held by someone
            # still answering their challenge. Read the log first, then watch or try again.
            self._seatless = True
            self._sync_to(len(self.peer.replayer.chain))
            self._settle_seatless()
        else:
            self._join(frame)

    def _settle_seatless(self) -> None:
        peer = self.peer
        if (
            not self._seatless
            or peer is None
            or len(peer.replayer.chain) < max(1, self._catch_up_to)
        ):
            return
        self._seatless = False
        state = peer.state
        if state is not None and state.phase == TablePhase.LOBBY:
            self.reconnect_requested = True  # seats may free up in a moment: ask again
        else:
            self._send_frame(encode_frame("spectate"))

    def _join(self, frame: dict[str, Any]) -> None:
        assert self.peer is not None
        table, host, nonce = (
            bytes.fromhex(frame["table"]),
            bytes.fromhex(frame["host"]),
            bytes.fromhex(frame["nonce"]),
        )
        self._sync_to(len(self.peer.replayer.chain))
        self._host_proof = None
        pake = None
        if frame["password"]:
            if self.password is None and self.password_verifier is None:
                self.fatal = (Reason.BAD_PASSWORD, "this table needs a password")
                return
            if frame["pake"] is None:
                self.fatal = (
                    Reason.BAD_CHALLENGE,
                    "the host asks for a password but opened no password exchange",
                )
                return
            if self.password_verifier is None:
                assert self.password is not None
                # scrypt, about 0.1 s: once per table, kept for reconnects.
                self.password_verifier = password_verifier(self.password, table)
            try:
                answer = joiner_answer(
                    self.password_verifier,
                    secrets.token_bytes(ENTROPY_BYTES),
                    bytes.fromhex(frame["pake"]),
                    Binding(table, host, nonce, self.key.public),
                )
            except ValueError as err:
                self.fatal = (Reason.BAD_CHALLENGE, str(err))
                return
            pake = (answer.message, answer.proof)
            self._host_proof = answer.host_proof
        self._pending_join = (frame, pake)
        self._try_join()

    def _try_join(self) -> None:
        """Send the join once we hold the whole log as of the challenge (its head must be ours)."""
        assert self.peer is not None
        have = len(self.peer.replayer.chain)
        # A join names an entry we verified, so we need at least the genesis (whatever the
        # challenge claims about the log's length).
        if self._pending_join is None or have < max(1, self._catch_up_to):
            return
        challenge, pake = self._pending_join
        self._pending_join = None
        if not self.cpu and reserved_for_cpu(self.name):
            self.fatal = (
                Reason.NAME_RESERVED,
                f"names starting with CPU are kept for computer players: {self.name!r} "
                "needs another name (--name)",
            )
            return
        # One seat per name (SPEC.md 10.5): "Hana" joins as "Hana 2" if a Hana is seated.
        state = self.peer.state
        taken = [s.name for s in state.joins.values()] if state is not None else []
        self.name = free_name(self.name, [*taken, *self._names_refused])
        self._join_challenge = (challenge, pake)
        join = self.peer.make_join(challenge, name=self.name, cpu=self.cpu, host_run=self.host_run)
        self.peer.seat = challenge["seat"]
        message, proof = pake if pake is not None else (None, None)
        self._send_frame(
            encode_frame(
                "join",
                msg=join.to_json(),
                pake=message.hex() if message else None,
                proof=proof.hex() if proof else None,
            )
        )

    def _open_store(self, table: bytes) -> None:
        if self.peer is not None:
            return
        peer = Peer(key=self.key)
        if self.home is not None:
            self.store = ClientStore(self.home, table)
            peer.secrets.update(self.store.load_secrets())
            # Sent messages first: replaying the saved log then clears every one it shows, and
            # what is left is exactly what the host may never have received.
            sent = self.store.load_sent()
            refused = {r.get("ref") for r in sent}
            for record in sent:
                try:
                    msg = parse_message(record["msg"]) if "msg" in record else None
                    at = float(record.get("at", 0)) / 1000
                except (RemoteError, KeyError, TypeError, ValueError):
                    continue  # a record we cannot read cannot be resent either
                if msg is not None and msg.digest().hex() not in refused:
                    peer.restore_sent(msg, sent_at=at)
            alarms = peer.restore(self.store.load_transcript())
            if alarms:
                self.errors.append(
                    (alarms[0].reason, f"the saved transcript did not verify: {alarms[0].detail}")
                )
        self.peer = peer

    def _sync_to(self, have: int) -> None:
        self._send_frame(encode_frame("sync", **{"from": have}))

    def _on_welcome(self, frame: dict[str, Any]) -> None:
        assert self.peer is not None
        self.connected = True
        self._authing = False
        self._join_challenge = None
        self.last_progress = asyncio.get_running_loop().time()
        expected, self._host_proof = self._host_proof, None
        if expected is not None and (
            frame["proof"] is None
            or not hmac.compare_digest(bytes.fromhex(frame["proof"]), expected)
        ):
            # The host let us in without proving it knows the password: whoever answered is
            # not the table's host (or not only), so nothing we play here can be trusted.
            self.connected = False
            self.fatal = (
                Reason.BAD_PASSWORD,
                "the host did not prove it knows the table password: it may be an impostor",
            )
            return
        seat = frame["seat"]
        if seat is None:
            self._keep_alive()
        else:
            self.peer.seat = seat
            store, host = self.store, self.expect_host
            if store is not None and host is not None and store.load_seat() is None:
                record = SeatRecord(seat=seat, host=host.hex())
                if not self._stored("its seat", store.save_seat, record):
                    return
        # Entries posted while we were joining: ask again from what we hold (duplicates are ignored).
        self._sync_to(len(self.peer.replayer.chain))
        self._maybe_resume()

    def _keep_alive(self, *, now: bool = False) -> None:
        """A spectator asks for what it lacks now and then, which is how the host tells a
        watcher from a socket left open to fill the table (usually nothing comes back)."""
        if self._keepalive is not None:
            self._keepalive.cancel()
        if now and self.peer is not None and self.connected:
            self._sync_to(len(self.peer.replayer.chain))
        self._keepalive = asyncio.get_running_loop().call_later(
            SPECTATOR_KEEPALIVE, lambda: self._keep_alive(now=True)
        )

    def _on_entry(self, frame: dict[str, Any]) -> None:
        self._take_entry(encode(frame["entry"]))

    def _take_entry(self, line: bytes) -> None:
        peer = self.peer
        if peer is None:
            return
        try:
            entry = parse_entry(line)
        except RemoteError as err:
            self._handle(peer.receive_line(line))  # the peer raises the alarm and stops
            self.errors.append((err.reason, f"unreadable entry from the host: {err.detail}"))
            return
        if entry.seq > len(peer.replayer.chain):
            # A broadcast overtook the answer to our sync: hold it until the gap is filled.
            if len(self._early) < 4096:
                self._early[entry.seq] = entry
            return
        started = peer.state is not None
        self._handle(peer.receive_entry(entry))
        if not started and peer.state is not None and peer.state.table_id != self.expect_table:
            # The challenge named one table and the log is another's: not the table we chose.
            peer.halted = True
            self.fatal = (
                Reason.BAD_CHALLENGE,
                "the log does not belong to the table the host named",
            )
            return
        self.last_progress = asyncio.get_running_loop().time()
        while len(peer.replayer.chain) in self._early and not peer.halted:
            self._handle(peer.receive_entry(self._early.pop(len(peer.replayer.chain))))
        self._try_join()
        self._settle_seatless()
        self._maybe_resume()

    def _maybe_resume(self) -> None:
        """Once caught up with the log: owe the phase what we owe it, and resend what is pending."""
        peer = self.peer
        if (
            peer is None
            or self._resumed
            or not self.connected
            or len(peer.replayer.chain) < self._catch_up_to
        ):
            return
        self._resumed = True
        peer.quiet = False
        self._resend_pending()
        self._handle(peer.resume())
        self._maybe_decide()

    def _on_accepted(self, frame: dict[str, Any]) -> None:
        pass  # the message shows up in the log in due course

    def _on_error(self, frame: dict[str, Any]) -> None:
        reason = Reason(frame["reason"])
        if reason == Reason.NAME_TAKEN and self._join_challenge is not None:
            # Another join took the name first: sign again, on the same challenge (the host
            # keeps the seat offered after such a refusal), with the next free name.
            self._names_refused.add(self.name)
            self._pending_join, self._join_challenge = self._join_challenge, None
            self._try_join()
            return
        self.errors.append((reason, frame["detail"]))
        if frame["ref"] is not None and self.peer is not None:
            self.peer.drop_pending(bytes.fromhex(frame["ref"]))
            store = self.store
            if store is not None and not self._stored(
                "a refusal", store.record_refused, frame["ref"], str(reason), _ms()
            ):
                return
            self._maybe_decide()  # a refused move leaves the turn with us: decide again
        elif reason == Reason.NOT_SEATED and self._authing:
            # Our seat was given up while we were away in the lobby: forget it, join afresh.
            if self.store is not None:
                self.store.forget_seat()
            if self.peer is not None:
                self.peer.seat = None
            self.seat_hint = None
            self.reconnect_requested = True
        elif reason == Reason.RATE_LIMITED:
            # The host dropped a frame unread; whatever of ours is unconfirmed goes again,
            # once: a burst of these must not queue a resend of everything for each.
            if self._resend_timer is None:
                self._resend_timer = asyncio.get_running_loop().call_later(
                    1.0, self._resend_pending
                )
        elif reason in FATAL:
            self.fatal = (reason, frame["detail"])

    def _resend_pending(self) -> None:
        self._resend_timer = None
        if self.peer is None or not self.connected:
            return
        for msg in self.peer.pending_messages():
            self._send_frame(encode_frame("send", msg=msg.to_json()))

    def _on_status(self, frame: dict[str, Any]) -> None:
        loop = asyncio.get_running_loop()
        self.status = Status(
            phase=frame["phase"],
            connected=frame["connected"],
            turn=frame["turn"],
            deadline=None
            if frame["deadline_ms"] is None
            else loop.time() + frame["deadline_ms"] / 1000,
        )

    def _on_closing(self, frame: dict[str, Any]) -> None:
        self.errors.append((Reason.INTERNAL, f"the host closed the table: {frame['reason']}"))

    # ---- peer outputs --------------------------------------------------------------------

    def _handle(self, outputs: list[PeerOutput]) -> None:
        store = self.store
        for out in outputs:
            if self.stopped:
                return
            if isinstance(out, Applied):
                if store is not None:
                    self._stored("the transcript", _append, store, out.entry)
            elif isinstance(out, Send):
                self._transmit(out)
            elif isinstance(out, NeedSecrets):
                secrets = self.secrets_source()
                if store is not None and not self._stored(  # before the commitment
                    f"the secrets of round {out.round}",
                    store.save_secrets,
                    out.round,
                    out.attempt,
                    secrets,
                ):
                    return
                assert self.peer is not None
                self._handle(self.peer.provide_secrets(out.round, out.attempt, secrets))
            elif isinstance(out, Alarm):
                self.errors.append((out.reason, out.detail))
        self._maybe_decide()

    def _transmit(self, send: Send) -> None:
        message = send.message.to_json()
        store = self.store
        if store is not None and not self._stored(
            "a sent message", store.record_sent, message, _ms()
        ):
            return  # never sent unrecorded: `verify --mine` must find every message we sent
        self._send_frame(encode_frame("send", msg=message))

    # ---- actions -------------------------------------------------------------------------

    def act(self, action: Action) -> None:
        """A bid, call, undo or start-next-round for our seat (the host checks it)."""
        assert self.peer is not None
        self._transmit(self.peer.act(action, now=time.time()))
        self._notify()

    def _bot_may_play(self) -> bool:
        return (
            self.bot is not None
            and self.peer is not None
            and not self.stopped
            and self.connected
            and self._resumed
        )

    def _maybe_decide(self) -> None:
        """A bot plays its own seat when it is its move (after its think time, if any)."""
        if not self._bot_may_play():
            self._stop_thinking()
            return
        if self.think <= 0:
            action = bot_move(self.peer, self.bot, self.rng)
            if action is not None:
                self.act(action)
            return
        due = bot_due(self.peer)
        if self._think is not None and self._think[0] == due:
            return  # already thinking about this very move
        self._stop_thinking()  # the move it was thinking about is gone (an undo, say)
        if due is not None:
            pause = self.think * random.uniform(0.7, 1.3)  # not the bot's rng: seeds replay
            timer = asyncio.get_running_loop().call_later(pause, self._decide_now)
            self._think = (due, timer)

    def _decide_now(self) -> None:
        self._think = None
        if not self._bot_may_play():
            return
        action = bot_move(self.peer, self.bot, self.rng)
        if action is not None:
            self.act(action)

    def _stop_thinking(self) -> None:
        if self._think is not None:
            self._think[1].cancel()
            self._think = None

    def _notify(self) -> None:
        self.changed.set()
        if self.on_update is not None:
            self.on_update()

    def disconnected(self) -> None:
        self._stop_thinking()
        self.connected = False
        self.reconnect_requested = False
        self._seatless = False
        self._authing = False
        self._resumed = False
        self._pending_join = self._join_challenge = None
        self._early.clear()
        if self._resend_timer is not None:
            self._resend_timer.cancel()
            self._resend_timer = None
        if self._keepalive is not None:
            self._keepalive.cancel()
            self._keepalive = None
        while not self.outgoing.empty():
            self.outgoing.get_nowait()
        self._notify()

    def close(self) -> None:
        if self._keepalive is not None:
            self._keepalive.cancel()
            self._keepalive = None
        self.closed = True
        self._stop_thinking()
        if self.store is not None:
            self.store.close()


def _append(store: ClientStore, entry: Entry) -> None:
    store.append_entry(entry.line)
    if ends_a_round(entry):
        store.sync()


def _ms() -> int:
    return int(time.time() * 1000)
