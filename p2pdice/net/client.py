"""The client adapter's transports: a WebSocket with reconnects, or the host's in-process link."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Iterable
from functools import partial

import aiohttp

from ..core.client import CONNECT_WAIT, HEARTBEAT
from ..core.closing import Closing
from .frames import MAX_FRAME
from .limits import TokenBucket
from .server import LocalLink, TableServer
from .session import ClientSession
from .tls import client_context, peer_key

log = logging.getLogger("p2pdice.client")


class Outcome:
    OVER = "over"  #: the game-over entry arrived and verified
    FATAL = "fatal"  #: the host refused us for good (password, full table, wrong table)
    GAVE_UP = "gave_up"  #: the host did not take us back for as long as we wait (awake)
    ALARM = "alarm"  #: the host's log failed verification; we stopped following it
    STOPPED = "stopped"  #: asked to stop


#: Stay under the host's default limit (20 frames a second, bursts of 50), so that even a CPU
#: playing as fast as it can is never refused for speed.
CLIENT_RATE = 18.0
CLIENT_BURST = 40.0


async def _pump_out(session: ClientSession, ws: aiohttp.ClientWebSocketResponse) -> None:
    loop = asyncio.get_running_loop()
    bucket = TokenBucket(rate=CLIENT_RATE, burst=CLIENT_BURST, tokens=CLIENT_BURST)
    while True:
        frame = await session.outgoing.get()
        while not bucket.allow(loop.time()):
            await asyncio.sleep(1.0 / CLIENT_RATE)
        await ws.send_str(frame)


#: Seconds one look for the table's advertisement lasts (a browser started after the table
#: exists finds it in about 0.1 s; a host that just restarted announces within about 1.5 s).
REDISCOVER_FOR = 2.0
#: Failed connection attempts in a row before looking for the table over mDNS.
REDISCOVER_AFTER = 2
#: A table its host paused (`closing` `paused`) is waited for quietly: a try every this many
#: seconds (each after a look for its advertisement), for up to PAUSED_WAIT seconds.
PAUSED_RETRY = 5.0
PAUSED_WAIT = 3600.0

#: Seconds between the client's looks at its own clock (`Wakefulness`).
WAKE_TICK = 1.0
#: A look at the clock this many seconds later than it was due: the process did not run in
#: between (the machine slept, or the process was stopped).
STALL = 5.0


class Wakefulness:
    """When this client was not running, on the loop's clock: a laptop asleep or a stopped
    process. The wait before giving up on the host counts only time the client was awake
    to try: a client that slept through its whole `--give-up` has not tried once, and the
    host has not failed to answer it. (A machine's suspend may leave the monotonic clock
    standing; a stopped process, or a clock that counts the suspend, does not.)

    A task looks every WAKE_TICK seconds (`watch`); a look far later than due marks the
    time in between as asleep. Whoever asks first after waking (the task or
    `asleep_since`) sees it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._seen = loop.time()
        #: (loop time a stall ended, its seconds), the latest few
        self._stalls: deque[tuple[float, float]] = deque(maxlen=64)

    def _look(self) -> float:
        now = self._loop.time()
        gap = now - self._seen
        if gap > WAKE_TICK + STALL:
            self._stalls.append((now, gap - WAKE_TICK))
            log.info("the client did not run for %.0f s (asleep or stopped)", gap)
        self._seen = now
        return now

    def asleep_since(self, since: float) -> float:
        """Seconds of the loop's clock from `since` to now during which the client slept."""
        self._look()
        return sum(min(length, end - since) for end, length in self._stalls if end > since)

    async def watch(self) -> None:
        while True:
            await asyncio.sleep(WAKE_TICK)
            self._look()


