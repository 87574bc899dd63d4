"""Helpers for the cheat-detection suite: a protosim table with hooks to hold, forge and inject.

A `Game` wraps `p2pdice.bots.protosim.LocalTable`. Honest peers and an honest host play; a test
then plays the cheater's part by

- holding some of what peers send (`hold`), so the table stops in a chosen phase with the
  host waiting, and releasing it later (`release`);
- signing messages with a seat's own key (`sign`) and offering them to the host (`offer`,
  `refused_by_host`);
- signing entries with the host's own key (`forge`) and showing them to one peer
  (`refused_by_peer`) or to the offline verifier (`refused_by_verify`);
- rewriting what the host delivers to one connection (`tamper`).

Every `refused_*` helper also checks that nothing changed: the host's log head, or the
peer's chain, is exactly what it was before the bad item arrived.

What the host answers to a message offered here is fed back into the harness with
`LocalTable._host_outputs`, exactly as if the message had come over the link.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

from p2pdice.bots import load_bot
from p2pdice.bots.protosim import Conn, LocalTable
from p2pdice.core.errors import Reason
from p2pdice.core.host import Accepted, Output, Posted, Rejected
from p2pdice.core.messages import Message, sign_message
from p2pdice.core.peer import Alarm, Peer
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.core.transcript import Entry, build_entry, parse_entry
from p2pdice.core.verify import Report, verify_lines

#: Counters far above anything an honest peer reaches in these short games, so a forged
#: message never trips REPLAY unless a test wants it to.
FRESH_COUNTER = 10_000

HoldRule = Callable[[int | None, Message], bool]

#: Returned by a `tamper` function: do not deliver this entry to the victim at all.
DROP = b"<drop>"


def kinds(*names: str, seat: int | None = None) -> HoldRule:
    """A hold rule: messages of these types (from one seat, or from any)."""
    return lambda s, m: m.type in names and (seat is None or s == seat)


class Game:
    """One table of honest peers and an honest host, with levers for playing a cheater."""

    def __init__(
        self,
        *,
        seed: int = 1,
        rules: Rules | None = None,
        bots: Sequence[str] | None = None,
        name: str = "cheat table",
        host_cpu: int = 0,
    ) -> None:
        """Three seats with one die each unless `rules` say otherwise; medium bots."""
        self.rules = rules or Rules(seats=len(bots) if bots else 3, starting_dice=1)
        bots = bots or ("medium",) * self.rules.seats
        self.table = LocalTable(
            self.rules,
            [load_bot(b) for b in bots],
            rng=random.Random(seed),
            name=name,
            host_cpu=host_cpu,
        )
        self.forge_rng = random.Random(seed ^ 0x5EED)
        self.held: list[tuple[Conn, Message]] = []
        self.sent: list[tuple[Conn, Message]] = []
        self._holds: list[HoldRule] = []
        self._acknowledged: list[HoldRule] = []
        self._tampers: list[Callable[[Conn, bytes], bytes | None]] = []
        self.delivered: dict[Conn, list[bytes]] = {}
        self.table.on_send = self._on_send
        self.table.on_deliver = self._on_deliver

    # ---- hooks -----------------------------------------------------------------------------

    def _on_send(self, conn: Conn, msg: Message) -> Message | None:
        self.sent.append((conn, msg))
        seat = self.table.seats[conn].peer.seat
        if any(rule(seat, msg) for rule in self._holds):
            self.held.append((conn, msg))
            if any(rule(seat, msg) for rule in self._acknowledged):
                # The host says it has it (`accepted`), as it does on reading a buffered
                # message, and keeps it back all the same.
                client = self.table.seats[conn].client
                frame = {"type": "accepted", "ref": msg.digest().hex(), "seq": None}
                self.table._client_intents(conn, client.receive_frame(frame, self.table.now))
            return None
        return msg

    def _on_deliver(self, conn: Conn, line: bytes) -> bytes | None:
        for tamper in self._tampers:
            changed = tamper(conn, line)
            if changed is DROP:
                return None
            if changed is not None:
                line = changed
                break
        self.delivered.setdefault(conn, []).append(line)
        return line

    def hold(self, rule: HoldRule, *, acknowledged: bool = False) -> None:
        """From now on, messages matching `rule` are kept back instead of reaching the host;
        `acknowledged`: the host answers each with `accepted` first (so their senders know
        the host had them: a host that then drops one is caught, core/delivery.py)."""
        self._holds.append(rule)
        if acknowledged:
            self._acknowledged.append(rule)

    def stop_holding(self) -> None:
        self._holds.clear()
        self._acknowledged.clear()

    def take_held(self, kind: str, seat: int | None = None, **body: Any) -> Message:
        """Remove and return the one held message of this type (seat, body field values)."""
        found = [
            (c, m)
            for c, m in self.held
            if m.type == kind
            and (seat is None or m.seat == seat)
            and all(m.body.get(k) == v for k, v in body.items())
        ]
        assert len(found) == 1, f"expected one held {kind} from seat {seat}, got {len(found)}"
        self.held.remove(found[0])
        return found[0][1]

    def release(self, kind: str | None = None, seat: int | None = None) -> list[Output]:
        """Deliver held messages (all, or those of one type/seat) to the host and run on."""
        self.stop_holding()
        outputs: list[Output] = []
        for conn, msg in list(self.held):
            if (kind is None or msg.type == kind) and (seat is None or msg.seat == seat):
                self.held.remove((conn, msg))
                outputs += self.offer(msg.seat, msg)
        return outputs

    def tamper(self, victim: int, fn: Callable[[Entry], Entry | bytes | None]) -> list[Entry]:
        """Rewrite what the host delivers to seat `victim`: `fn(honest entry)` returns a
        replacement entry (or raw line), `DROP`, or None to deliver the honest one. Returns
        the list of honest entries that were replaced (filled in as the game runs)."""
        replaced: list[Entry] = []

        def hook(conn: Conn, line: bytes) -> bytes | None:
            seat = self.table.seats.get(conn)
            if seat is None or seat.peer.seat != victim or seat.stand_in_for is not None:
                return None
            honest = parse_entry(line)
            out = fn(honest)
            if out is None:
                return None
            replaced.append(honest)
            if out is DROP:
                return DROP
            return out if isinstance(out, bytes) else out.line

        self._tampers.append(hook)
        return replaced

    # ---- facts -----------------------------------------------------------------------------

    @property
    def host(self):
        return self.table.host

    def conn(self, seat: int) -> Conn:
        for conn, s in self.table.seats.items():
            if s.peer.seat == seat and s.stand_in_for is None:
                return conn
        raise KeyError(seat)

    def peer(self, seat: int) -> Peer:
        return self.table.seats[self.conn(seat)].peer

    def key(self, seat: int) -> SigningKey:
        return self.peer(seat).key

    def alarms(self, seat: int) -> list[Alarm]:
        return list(self.peer(seat).alarms)

    def entries_of(self, kind: str) -> list[Entry]:
        return [e for e in self.host.entries if e.kind == kind]

    def last(self, kind: str) -> Entry:
        return self.entries_of(kind)[-1]

    @property
    def phase(self) -> TablePhase:
        return self.host.phase

    # ---- driving ---------------------------------------------------------------------------

    def start(self) -> Game:
        self.table.seat_everyone()
        return self

    def run(self) -> None:
        self.table.run_until_idle()

    def play(self, *, limit: int = 5_000) -> None:
        """Run to the game-over entry, advancing the fake clock when idle. Unlike
        `LocalTable.play`, fail fast when time passes and nothing happens (a livelock)."""
        for _ in range(limit):
            self.run()
            if self.phase == TablePhase.OVER:
                return
            before = (len(self.host.entries), self.table.now)
            if not self.table.advance_clock():
                raise AssertionError(f"stuck in {self.phase} with nothing timed")
            self.run()
            if (len(self.host.entries), self.table.now) == before:
                raise AssertionError(
                    f"livelock in {self.phase}: the next deadline ({self.host.next_deadline(self.table.now)}) "
                    "is already past and ticking it changes nothing"
                )
        raise AssertionError("the game did not end")

    def tick_to_deadline(self) -> None:
        assert self.table.advance_clock(), "nothing is timed"
        self.run()

    def run_until(self, done: Callable[[], bool], *, limit: int = 200) -> None:
        """Run, advancing the clock when idle, until `done()` holds."""
        for _ in range(limit):
            self.run()
            if done():
                return
            before = (len(self.host.entries), self.table.now)
            if not self.table.advance_clock():
                break
            self.run()
            if (len(self.host.entries), self.table.now) == before:
                break  # a livelock: time does not move and nothing happens
        assert done(), f"condition never reached (host in {self.phase})"

    # ---- playing the cheater ---------------------------------------------------------------

    def sign(
        self,
        seat: int,
        kind: str,
        *,
        signer: SigningKey | None = None,
        counter: int | None = None,
        head: bytes | None = None,
        table: bytes | None = None,
        **fields: Any,
    ) -> Message:
        """A message for `seat`, signed by the seat's own key unless `signer` is given."""
        return sign_message(
            signer or self.key(seat),
            kind=kind,
            table=table if table is not None else self.host.table_id,
            seat=seat,
            counter=FRESH_COUNTER + len(self.sent) if counter is None else counter,
            head=head if head is not None else self.host.head,
            **fields,
        )

    def offer(self, seat: int, msg: Message | dict[str, Any], conn: Conn | None = None):
        """Hand a message to the host on the seat's connection; feed what it says to the table."""
        conn = self.conn(seat) if conn is None else conn
        raw = msg.to_json() if isinstance(msg, Message) else msg
        outputs = self.host.receive(conn, raw, self.table.now)
        self.table._host_outputs(outputs)
        self.run()
        return outputs

    def refused_by_host(
        self, seat: int, msg: Message | dict[str, Any], reason: Reason, conn: Conn | None = None
    ) -> Rejected:
        """The host refuses `msg` with `reason` and its log does not move."""
        head, size, phase = self.host.head, len(self.host.entries), self.phase
        conn = self.conn(seat) if conn is None else conn
        raw = msg.to_json() if isinstance(msg, Message) else msg
        outputs = self.host.receive(conn, raw, self.table.now)
        rejected = [o for o in outputs if isinstance(o, Rejected)]
        assert [type(o) for o in outputs] == [Rejected], outputs
        assert rejected[0].reason == reason, (rejected[0].reason, rejected[0].detail)
        assert (self.host.head, len(self.host.entries), self.phase) == (head, size, phase)
        # The refusal goes back to the sender's client (it stops resending that message).
        self.table._host_outputs(outputs)
        self.run()
        return rejected[0]

    def forge(
        self,
        *,
        event: dict[str, Any] | None = None,
        msg: Message | None = None,
        seq: int | None = None,
        prev: bytes | None = None,
        key: SigningKey | None = None,
    ) -> Entry:
        """An entry signed with the host's key (or `key`), by default the next one of the log."""
        return build_entry(
            key or self.host.key,
            len(self.host.entries) if seq is None else seq,
            self.host.head if prev is None else prev,
            event=event,
            msg=msg,
            table=self.host.table_id,
        )

    def forge_like(self, honest: Entry, **changes: Any) -> Entry:
        """The host's own entry `honest` (same seq and prev), its event fields changed."""
        assert honest.event is not None
        return self.forge(event={**honest.event, **changes}, seq=honest.seq, prev=honest.prev)

    def follower(self, lines: Iterable[bytes] | None = None) -> Peer:
        """A fresh spectator that has verified the host's log so far (or `lines`)."""
        peer = Peer(key=SigningKey(self.forge_rng.randbytes(32)))
        for line in self.host.lines() if lines is None else lines:
            outputs = peer.receive_line(line)
            assert not [o for o in outputs if isinstance(o, Alarm)], outputs
        return peer

    def refused_by_peer(self, line: bytes, reason: Reason, peer: Peer | None = None) -> Alarm:
        """A peer shown `line` next raises an Alarm with `reason`, halts, and keeps its chain."""
        peer = peer or self.follower()
        size, head = len(peer.replayer.chain), peer.head
        outputs = peer.receive_line(line)
        alarms = [o for o in outputs if isinstance(o, Alarm)]
        assert len(alarms) == 1 and len(outputs) == 1, outputs
        assert alarms[0].reason == reason, (alarms[0].reason, alarms[0].detail)
        assert (len(peer.replayer.chain), peer.head) == (size, head)
        if reason != Reason.MESSAGE_DROPPED:
            assert peer.halted
        return alarms[0]

    def refused_by_verify(
        self, line: bytes, reason: Reason, prefix: Sequence[bytes] | None = None
    ) -> Report:
        """`verify --partial` of the log so far plus `line` fails exactly at that line."""
        lines = list(self.host.lines() if prefix is None else prefix)
        report = verify_lines([*lines, line], partial=True)
        assert report.failure is not None, "verify accepted the bad line"
        assert report.failure.index == len(lines), report.failure
        assert report.failure.reason == reason, report.failure
        return report

    def refused_everywhere(self, seat: int, msg: Message, reason: Reason) -> None:
        """A player message refused by the host, by a peer and by verify with one reason."""
        self.refused_by_host(seat, msg, reason)
        entry = self.forge(msg=msg)
        self.refused_by_peer(entry.line, reason)
        self.refused_by_verify(entry.line, reason)


def accepted(outputs: Iterable[Output]) -> bool:
    return any(isinstance(o, (Accepted, Posted)) for o in outputs)


def rejections(outputs: Iterable[Output]) -> list[Reason]:
    return [o.reason for o in outputs if isinstance(o, Rejected)]


@cache
def game_and_a_fork() -> tuple[list[bytes], bytes]:
    """A finished honest game's log, and a host-signed second version of its second `round`
    entry (what a forking host shows another player)."""
    g = Game(seed=1).start()
    g.play()
    lines = g.host.lines()
    honest = g.entries_of("event:round")[1]
    assert honest.event is not None
    other = g.forge_like(honest, palifico=not honest.event["palifico"])
    assert other.line != honest.line and other.seq == honest.seq
    return lines, other.line
