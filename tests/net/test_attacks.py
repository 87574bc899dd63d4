"""Attacks from one machine on the LAN (issue 13): each reproduced against a real host over
real sockets on loopback, inside the test session's private namespace.

Every test here failed before its defence existed: lock-outs by connections that never
answer (item 1), half-open HTTP requests and exhausted file descriptors (item 2), `sync`
amplification (item 4), symbolic links planted in the data folder (item 7). The heavier
measurements of the same attacks are in `benchmarks/attacks.py`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import resource
import ssl
from pathlib import Path
from subprocess import PIPE, STDOUT, Popen

import aiohttp
import pytest

from p2pdice.core import client as client_core
from p2pdice.core.advert import listing_url, socket_url
from p2pdice.core.rules import Rules
from p2pdice.core.signing import SigningKey
from p2pdice.core.table import TablePhase
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.hostapp import HostedTable, HostService, TableConfig
from p2pdice.net.server import Limits
from p2pdice.net.session import ClientSession
from p2pdice.net.tls import client_context
from p2pdice.store import AppendLog, LinkRefused
from tests.support.procs import kill_all, p2pdice
from tests.support.wire import Closed, RawClient, auth_frame, hosted, join_frame, url_of

pytestmark = pytest.mark.usefixtures("private_network")


def key(n: int) -> SigningKey:
    return SigningKey(bytes([n]) * 32)


async def until(predicate: object, timeout: float) -> bool:
    """Poll `predicate()` for up to `timeout` seconds (bounded: tests never hang)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        if predicate():  # type: ignore[operator]
            return True
        await asyncio.sleep(0.05)
    return bool(predicate())  # type: ignore[operator]


# ---- item 7: links in the data folder ------------------------------------------------------


async def test_a_client_never_writes_its_transcript_through_a_planted_link(
    tmp_path: Path,
) -> None:
    """Someone who can write to the data folder plants `transcript.jsonl` as a link to a file
    of the player's; the client used to append the table's log to that file."""
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    async with hosted(tmp_path / "h", cpu=["easy"]) as (service, table):
        home = tmp_path / "c"
        folder = home / "tables" / table.id
        folder.mkdir(parents=True)
        (folder / "transcript.jsonl").symlink_to(victim)
        session = ClientSession(key=key(7), name="watcher", home=home, mode="spectate")
        outcome = await asyncio.wait_for(
            run_websocket(session, url_of(service, table), give_up_after=5), 10
        )
        assert outcome == Outcome.FATAL
        assert session.fatal is not None and "symbolic link" in session.fatal[1]
        session.close()
    assert victim.read_bytes() == b"precious\n"