class Routes:
    """The addresses at which this table's host (its pinned key) welcomed us, and how often a
    connection through each dropped after the welcome without the host saying why (a
    `closing`) or the game ending.

    After a drop the client goes back to a reached address before anything newly advertised:
    the one whose connections dropped least, then one that has not failed since it last
    welcomed us, then the first reached. A stranger relaying the table's TCP from a copy of
    its advertisement passes the key pin and can cut what it relays whenever it likes; with
    this order it keeps a client that has reached the host without it only until its first
    cut. A host that moved is still followed: an address that fails is passed over in favour
    of one that welcomed us since, and skipped until every reached address has been tried."""

    def __init__(self) -> None:
        self._drops: dict[str, int] = {}  #: reached addresses, in the order first reached
        self._stale: set[str] = set()  #: reached addresses that failed since they last welcomed us
        self._tried: set[str] = set()  #: reached addresses that failed in this outage

    def welcomed(self, url: str) -> None:
        self._drops.setdefault(url, 0)
        self._stale.discard(url)
        self._tried.clear()

    def dropped(self, url: str) -> None:
        if url in self._drops:
            self._drops[url] += 1

    def failed(self, url: str) -> None:
        if url in self._drops:
            self._stale.add(url)
            self._tried.add(url)

    def retry(self) -> None:
        """Every reached address may be tried again (none answered, nothing new was heard)."""
        self._tried.clear()

    def best(self) -> str | None:
        """The reached address to try next (None: none is left to try before looking for
        the table's advertisement)."""
        order = list(self._drops)
        left = [u for u in order if u not in self._tried]
        if not left:
            return None
        return min(left, key=lambda u: (self._drops[u], u in self._stale, order.index(u)))


async def rediscover(
    session: ClientSession, url: str, avoid: frozenset[str] = frozenset()
) -> str | None:
    """The table's advertised address when it differs from `url` (its host came back on
    another port or address), found by the table id and host key this session holds;
    addresses in `avoid` (found before, and not our table) are passed over."""
    from .discovery import find_table

    sought = session.core.sought_advert()
    if sought is None:
        return None
    table_id, prefix = sought
    try:
        ad = await find_table(table_id, host_prefix=prefix, timeout=REDISCOVER_FOR, avoid=avoid)
    except Exception as err:  # discovery is a bonus: its failure must not end the game
        log.debug("looking for the table over mDNS failed: %s", err)
        return None
    found = ad.url if ad is not None else None
    return found if found is not None and found != url else None


async def run_websocket(
    session: ClientSession,
    url: str,
    *,
    give_up_after: float = 120.0,
    stop: asyncio.Event | None = None,
    linger: float = 0.5,
    find_again: bool = True,
) -> str:
    """Play (or watch) until the game ends, reconnecting after drops; returns an Outcome
    once everything the session was asked to do is done (its records written, the game
    checked), so the caller may read them.

    With `find_again`, repeated failures to reach `url` send the client looking for the
    table's advertisement by its id, and it follows the table to a new address or port.
    """
    awake = Wakefulness(asyncio.get_running_loop())
    watching = asyncio.get_running_loop().create_task(awake.watch(), name="wakefulness")
    try:
        outcome = await _play(session, url, give_up_after, stop, linger, find_again, awake)
    finally:
        watching.cancel()
    await session.settled()
    return outcome


