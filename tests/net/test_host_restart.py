"""A host killed with SIGKILL (no goodbye, no game-over entry) and restarted on its saved log
resumes the table; the players' clients reconnect on their own and the game finishes."""

from __future__ import annotations

import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.net.hostapp import HostedTable
from p2pdice.store import AppendLog, unfinished_hosted_tables
from tests.support import tmux
from tests.support.procs import (
    host_log,
    kill_all,
    p2pdice,
    spawn,
    start_host,
    stop,
    transcript_files,
)

pytestmark = pytest.mark.usefixtures("private_network")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_lines(path: Path, count: int, timeout: float = 30.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        have = len(AppendLog.read(path)) if path.exists() else 0
        if have >= count:
            return have
        time.sleep(0.01)
    raise AssertionError(f"{path} never reached {count} lines")


@pytest.mark.parametrize(("kill_at", "torn"), [(14, False), (45, True)])
def test_a_host_killed_mid_game_resumes_from_its_log(
    tmp_path: Path, kill_at: int, torn: bool
) -> None:
    """With `torn`, the kill also left half an entry at the log's end (as a crash mid-write
    does): the resumed host drops it and says so."""
    port = free_port()
    common = [
        "--headless",
        "--seats",
        "3",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "--no-advertise",
    ]
    host, ready = start_host(*common, "--cpu", "2", "--home", str(tmp_path / "h"))
    log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    player = spawn(
        "join",
        f"127.0.0.1:{port}",
        "--bot",
        "medium",
        "--seed",
        "4",
        "--give-up",
        "30",
        "--home",
        str(tmp_path / "p"),
        log=tmp_path / "player.out",
    )
    try:
        killed_at = wait_for_lines(log, kill_at)
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=10)
        saved = AppendLog.read(log)
        assert len(saved) >= killed_at and b'"game_over"' not in saved[-1]
        if torn:
            with log.open("ab") as handle:
                handle.write(b'{"entry":{"seq":')
        again = spawn(
            *["host", "--resume", ready["table_id"], *common, "--home", str(tmp_path / "h")],
            log=tmp_path / "resumed.out",
        )
        try:
            assert player.wait(timeout=120) == 0, (tmp_path / "player.out").read_text()
        finally:
            stop(again)
        said = (tmp_path / "resumed.out").read_text()
        note = "note: the saved log ended in an incomplete line (16 bytes"
        assert (note in said) == torn, said
        assert (f"resumes after entry {len(saved) - 1}" in said) == torn, said
    finally:
        stop(host)
        if player.poll() is None:
            player.kill()
    host_lines = AppendLog.read(host_log(tmp_path / "h"))
    mine = transcript_files(tmp_path / "p")[0]
    assert mine.read_bytes() == log.read_bytes()
    assert host_lines[: len(saved)] == saved  # the restarted host extended the same log
    lines, problem = split_lines(mine.read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok and report.ended == "finished", report.failure


class Squatter:
    """Another program on a port: it accepts each connection and hangs up at once."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.done = threading.Event()
        self.thread: threading.Thread | None = None

    def take(self, port: int) -> None:
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # past TIME_WAIT
        self.sock.bind(("0.0.0.0", port))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.done.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            conn.close()

    def close(self) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join(timeout=5)
        self.sock.close()


def _player(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    return spawn(
        "join", f"127.0.0.1:{port}", "--bot", "medium", "--seed", "7", "--give-up", "40",
        "--home", str(tmp_path / "p"), log=tmp_path / "player.out",
    )  # fmt: skip


def _finished_and_identical(tmp_path: Path, log: Path) -> None:
    mine = transcript_files(tmp_path / "p")[0]
    assert mine.read_bytes() == log.read_bytes()
    lines, problem = split_lines(mine.read_bytes())
    assert problem is None
    report = verify_lines(lines)
    assert report.ok and report.ended == "finished", report.failure


def test_sigterm_pauses_the_table_and_resume_listens_on_the_same_port(tmp_path: Path) -> None:
    """SIGTERM (a shutdown, the laptop's lid) leaves the game resumable, not ended early; the
    resumed host listens on its saved port, where the player's client is still knocking."""
    common = ["--headless", "--seats", "2", "--cpu", "1", "--home", str(tmp_path / "h")]
    host, ready = start_host(*common)
    log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    player = _player(tmp_path, ready["port"])
    again = None
    try:
        wait_for_lines(log, 14)
        out = stop(host)  # SIGTERM
        assert host.returncode == 0 and "paused" in out, out
        assert not any(b'"game_over"' in line for line in AppendLog.read(log)), out
        assert [t.table_id for t in unfinished_hosted_tables(tmp_path / "h")] == [ready["table_id"]]
        again, resumed = start_host("--resume", ready["table_id"], *common)
        assert resumed["port"] == ready["port"]
        assert player.wait(timeout=90) == 0, (tmp_path / "player.out").read_text()
    finally:
        kill_all(host, player, again)
    _finished_and_identical(tmp_path, log)
    assert unfinished_hosted_tables(tmp_path / "h") == []  # a finished game is not offered


def test_a_resumed_host_on_a_new_port_is_found_again_by_table_id(tmp_path: Path) -> None:
    """kill -9, and the saved port is taken meanwhile: the host comes back on another port
    and re-advertises; the player, who joined by address, finds the table by its id."""
    common = ["--headless", "--seats", "2", "--cpu", "1", "--home", str(tmp_path / "h")]
    host, ready = start_host(*common)
    log = tmp_path / "h" / "hosted" / ready["table_id"] / "log.jsonl"
    player = _player(tmp_path, ready["port"])
    again = None
    squatter = Squatter()
    try:
        wait_for_lines(log, 14)
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=10)
        squatter.take(ready["port"])
        again, resumed = start_host("--resume", ready["table_id"], *common)
        assert resumed["port"] != ready["port"] and resumed["advertised"]
        assert player.wait(timeout=90) == 0, (tmp_path / "player.out").read_text()
    finally:
        squatter.close()
        kill_all(host, player, again)
    _finished_and_identical(tmp_path, log)


@pytest.mark.skipif(tmux.TMUX is None, reason="tmux is not installed")
def test_ctrl_c_in_the_hosts_terminal_pauses_its_game(tmp_path: Path) -> None:
    """Ctrl-C (not a chosen `q` leave) leaves the hosted game resumable, offered by the lobby."""
    home = tmp_path / "h"
    t = tmux.Tmux()
    command = ["env", f"P2PDICE_HOME={home}", *p2pdice("host", "--seats", "2", "--cpu", "1")]
    try:
        t.start(command, stderr=tmp_path / "stderr.txt")
        t.wait_for(lambda s: "Your dice (" in s, 20, "the game under way")
        t.keys("C-c")
        t.wait_for(lambda s: "Your dice (" not in s, 10, "the program ending")
        time.sleep(0.5)
    finally:
        t.kill()
    assert not any(b'"game_over"' in line for line in AppendLog.read(host_log(home)))
    assert [t.name for t in unfinished_hosted_tables(home)] == ["p2pdice table"]


def test_a_table_being_hosted_is_neither_offered_nor_resumed_twice(tmp_path: Path) -> None:
    """Two hosts of one table would fork its log: while one runs, `--resume` refuses and the
    lobby does not offer it; once it is killed, both do."""
    common = ["--headless", "--seats", "2", "--home", str(tmp_path / "h"), "--no-advertise"]
    host, ready = start_host(*common)
    try:
        twice = subprocess.run(
            p2pdice("host", "--resume", ready["table_id"], *common),
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert twice.returncode == 2 and "already being hosted" in twice.stderr, twice
        assert unfinished_hosted_tables(tmp_path / "h") == []
        host.send_signal(signal.SIGKILL)
        host.wait(timeout=10)
        assert [t.table_id for t in unfinished_hosted_tables(tmp_path / "h")] == [ready["table_id"]]
    finally:
        kill_all(host)


async def test_a_copied_advertisement_does_not_cost_a_player_the_table(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """While the host is down, another host advertises our table's id and host key: the
    client follows the advertisement, meets another table, passes it over (no fatal error)
    and is back at its seat when the real host returns."""
    import asyncio
    import logging

    from p2pdice.core.rules import Rules
    from p2pdice.net.client import run_websocket
    from p2pdice.net.discovery import Advertiser, new_zeroconf
    from p2pdice.net.hostapp import HostService, TableConfig
    from p2pdice.net.session import ClientSession
    from p2pdice.store import load_or_create_key

    async def until(predicate, timeout: float, what: str) -> None:
        deadline = asyncio.get_running_loop().time() + timeout
        while not predicate():
            assert asyncio.get_running_loop().time() < deadline, what
            await asyncio.sleep(0.05)

    caplog.set_level(logging.WARNING, logger="p2pdice.client")
    real = HostService(home=tmp_path / "real", bind="127.0.0.1", advertise=False)
    await real.start()
    table = await real.open_table(TableConfig(name="real", rules=Rules(seats=2)))
    txt, port = table.txt(), real.port
    session = ClientSession(
        key=load_or_create_key(tmp_path / "p" / "identity.key"), name="Pat", home=tmp_path / "p"
    )
    link = asyncio.create_task(
        run_websocket(session, f"wss://127.0.0.1:{port}{table.path}", give_up_after=30)
    )
    other = HostService(home=tmp_path / "other", bind="127.0.0.1", advertise=False)
    azc = new_zeroconf()
    advertiser = None
    again = None
    try:
        await until(lambda: session.connected and session.seat is not None, 10, "seated")
        seat = session.seat
        await real.stop(end_games=False)
        await other.start()
        decoy = await other.open_table(TableConfig(name="decoy", rules=Rules(seats=2)))
        other.tables[table.id] = decoy  # another table, served under our table's path
        advertiser = Advertiser(azc, name="real", port=other.port, addresses=["127.0.0.1"], txt=txt)
        await advertiser.start()
        await until(lambda: "passing it over" in caplog.text or link.done(), 30, "the decoy")
        assert not link.done(), f"the client stopped: {link.result()} {session.fatal}"
        assert session.fatal is None
        again = HostService(home=tmp_path / "real", bind="127.0.0.1", port=port, advertise=False)
        await again.start()
        await again.open_table(
            TableConfig(name="real", rules=Rules(seats=2)),
            resume_lines=AppendLog.read(table.folder / "log.jsonl"),
        )
        await until(lambda: session.connected, 20, "back at the real table")
        assert session.fatal is None and session.seat == seat and not link.done()
    finally:
        link.cancel()
        await asyncio.gather(link, return_exceptions=True)
        if advertiser is not None:
            await advertiser.stop()
        await azc.async_close()
        for service in (other, again):
            if service is not None:
                await service.stop()
        session.close()


async def _some_rounds_played(table: HostedTable) -> None:
    """Until two host-run CPUs at `table` have played its first rounds, at
    most 5 s; the game is still on."""
    import asyncio

    from p2pdice.core.table import TablePhase

    for _ in range(500):
        if len(table.host.entries) > 20:
            break
        await asyncio.sleep(0.01)
    assert table.host.phase != TablePhase.OVER


async def test_a_pausing_table_stops_where_it_stands(tmp_path: Path) -> None:
    """Two host-run CPUs play at full speed; the host pauses (SIGTERM's path). The table
    must stop at once: before, it played on through the slow parts of the shutdown (the
    mDNS goodbye, stopping the CPU seats) and under load even posted game_over after
    saying it paused."""
    import asyncio

    from p2pdice.core.rules import Rules
    from p2pdice.core.table import TablePhase
    from tests.support.wire import hosted

    rules = Rules(seats=2, starting_dice=5)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (_, table):
        await _some_rounds_played(table)
        at_pause = len(table.host.entries)
        log = table.folder / "log.jsonl"
        await table.close(end_game=False)
        await asyncio.sleep(0.5)  # a table still running would go on here
        assert len(table.host.entries) == at_pause
        assert len(AppendLog.read(log)) == at_pause
        assert table.host.phase != TablePhase.OVER


async def test_a_paused_table_takes_no_step_when_its_links_close(tmp_path: Path) -> None:
    """Pausing closes every link, the host-run CPUs' included. A closed link is a step of the
    table (it runs the host's clock, which may post a forced move or a result), so on a paused
    table it must do nothing: what the resumed host reads is where play stopped. Under load
    the test above saw two entries posted after the pause this way."""

    from p2pdice.core.rules import Rules
    from tests.support.wire import hosted

    rules = Rules(seats=2, starting_dice=5)
    async with hosted(tmp_path / "h", rules=rules, cpu=["easy", "easy"]) as (_, table):
        await _some_rounds_played(table)
        table.server.freeze()
        at_pause = len(table.host.entries)
        gone = dict(table.host.waits.gone_since)
        for client in list(table.cpu_clients.values()):
            await client.stop()  # their links close while the table is paused
        assert table.host.waits.gone_since == gone  # no step ran for a closed link
        assert len(table.host.entries) == at_pause
        await table.close(end_game=False)
        assert len(table.host.entries) == at_pause