async def test_a_host_never_appends_its_log_through_a_planted_link(tmp_path: Path) -> None:
    """The same link at `hosted/<id>/log.jsonl`, found when the host resumes the table."""
    home = tmp_path / "h"
    service = HostService(home=home, bind="127.0.0.1", advertise=False)
    await service.start()
    config = TableConfig(name="linked", rules=Rules(seats=2))
    try:
        table = await service.open_table(config)
        log_path = table.log.path
    finally:
        await service.stop()
    lines = AppendLog.read(log_path)
    victim = tmp_path / "victim.jsonl"
    victim.write_bytes(log_path.read_bytes())
    log_path.unlink()
    log_path.symlink_to(victim)
    before = victim.read_bytes()
    service = HostService(home=home, bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        with pytest.raises(LinkRefused, match="symbolic link"):
            await service.open_table(config, resume_lines=lines)
    finally:
        await service.stop()
    assert victim.read_bytes() == before
    with pytest.raises(LinkRefused):
        AppendLog.read(log_path)  # nor is a log read through a link


# ---- item 2: a secrets write that fails ----------------------------------------------------


async def test_a_host_run_seat_that_cannot_save_its_secrets_says_so_and_leaves(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With no file descriptor left (or a full disk) the host-run CPU could not save its
    round's secrets: the exception vanished into a log line per frame and the seat sat at
    the table never committing, so the game stalled. It must say so once and leave."""
    caplog.set_level(logging.INFO)
    service = HostService(home=tmp_path / "h", bind="127.0.0.1", advertise=False)
    await service.start()
    try:
        table = await service.open_table(
            TableConfig(name="no secrets", rules=Rules(seats=2), cpu=["easy", "easy"])
        )
        # Before the loop runs the seats' joins: the first CPU's secrets folder is a file,
        # so writing any secrets file of it fails (as with EMFILE or ENOSPC).
        folder = table.folder / "cpu" / "1" / "tables" / table.id
        folder.mkdir(parents=True)
        (folder / "secrets").write_bytes(b"")
        first = table.cpu_clients["1"]
        assert await until(lambda: first.session.seat is not None, 5)
        seat = first.session.seat
        # It leaves the table: its seat is disconnected (the protocol's absence rules take
        # over from there), and the failure is said once, without a traceback.
        assert await until(lambda: not table.host.seat_connected(seat), 10)
        said = [r for r in caplog.records if "could not save the secrets" in r.getMessage()]
        assert len(said) == 1 and said[0].levelno == logging.ERROR and not said[0].exc_info
        assert first.session.fatal is not None
    finally:
        await service.stop()


# ---- item 2: half-open HTTP requests and the open-file limit -------------------------------

HALF_OPEN_HEAD = b"GET /tables HTTP/1.1\r\nHost: attacker\r\n"  #: never the closing blank line


async def half_open(port: int, count: int) -> list[asyncio.StreamWriter]:
    """`count` TCP connections each holding an unfinished request head (a slowloris)."""
    writers = []
    for _ in range(count):
        try:
            writer = await asyncio.wait_for(open_half_request(port), 2)
        except (OSError, ssl.SSLError, TimeoutError):
            break  # the host accepts no more (no descriptor left, or its backlog is full)
        writers.append(writer)
    await asyncio.sleep(0.2)
    return writers


async def open_half_request(port: int) -> asyncio.StreamWriter:
    """One slowloris connection: the TLS handshake done (every host port speaks TLS, so bytes
    in the clear would be refused at once and hold nothing), then an unfinished head."""
    _, writer = await asyncio.open_connection("127.0.0.1", port, ssl=client_context())
    writer.write(HALF_OPEN_HEAD)
    await writer.drain()
    return writer


def close_all(writers: list[asyncio.StreamWriter]) -> None:
    for writer in writers:
        writer.close()


async def test_an_unfinished_request_head_is_closed_at_its_deadline(tmp_path: Path) -> None:
    """aiohttp waited an hour (its keep-alive default) for the rest of a request head, holding
    a file descriptor all along; the host now gives a head `head_timeout` seconds."""
    async with hosted(tmp_path / "h", limits=Limits(head_timeout=0.5)) as (service, table):
        watcher = await RawClient.connect(url_of(service, table))
        async with watcher:
            await watcher.send({"type": "spectate"})
            await watcher.recv_type("welcome")
            reader, writer = await asyncio.open_connection(
                "127.0.0.1", service.port, ssl=client_context()
            )
            writer.write(HALF_OPEN_HEAD)
            started = asyncio.get_running_loop().time()
            assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the host
            assert asyncio.get_running_loop().time() - started < 3
            writer.close()
            # A WebSocket past its head is not cut by that deadline.
            await asyncio.sleep(1.0)
            await watcher.send({"from": 0, "type": "sync"})
            assert (await watcher.recv_type("entry"))["entry"]["seq"] == 0


def _spawn_host(home: Path, soft_fd_limit: int, hard_fd_limit: int) -> tuple[Popen[str], int]:
    """`p2pdice host --headless` with a low open-file limit, as on a default desktop (1,024)
    scaled down; returns the process and its port."""

    def low_limit() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft_fd_limit, hard_fd_limit))

    args = "host --headless --json --seats 2 --cpu 1:easy --no-advertise --bind 127.0.0.1"
    proc = Popen(
        [*p2pdice(*args.split()), "--home", str(home)],
        stdout=PIPE,
        stderr=STDOUT,
        text=True,
        preexec_fn=low_limit,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the ready line comes first (logging goes to stderr)
    if not line.startswith("{"):
        kill_all(proc)
        raise AssertionError(f"the host did not start: {line!r}")
    return proc, json.loads(line)["port"]


async def test_half_open_requests_beyond_the_soft_file_limit_do_not_lock_players_out(
    tmp_path: Path,
) -> None:
    """With the soft limit at 64 (a thousand on a desktop), 100 half-open requests took every
    descriptor: no join, no `GET /tables`, and the host-run CPU could not save its secrets.
    The host raises its soft limit to the hard one when it starts."""
    proc, port = _spawn_host(tmp_path / "h", 64, 4096)
    writers: list[asyncio.StreamWriter] = []
    try:
        writers = await half_open(port, 100)
        assert len(writers) == 100
        async with (
            aiohttp.ClientSession() as http,
            http.get(
                listing_url("127.0.0.1", port),
                timeout=aiohttp.ClientTimeout(total=5),
                ssl=client_context(),
            ) as answer,
        ):
            tables = await answer.json()
        url = socket_url(f"127.0.0.1:{port}", tables[0]["path"])
        async with await asyncio.wait_for(RawClient.connect(url), 5) as raw:
            assert raw.challenge is not None and raw.challenge["seat"] is not None
    finally:
        close_all(writers)
        kill_all(proc)


async def test_failing_accepts_are_said_in_one_line_not_a_traceback_a_second(
    tmp_path: Path,
) -> None:
    """When no descriptor is left at all (hard limit reached), asyncio logged a traceback for
    every failed accept, once a second for as long as it lasted (300 MB in an evening)."""
    proc, port = _spawn_host(tmp_path / "h", 48, 48)
    assert proc.stdout is not None
    writers: list[asyncio.StreamWriter] = []
    before: list[str] = []
    try:
        writers = await half_open(port, 60)
        # The first failed accept is said once; on a busy machine it may take a while.
        loop = asyncio.get_running_loop()
        end = loop.time() + 30
        while loop.time() < end and not any("cannot accept" in line for line in before):
            line = await asyncio.wait_for(asyncio.to_thread(proc.stdout.readline), 30)
            if not line:
                break
            before.append(line)
        await asyncio.sleep(3.5)  # then three retries of the accept at least, said nowhere
    finally:
        close_all(writers)
        kill_all(proc)
    out = "".join(before) + proc.stdout.read()
    said = [line for line in out.splitlines() if "cannot accept connections" in line]
    assert len(said) == 1, out[-2000:]
    assert "Too many open files" in said[0]
    assert "Traceback" not in out, out[-2000:]


# ---- item 4: sync amplification ------------------------------------------------------------


async def finished_table_log(table: HostedTable) -> int:
    """Bytes of all entry frames of a table whose two host-run CPUs played it to the end."""
    await asyncio.wait_for(table.server.over.wait(), 60)
    return sum(len(e.line) + len('{"entry":,"type":"entry"}') for e in table.host.entries)


async def test_asking_for_the_whole_log_over_and_over_costs_the_host_its_budget_only(
    tmp_path: Path,
) -> None:
    """18 `sync from 0` a second (under the frame rate limit) each answered with the whole log:
    a 24-byte frame bought 85 KB, 2,700 times its size. Only entries the connection was never
    sent are free; a range sent already is paid from a byte budget, and the third refusal
    closes the connection, as for frames."""
    rules = Rules(seats=2)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (service, table):
        log_bytes = await finished_table_log(table)
        raw = await RawClient.connect(url_of(service, table))
        async with raw:
            await raw.send({"type": "spectate"})
            await raw.recv_type("welcome")
            received = 0
            reading = True

            async def read() -> None:
                nonlocal received
                while reading:
                    msg = await raw.ws.receive()
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        return
                    received += len(msg.data)
                    if '"type":"error"' in msg.data:
                        raw.received.append(json.loads(msg.data))

            reader = asyncio.create_task(read())
            loop = asyncio.get_running_loop()
            started, sent = loop.time(), 0
            for _ in range(36):  # 2 s at 18 a second
                if reader.done():
                    break  # closed by the host
                frame = '{"from":0,"type":"sync"}'
                await raw.send(frame)
                sent += len(frame)
                await asyncio.sleep(1 / 18)
            await asyncio.wait_for(reader, 2)
            elapsed = loop.time() - started
            reading = False
        limits = Limits()
        budget = log_bytes + limits.sync_resend_burst + limits.sync_resend_rate * elapsed
        assert received <= budget + 4096, (received, budget, received / sent)
        assert [e["reason"] for e in raw.errors()] == ["RATE_LIMITED"] * Limits().strikes
        # Before: the whole log for each of the 36 frames.
        assert received < 36 * log_bytes / 4


async def test_a_log_larger_than_the_send_queue_reaches_a_joiner_whole_and_in_order(
    tmp_path: Path,
) -> None:
    """Send queues are capped in bytes; the answer to a sync is fed into the queue as it drains,
    so a long log never sits whole in one queue, yet reaches the reader complete."""
    limits = Limits(outbox_bytes=8 * 1024)
    rules = Rules(seats=2)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"], limits=limits) as (
        service,
        table,
    ):
        log_bytes = await finished_table_log(table)
        assert log_bytes > 3 * limits.outbox_bytes
        async with await RawClient.connect(url_of(service, table)) as raw:
            await raw.send({"from": 0, "type": "sync"})
            seqs = [(await raw.recv_type("entry"))["entry"]["seq"] for _ in table.host.entries]
            assert seqs == list(range(len(table.host.entries)))


# ---- item 1: lock-outs ---------------------------------------------------------------------


async def seat_a_player(url: str, table: HostedTable, player: SigningKey) -> None:
    """A raw player takes the free seat and goes away (Wi-Fi drop), as if to come back."""
    async with await RawClient.connect(url) as raw:
        await raw.send(join_frame(player, raw.challenge, head=table.host.head, name="player"))
        assert (await raw.recv_type("welcome"))["seat"] == raw.challenge["seat"]
        # Stay until the game starts: a lobby seat left before its join settles is freed.
        for _ in range(200):
            if table.host.state.phase != TablePhase.LOBBY:
                break
            await asyncio.sleep(0.05)
        assert table.host.state.phase != TablePhase.LOBBY


async def test_a_seated_player_gets_back_in_past_a_table_full_of_spectators(
    tmp_path: Path,
) -> None:
    """64 sockets that chose to watch filled the table's cap: the seated player who lost its
    connection was refused `TOO_MANY_CONNECTIONS` at every retry, and the host's stand-in
    took the seat (so the host machine read that hand). Spectators now fill the cap less the
    seats, and a seat's key is let in whatever the spectators."""
    player = key(9)
    async with hosted(tmp_path / "h", cpu=["easy"]) as (service, table):
        url = url_of(service, table)
        await seat_a_player(url, table, player)
        watchers: list[RawClient] = []
        try:
            for _ in range(Limits().max_connections + 4):
                try:
                    raw = await RawClient.connect(url + "?spectate=1")
                except (Closed, AssertionError):
                    break  # refused before the challenge
                watchers.append(raw)
                await raw.send({"type": "spectate"})
                if (await raw.recv_type("welcome", "error"))["type"] == "error":
                    break
            assert len(watchers) >= Limits().max_connections - 2
            seat = table.host.state.seat_of_key(player.public)
            async with await RawClient.connect(url) as back:
                await back.send(auth_frame(player, back.challenge))
                welcome = await back.recv_type("welcome", "error")
                assert welcome == {"proof": None, "seat": seat, "type": "welcome"}, welcome
            assert seat is not None
            assert table.host.seat_connected(seat) is False  # it left again, but it got in
        finally:
            for raw in watchers:
                await raw.close()


async def test_one_address_may_hold_only_so_many_connections(tmp_path: Path) -> None:
    """A cap for each address, players included; another machine is not affected."""
    limits = Limits(limit_loopback=True)  # loopback stands for two LAN machines here
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table) + "?spectate=1"
        held = [await RawClient.connect(url) for _ in range(limits.per_address)]
        try:
            extra = await RawClient.connect(url, read_challenge=False)
            async with extra:
                frames = await extra.closed()
                assert [f.get("reason") for f in frames] == ["TOO_MANY_CONNECTIONS"], frames
            async with await RawClient.connect(url, source="127.0.0.2") as other:
                assert other.challenge is not None
        finally:
            for raw in held:
                await raw.close()


async def test_connections_that_never_answer_do_not_keep_the_seats(tmp_path: Path) -> None:
    """Six connections that sent nothing after their challenge held all six free seats, and
    reconnecting every five seconds they held them for good: no one else was offered a seat.
    A seat stays reserved only for a join in progress (3 s), then goes to the newcomer."""
    async with hosted(tmp_path / "h", rules=Rules(seats=6)) as (service, table):
        url = url_of(service, table)
        squatters = [await RawClient.connect(url) for _ in range(6)]
        try:
            assert sorted(s.challenge["seat"] for s in squatters) == list(range(6))
            await asyncio.sleep(Limits().reserve_grace + 0.2)
            async with await RawClient.connect(url, source="127.0.0.2") as joiner:
                assert joiner.challenge["seat"] is not None, joiner.challenge
                player = key(11)
                await joiner.send(join_frame(player, joiner.challenge, head=table.host.head))
                assert (await joiner.recv_type("welcome"))["seat"] == joiner.challenge["seat"]
            # The squatter whose seat it was is told why and closed.
            dropped = [s for s in squatters if s.challenge["seat"] == joiner.challenge["seat"]]
            frames = await dropped[0].closed()
            assert [f.get("reason") for f in frames] == ["HANDSHAKE_TIMEOUT"], frames
        finally:
            for raw in squatters:
                await raw.close()


async def test_one_address_reserves_one_seat_at_a_time(tmp_path: Path) -> None:
    """Within the grace, squatters from one address hold one seat, not all of them."""
    limits = Limits(limit_loopback=True)
    async with hosted(tmp_path / "h", rules=Rules(seats=6), limits=limits) as (service, table):
        url = url_of(service, table)
        squatters = [await RawClient.connect(url) for _ in range(6)]
        try:
            offered = [s.challenge["seat"] for s in squatters]
            assert offered == [0, None, None, None, None, None], offered
            async with await RawClient.connect(url, source="127.0.0.2") as joiner:
                assert joiner.challenge["seat"] == 1
        finally:
            for raw in squatters:
                await raw.close()


async def test_a_spectator_that_never_syncs_is_closed_and_one_that_does_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Spectator sockets lived for ever. A spectator must show now and then that it follows
    the table (a `sync`, which honest clients send every 30 s); one that does not is closed."""
    monkeypatch.setattr(client_core, "SPECTATOR_KEEPALIVE", 0.2)
    limits = Limits(spectator_idle=1.0)
    async with hosted(tmp_path / "h", limits=limits) as (service, table):
        url = url_of(service, table)
        silent = await RawClient.connect(url + "?spectate=1")
        async with silent:
            await silent.send({"type": "spectate"})
            await silent.recv_type("welcome")
            silent_id = max(table.server.connections)
            watcher = ClientSession(key=key(12), name="watcher", home=None, mode="spectate")
            watching = asyncio.create_task(run_websocket(watcher, url))
            try:
                assert await until(lambda: watcher.connected, 5)
                (watcher_id,) = set(table.server.connections) - {silent_id}
                frames = await silent.closed(timeout=4)
                assert frames[-1]["type"] == "closing", frames
                assert frames[-1]["reason"] == "idle" and "no sync" in frames[-1]["detail"]
                await asyncio.sleep(0.5)
                # The honest watcher kept the very connection it opened.
                assert set(table.server.connections) == {watcher_id} and watcher.connected
            finally:
                watching.cancel()
                await asyncio.gather(watching, return_exceptions=True)


async def test_a_watcher_that_arrives_mid_game_fetches_the_log_before_it_for_free(
    tmp_path: Path,
) -> None:
    """The budget is for entries asked for again: a spectator (or a returning player) that is
    sent new entries before it asks for the log it missed gets that log, even when asking
    again for the new ones is over its budget."""
    limits = Limits(sync_resend_burst=512, sync_resend_rate=1.0)  # any resend is refused
    rules = Rules(seats=2)
    async with hosted(tmp_path / "h", rules=rules, cpu=["medium", "medium"], limits=limits) as (
        service,
        table,
    ):
        assert await until(lambda: len(table.host.entries) >= 8, 10)
        async with await RawClient.connect(url_of(service, table) + "?spectate=1") as raw:
            await raw.send({"type": "spectate"})
            await raw.recv_type("welcome")
            first = (await raw.recv_type("entry"))["entry"]["seq"]  # a broadcast, mid-game
            assert first >= 8 and table.host.phase != "over"
            await raw.send({"from": 0, "type": "sync"})
            seen = {first}
            while not set(range(first)) <= seen:  # bounded: recv_type times out
                seen.add((await raw.recv_type("entry"))["entry"]["seq"])
            assert [e["reason"] for e in raw.errors()] in ([], ["RATE_LIMITED"])