async def _play(
    session: ClientSession,
    url: str,
    give_up_after: float,
    stop: asyncio.Event | None,
    linger: float,
    find_again: bool,
    awake: Wakefulness,
) -> str:
    loop = asyncio.get_running_loop()
    #: Loop time the table was last known to be there: a welcome, a verified entry, or a
    #: welcomed connection still up (see below).
    last_contact = loop.time()
    backoff = 0.2
    failures = 0
    wanted = session.core.url_query  # a watcher's: the host reserves no seat for it
    query = f"?{wanted}" if wanted and "?" not in url else ""
    url += query
    given = url
    misled: set[str] = set()  #: advertised addresses whose host was not our table's
    routes = Routes()
    # TCP and TLS within CONNECT_WAIT (aiohttp's sock_connect covers both); the HTTP upgrade
    # too (the wait_for below). The TLS context pins nothing itself: the core checks the key.
    timeout = aiohttp.ClientTimeout(total=None, sock_connect=CONNECT_WAIT)
    connector = aiohttp.TCPConnector(ssl=client_context())
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as http:
        while True:
            if stop is not None and stop.is_set():
                return Outcome.STOPPED
            attempted = url.removesuffix(query)  # the address this attempt tries
            try:
                opening = http.ws_connect(url, max_msg_size=4 * MAX_FRAME, heartbeat=HEARTBEAT)
                async with await asyncio.wait_for(opening, CONNECT_WAIT) as ws:
                    # Who answered proves which key it holds before anything is sent.
                    session.opened(peer_key(ws))
                    if session.core.transport_fault:
                        outcome = None
                    else:
                        backoff = 0.2
                        outcome = await _serve(session, ws, stop)
                    if session.core.connected:  # the pinned host welcomed us here
                        routes.welcomed(url.removesuffix(query))
                        if outcome is None and session.host_closing is None:
                            routes.dropped(url.removesuffix(query))
                    # Only a welcome, a verified entry or a welcomed connection (until it ends,
                    # below) counts as contact: a host that accepts connections and drops them
                    # before it welcomes us is as gone as one that refuses them.
                    last_contact = max(last_contact, session.last_progress)
                    if session.core.transport_fault:
                        # Not our host, or a state that outlasted its wait: a failed attempt,
                        # which sends us looking for the table again (and an advertised
                        # address whose peer holds another key is passed over).
                        log.warning("%s: %s", url, session.errors[-1][1])
                        failures += 1
                        if session.core.wrong_host:
                            # Even the address we were given: an advert heard first may be
                            # a copy, and the table is then found by its id elsewhere.
                            log.warning("%s is not our table's host: passing it over", url)
                            misled.add(url.removesuffix(query))
                        url = given
                    else:
                        failures = 0
                    if (
                        outcome == Outcome.FATAL
                        and url != given
                        and session.core.refused_at_advertised_address()
                    ):
                        # An advertisement copied our table's id but another host answered:
                        # not a reason to give up our seat. Back to the address we were given.
                        log.warning("%s is not our table's host: passing it over", url)
                        misled.add(url.removesuffix(query))
                        url, outcome = given, None
                    if outcome is not None:
                        if outcome == Outcome.OVER and linger:
                            await _drain(session, ws, linger)
                        return outcome
            except (TimeoutError, aiohttp.ClientError, OSError) as err:
                log.debug("connection to %s failed: %s", url, err)
                failures += 1
                if url != given:
                    # An advertised address that failed us: one try at the address we were
                    # given before the next look. A copy that holds connections until the
                    # wait runs out proves no key, so it is not passed over, and a look that
                    # hears it first every time would otherwise keep us from our host.
                    url, failures = given, REDISCOVER_AFTER - 1
            if failures:
                routes.failed(attempted)
            if session.core.connected:
                # The host held this connection until it ended: the wait for it starts now,
                # not at its last entry. On our own turn the table posts nothing while it
                # waits for us, and a laptop that slept with the connection open finds it
                # gone only on waking.
                last_contact = loop.time()
            session.disconnected()
            if session.peer is not None and session.peer.halted:
                return Outcome.ALARM
            paused = session.host_closing == Closing.PAUSED
            # Time asleep is not the host's silence: a client that wakes tries again for as
            # long as it waits, however long it slept.
            silent = loop.time() - last_contact - awake.asleep_since(last_contact)
            if silent > (PAUSED_WAIT if paused else give_up_after):
                return Outcome.GAVE_UP
            waited = 0.0
            # Back to where the host was reached before, the route with the fewest drops first,
            # and only then to an address heard in an advertisement (Routes).
            known = routes.best()
            if known is not None and (failures == 0 or failures >= REDISCOVER_AFTER):
                url = known + query
            elif find_again and failures >= REDISCOVER_AFTER:
                began = loop.time()
                here = url.removesuffix(query)
                moved = await rediscover(session, here, frozenset({*misled, here}))
                if moved is not None:
                    log.info("the table moved to %s", moved)
                    url, backoff = moved + query, 0.2
                    continue
                waited = loop.time() - began  # listening counts as waiting: no later retry
                routes.retry()  # nothing new heard: the reached addresses are tried again
                known = routes.best()
                url = known + query if known is not None else url
            # A host that said how long to wait (a busy password table) is waited for.
            told, session.core.reconnect_delay = session.core.reconnect_delay, 0.0
            await asyncio.sleep(max(0.0, max(backoff, told) - waited))
            backoff = min(backoff * 2, PAUSED_RETRY if paused else 3.0)


