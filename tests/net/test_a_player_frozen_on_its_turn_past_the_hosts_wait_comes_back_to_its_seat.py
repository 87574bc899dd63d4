"""A laptop that sleeps on its own turn: a real `p2pdice join --bot`, frozen with SIGSTOP while
the table waits for its bid, for longer than its `--give-up` and than the host's heartbeat
(the host finds it gone and closes its connection). Once it runs again, its client finds the
connection gone and reconnects as after a network cut: the time it slept is not the host's
silence. It syncs what the table did meanwhile and plays on, or follows, to the end, holding
the host's log byte for byte.

- Within the host's grace period the seat is kept: it makes its own move and plays the game
  out, and the host never acted for it.
- Past the host's wait (grace period 5 s) the host declared it absent and moved for it; the
  client takes in the host's moves and the rest of the game.

Before, the client measured the host's silence from the last entry it had verified: on its own
turn the table posts nothing while it waits for it, and the sleep came on top, so on waking it
gave up at once ("the host stopped answering", exit 3) without a single try."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.net.test_fault_injection import HOST_ACTS, its_turn, verified, wait_exit
from tests.support.faults import body, frozen, kind, log_entries, sent_records, until, walk_to
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_host, stop

pytestmark = pytest.mark.usefixtures("private_network")

GIVE_UP = 10  #: the sleeper's --give-up: shorter than its sleep
#: Longer than the host takes to find a silent client gone (a ping 15 s after its last frame,
#: unanswered for 7.5 s), so the sleeper wakes to a closed connection.
PAST_THE_HEARTBEAT = 27.0


@dataclass
class Slept:
    seat: int
    slept: float  #: seconds it was frozen on its turn
    round: int  #: the round it fell asleep in
    entries: list[dict[str, Any]]  #: the host's log at the end
    log: bytes
    folder: Path  #: the sleeper's table folder
    out: str  #: what its `join` printed


async def _asleep_on_its_turn(
    tmp_path: Path, *, grace: int, sleep: float, wake_when: Callable[[int, Path], bool]
) -> Slept:
    """A two-seat headless host (one CPU) and Ann, a `join --bot` process: Ann is walked to her
    turn past round 1 and frozen there for `sleep` seconds, and then until `wake_when(seat,
    host log)` holds; then she runs again, and must finish her game (status 0)."""
    host, ready = start_host(
        "--headless", "--seats", "2", "--cpu", "1", "--grace-period", str(grace),
        "--cpu-think", "0.5", "--no-advertise", "--bind", "127.0.0.1",
        "--home", str(tmp_path / "h"),
    )  # fmt: skip
    address = f"127.0.0.1:{ready['port']}"
    home, out = tmp_path / "ann", tmp_path / "ann.out"
    ann: subprocess.Popen[str] | None = None
    loop = asyncio.get_running_loop()
    try:
        ann = spawn(*bot_join(address, name="Ann", seed=3, home=home, give_up=GIVE_UP), log=out)
        folder = home / "tables" / ready["table_id"]
        await until(lambda: (folder / "seat.json").exists(), 20, "Ann's seat")
        seat = json.loads((folder / "seat.json").read_text())["seat"]
        hlog = host_log(tmp_path / "h")
        with frozen(ann):
            _, state = await walk_to(ann, hlog, folder, its_turn(seat))
            asleep = loop.time()
            await asyncio.sleep(sleep)
            await until(lambda: wake_when(seat, hlog), 90, "the moment to wake Ann")
            slept = loop.time() - asleep
        await wait_exit(ann, 180, out)
        host.wait(30)
    finally:
        kill_all(ann)
        stop(host)
    assert state.game is not None
    return Slept(
        seat=seat,
        slept=slept,
        round=state.game.round,
        entries=log_entries(hlog),
        log=hlog.read_bytes(),
        folder=folder,
        out=out.read_text(),
    )


def _holds_the_hosts_log(run: Slept) -> None:
    assert run.slept > GIVE_UP
    assert "stopped answering" not in run.out, run.out
    assert (run.folder / "transcript.jsonl").read_bytes() == run.log
    report = verified(run.log, mine=sent_records(run.folder))
    assert report.mine_pending == 0


async def test_a_player_asleep_on_its_turn_past_give_up_reconnects_and_plays_its_seat_to_the_end(
    tmp_path: Path,
) -> None:
    run = await _asleep_on_its_turn(
        tmp_path, grace=120, sleep=PAST_THE_HEARTBEAT, wake_when=lambda seat, log: True
    )
    _holds_the_hosts_log(run)
    # The seat was Ann's all along: the host never acted for it...
    acts = [body(e) for e in run.entries if kind(e) in HOST_ACTS]
    assert acts == [], acts
    # ... and her own move, in the round she slept in, is in the log.
    assert any(
        "msg" in e and body(e)["seat"] == run.seat and body(e).get("round") == run.round
        and body(e)["type"] in ("bid", "challenge")
        for e in run.entries
    )  # fmt: skip


def _moved_for(seat: int, log: Path) -> bool:
    return any(kind(e) == "forced" and body(e)["seat"] == seat for e in log_entries(log))


async def test_a_player_asleep_on_its_turn_past_the_hosts_wait_reconnects_and_takes_in_its_moves(
    tmp_path: Path,
) -> None:
    run = await _asleep_on_its_turn(tmp_path, grace=5, sleep=GIVE_UP + 1, wake_when=_moved_for)
    _holds_the_hosts_log(run)
    kinds = [(kind(e), body(e).get("seat")) for e in run.entries]
    forced = kinds.index(("forced", run.seat))
    assert ("absent", run.seat) in kinds[:forced]  # the host moved on without her