async def _serve(
    session: ClientSession, ws: aiohttp.ClientWebSocketResponse, stop: asyncio.Event | None
) -> str | None:
    """Pump frames both ways on a connection whose peer passed the key check."""
    writer = asyncio.create_task(_pump_out(session, ws))
    # A session that can go no further between frames (a record it could not write or open)
    # may hear nothing more: it hangs up, `_read` says FATAL. So does one whose wait ran out.
    session.on_fatal = session.on_reconnect = partial(_hang_up, ws)
    try:
        return await _read(session, ws, stop)
    finally:
        session.on_fatal = session.on_reconnect = None
        writer.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await writer


_hanging_up: set[asyncio.Task[bool]] = set()  #: held until done (the loop keeps weak refs)


def _hang_up(ws: aiohttp.ClientWebSocketResponse) -> None:
    task = asyncio.get_running_loop().create_task(ws.close())
    _hanging_up.add(task)
    task.add_done_callback(_hanging_up.discard)


async def _read(
    session: ClientSession, ws: aiohttp.ClientWebSocketResponse, stop: asyncio.Event | None
) -> str | None:
    async for msg in ws:
        if msg.type in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            session.on_frame(msg.data)
        else:
            break
        if session.fatal is not None:
            return Outcome.FATAL
        if session.reconnect_requested:
            return None  # the outer loop reconnects after a short pause
        if session.peer is not None and session.peer.halted:
            return Outcome.ALARM
        if session.finished:
            return Outcome.OVER
        if stop is not None and stop.is_set():
            return Outcome.STOPPED
    return Outcome.FATAL if session.fatal is not None else None


async def _drain(
    session: ClientSession, ws: aiohttp.ClientWebSocketResponse, seconds: float
) -> None:
    """Let our last acknowledgement leave before closing (it may wait behind the records
    written before it)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(session.settled(), seconds)
    while not session.outgoing.empty() and loop.time() < deadline:
        await ws.send_str(session.outgoing.get_nowait())
    # The host's `closing` follows a game it ended (SPEC.md 10.3): read it, so the player is
    # told the host ended the game, until the host hangs up or the time is up.
    while session.host_closing is None and (left := deadline - loop.time()) > 0:
        try:
            msg = await asyncio.wait_for(ws.receive(), left)
        except TimeoutError:
            break
        if msg.type not in (aiohttp.WSMsgType.TEXT, aiohttp.WSMsgType.BINARY):
            break
        session.on_frame(msg.data)


#: Seconds an in-process seat waits before it reconnects, doubling up to the most (as the
#: socket client's backoff in `run_websocket`).
RELINK_BACKOFF_FIRST = 0.2
RELINK_BACKOFF_MAX = 3.0


class LocalClient:
    """A session inside the host's process (host-run CPU seats, the host's own player)."""

    def __init__(self, session: ClientSession, server: TableServer) -> None:
        self.session = session
        self.link = LocalLink(server, self._on_frame)
        self._task: asyncio.Task[None] | None = None
        self._relink: asyncio.TimerHandle | None = None  #: a reconnection that is due
        self._backoff = RELINK_BACKOFF_FIRST
        self._last_relink = float("-inf")
        self._stopping: asyncio.Task[None] | None = None
        self._over = asyncio.Event()  #: the session verified the game's end

    def _on_frame(self, frame: str) -> None:
        self.session.on_frame(frame)
        if self.session.finished:
            self._over.set()

    def start(self) -> None:
        self.session.on_fatal = self._hang_up
        self.session.on_reconnect = self._reconnect_soon
        # In-process: the peer is the host itself, whose key is the server's own.
        self.session.opened(self.link.host_key)
        # The host's own CPUs may take the seats kept for them (HostTable.free_seat).
        self.link.open(host_run=self.session.core.host_run)
        self._task = asyncio.get_running_loop().create_task(self._pump(), name="local-client")

    def _hang_up(self) -> None:
        """Its records failed: the seat leaves the table. A seat its own host refused for
        good stays linked, doing nothing more, as it always has."""
        if self.session.core.stopped and self._stopping is None:
            self._stopping = asyncio.get_running_loop().create_task(self.stop())

    def _reconnect_soon(self) -> None:
        """The session asks for a new connection (a seat played for it is taken back by
        authenticating again, SPEC.md 8; no seat was free to offer, so it asks again): the
        link is closed and opened afresh, as a socket's would be, after a backoff like a
        socket client's, so a request made again at once never spins the host's loop."""
        if self._relink is not None:
            return  # one is due already
        loop = asyncio.get_running_loop()
        if loop.time() - self._last_relink > RELINK_BACKOFF_MAX * 4:
            self._backoff = RELINK_BACKOFF_FIRST  # a while since the last: start short again
        told, self.session.core.reconnect_delay = self.session.core.reconnect_delay, 0.0
        self._relink = loop.call_later(max(self._backoff, told), self._reconnect)
        self._backoff = min(self._backoff * 2, RELINK_BACKOFF_MAX)

    def _reconnect(self) -> None:
        self._relink = None
        self._last_relink = asyncio.get_running_loop().time()
        if self.link.conn is None or self.session.core.stopped:
            return  # stopped meanwhile
        self.link.close()
        self.session.disconnected()
        self.session.opened(self.link.host_key)
        self.link.open(host_run=self.session.core.host_run)

    async def _pump(self) -> None:
        while True:
            frame = await self.session.outgoing.get()
            self.link.send(frame)

    async def hold_the_end(self) -> None:
        """Wait until this seat holds its game's end: the `game_over` entry verified and its
        records written, so that stopping it leaves a whole transcript. A seat that never sat
        down, or whose records failed, never will: it returns at once. The module's
        `hold_the_end` bounds the wait for one still taking the entries in."""
        session = self.session
        if not session.finished and session.connected and not session.core.stopped:
            await self._over.wait()
        await session.settled()

    async def stop(self) -> None:
        if self._relink is not None:
            self._relink.cancel()
            self._relink = None
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self.link.close()
        self.session.disconnected()
        await self.session.aclose()  # its records written, fsynced and closed: off the loop


#: Seconds this machine's own seats (the host's player, its CPUs) are given to take in the end
#: of a game their host just ended before their links close; in-process, it takes a moment.
LOCAL_END_WAIT = 3.0


async def hold_the_end(clients: Iterable[LocalClient], timeout: float = LOCAL_END_WAIT) -> None:
    """Give these in-process seats, at most `timeout` seconds in all, to take in the end of
    their game (LocalClient.hold_the_end), so that every copy of a game ended on this machine
    holds its `game_over` before their links are closed (SPEC.md 10.3)."""
    waits = [asyncio.ensure_future(client.hold_the_end()) for client in clients]
    if not waits:
        return
    _, late = await asyncio.wait(waits, timeout=timeout)
    for wait in late:
        log.warning("a seat on this machine did not take in the end of its game in time")
        wait.cancel()
    await asyncio.gather(*waits, return_exceptions=True)
