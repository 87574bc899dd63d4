"""kill -9 of a client mid-round, then a restart on the same --home (issue 5, item 7).

The host is a real `p2pdice host` process and the victim a real `p2pdice join` process, so
the restarted client must reconnect over the socket, authenticate with its saved key, catch
up from its own verified transcript and resend (or newly send) what the round still needs.
A third seat is played inside the test by a ClientSession whose outgoing frames can be held
back: that pins the table in the phase we want to crash in (the host waits for that seat),
so each kill lands exactly where its name says, not wherever a race put it.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from p2pdice.bots.registry import load_bot
from p2pdice.core.verify import split_lines, verify_lines
from p2pdice.net.client import Outcome, run_websocket
from p2pdice.net.session import ClientSession
from p2pdice.store import load_or_create_key
from tests.support.faults import (
    body,
    kill9,
    kind,
    log_entries,
    sent_bodies,
    sent_records,
    until,
)
from tests.support.procs import bot_join, host_log, kill_all, spawn, start_headless_host, stop

pytestmark = pytest.mark.usefixtures("private_network")


@dataclass
class Gate:
    """Holds a session's outgoing frames from the first one `catch` matches until released."""

    session: ClientSession
    catch: Callable[[dict[str, Any]], bool]
    held: list[str] = field(default_factory=list)
    holding: bool = False
    used: bool = False
    caught: asyncio.Event = field(default_factory=asyncio.Event)

    def __post_init__(self) -> None:
        self._send = self.session._send_frame
        self.session._send_frame = self._gated  # type: ignore[method-assign]

    def _gated(self, frame: str) -> None:
        if not self.used and not self.holding and self.catch(json.loads(frame)):
            self.holding = True
            self.caught.set()
        if self.holding:
            self.held.append(frame)
        else:
            self._send(frame)

    def release(self) -> None:
        self.holding, self.used = False, True
        for frame in self.held:
            self._send(frame)
        self.held.clear()


def seat_holder(
    tmp_path: Path, ready: dict[str, Any], catch: Callable[[dict[str, Any]], bool]
) -> tuple[ClientSession, Gate, asyncio.Task[str]]:
    """The third seat, played in the test by `medium`, its frames held from the first that
    `catch` matches: the holder, its gate and its game."""
    holder = ClientSession(
        key=load_or_create_key(tmp_path / "holder" / "identity.key"),
        name="holder",
        home=tmp_path / "holder",
        bot=load_bot("medium"),
        rng=random.Random(4),
    )
    gate = Gate(holder, catch)
    playing = asyncio.create_task(
        run_websocket(holder, f"wss://127.0.0.1:{ready['port']}{ready['path']}", give_up_after=60)
    )
    return holder, gate, playing


async def reconnected_then_released(
    holder: ClientSession, gate: Gate, seat: int, status_before: object
) -> None:
    """No entry is posted while the table is pinned, so the next status frame the holder
    gets is the one the victim's reconnection (its `welcome`) causes: then the holder's
    frames go."""
    await until(
        lambda: holder.status is not status_before and seat in holder.status.connected,
        20,
        "the victim's reconnection",
    )
    gate.release()


def tear_down(
    host: subprocess.Popen[str],
    holder: ClientSession,
    playing: asyncio.Task[str],
    *victims: subprocess.Popen[str] | None,
) -> None:
    kill_all(*victims)
    if not playing.done():
        playing.cancel()
    holder.close()
    stop(host)


def table_story(tmp_path: Path, victim_out: str) -> str:
    """What a failed wait leaves to read: the last entries the host posted and the victim's
    own output (a load-starved run is told apart from a stuck table by these)."""
    kinds = [kind(e) for e in log_entries(host_log(tmp_path / "h"))]
    out = tmp_path / victim_out
    said = out.read_text()[-3000:] if out.exists() else "(no output)"
    return f"host log ends {kinds[-12:]} ({len(kinds)} entries); the victim said:\n{said}"


def commit_of_round(n: int) -> Callable[[dict[str, Any]], bool]:
    def match(frame: dict[str, Any]) -> bool:
        body = frame.get("msg", {}).get("body", {}) if frame["type"] == "send" else {}
        return body.get("type") == "commit" and body.get("round") == n

    return match


PHASES = ["committed", "contributed", "bidding", "beacon"]


#: Games played for one test: the bidding hold needs a round in which the holder acts after
#: the victim's bid, and now and then a whole game passes without one.
ATTEMPTS = 3


@pytest.mark.parametrize("phase", PHASES)
async def test_a_client_killed_mid_round_restarts_and_finishes_the_game(
    tmp_path: Path, phase: str
) -> None:
    for attempt in range(ATTEMPTS):
        if await crash_and_restart(tmp_path / f"game-{attempt}", phase):
            return
    pytest.fail(f"{ATTEMPTS} games ended before the {phase} hold came")


async def crash_and_restart(tmp_path: Path, phase: str) -> bool:
    """One game: the victim killed in `phase` and restarted, and everything checked. False
    when the game ended before the moment to kill came (nothing was killed)."""
    tmp_path.mkdir()
    host, ready = start_headless_host(tmp_path / "h")
    table_id = ready["table_id"]
    victim_home = tmp_path / "victim"
    folder = victim_home / "tables" / table_id
    join_args = bot_join(f"127.0.0.1:{ready['port']}", name="victim", seed=3, home=victim_home)

    def victim_bid_in(round_: int) -> bool:
        return any(m["type"] == "bid" and m.get("round") == round_ for m in sent_bodies(folder))

    def holder_action_after_victim_bid(frame: dict[str, Any]) -> bool:
        body = frame.get("msg", {}).get("body", {}) if frame["type"] == "send" else {}
        return (
            body.get("type") in ("bid", "challenge", "exact")
            and body.get("round", 0) >= 2
            and victim_bid_in(body["round"])
        )

    catch = {
        "committed": commit_of_round(2),
        "contributed": lambda f: (
            f["type"] == "send"
            and f["msg"]["body"]["type"] == "contribute"
            and f["msg"]["body"]["round"] == 2
        ),
        "bidding": holder_action_after_victim_bid,
        "beacon": lambda f: False,  # no hold: the kill races the table
    }[phase]
    holder, gate, playing = seat_holder(tmp_path, ready, catch)
    victim = spawn(*join_args, log=tmp_path / "victim-1.out")
    restarted: subprocess.Popen[str] | None = None
    try:
        await until(lambda: (folder / "seat.json").exists(), 20, "seat")
        seat_file = folder / "seat.json"
        seat_before = seat_file.read_bytes()
        seat = json.loads(seat_before)["seat"]

        if phase == "beacon":
            # The issue's recipe: once the victim has verified round 2's beacon, kill it.
            await until(
                lambda: any(
                    kind(e) == "beacon" and e["event"]["round"] >= 2
                    for e in log_entries(folder / "transcript.jsonl")
                ),
                60,
                "a beacon of round 2 in the victim's transcript",
            )
        else:
            try:
                await until(lambda: gate.caught.is_set() or playing.done(), 90, f"the {phase} hold")
            except AssertionError:
                raise AssertionError(table_story(tmp_path, "victim-1.out")) from None
            if not gate.caught.is_set():
                # Every round's bidding ended before the holder acted after a victim's bid.
                assert playing.result() == Outcome.OVER, table_story(tmp_path, "victim-1.out")
                return False
            mine = {
                "committed": "commit",
                "contributed": "contribute",
                "bidding": "bid",
            }[phase]
            await until(
                lambda: any(
                    m["type"] == mine and m.get("round", 0) >= 2 for m in sent_bodies(folder)
                ),
                20,
                f"the victim's {mine} of round 2",
            )
            await asyncio.sleep(0.2)  # let it reach the host
        kill9(victim)
        at_kill = log_entries(host_log(tmp_path / "h"))
        assert kind(at_kill[-1]) != "game_over"
        if phase != "beacon":
            # The table is pinned where we wanted it: the holder's move is still held back.
            assert gate.holding and gate.held
            expected_last = {
                "committed": "round",
                "contributed": "commit_set",
                "bidding": "bid",
            }[phase]
            assert kind(at_kill[-1]) == expected_last, [kind(e) for e in at_kill[-3:]]

        status_before = holder.status
        restarted = spawn(*join_args, log=tmp_path / "victim-2.out")
        await reconnected_then_released(holder, gate, seat, status_before)
        await asyncio.to_thread(restarted.wait, 90)
        output = (tmp_path / "victim-2.out").read_text()
        assert restarted.returncode == 0, output
        assert "verified transcript:" in output
        outcome = await asyncio.wait_for(playing, 30)
        assert outcome == Outcome.OVER
        host.wait(15)
    finally:
        tear_down(host, holder, playing, victim, restarted)

    assert seat_file.read_bytes() == seat_before
    log = host_log(tmp_path / "h").read_bytes()
    assert (folder / "transcript.jsonl").read_bytes() == log
    assert holder.store is not None and holder.store.transcript_path.read_bytes() == log
    lines, problem = split_lines(log)
    assert problem is None
    report = verify_lines(lines, mine=sent_records(folder))
    assert report.ok, report.failure and report.failure.describe()
    assert report.mine_checked > 0 and report.mine_pending == 0
    # Nothing was thrown away for the crash: no abort, no absence, no forfeit, no stand-in.
    kinds = [kind(e) for e in log_entries(host_log(tmp_path / "h"))]
    for bad in ("abort", "absent", "forfeit", "stand_in", "forced"):
        assert bad not in kinds, (bad, kinds)
    return True


async def test_a_client_restarted_without_its_secrets_says_so_and_follows_the_game_to_its_end(
    tmp_path: Path,
) -> None:
    """The victim is killed in the bidding, as above, and its secrets for that round are
    deleted before it starts again (a damaged disk, a hand that cleaned up): it cannot show
    its dice at the call. It says that the loss is its own, raises no alarm about the host,
    and follows the game to its end; the forfeit the rules give for an unopened hand is
    explained by the lost secrets."""
    for attempt in range(ATTEMPTS):
        if await restart_without_secrets(tmp_path / f"game-{attempt}"):
            return
    pytest.fail(f"{ATTEMPTS} games ended before the bidding hold came")


async def restart_without_secrets(tmp_path: Path) -> bool:
    tmp_path.mkdir()
    host, ready = start_headless_host(tmp_path / "h", grace=5)
    folder = tmp_path / "victim" / "tables" / ready["table_id"]
    join_args = bot_join(
        f"127.0.0.1:{ready['port']}", name="victim", seed=3, home=tmp_path / "victim"
    )

    def after_victim_bid(frame: dict[str, Any]) -> bool:
        body = frame.get("msg", {}).get("body", {}) if frame["type"] == "send" else {}
        return body.get("type") in ("bid", "challenge", "exact") and any(
            m["type"] == "bid" and m.get("round") == body.get("round") for m in sent_bodies(folder)
        )

    holder, gate, playing = seat_holder(tmp_path, ready, after_victim_bid)
    victim = spawn(*join_args, log=tmp_path / "victim-1.out")
    restarted: subprocess.Popen[str] | None = None
    try:
        await until(lambda: gate.caught.is_set() or playing.done(), 90, "the bidding hold")
        if not gate.caught.is_set():
            assert playing.result() == Outcome.OVER, table_story(tmp_path, "victim-1.out")
            return False
        await asyncio.sleep(0.2)  # the victim's bid reaches the host
        kill9(victim)
        held_round = json.loads(gate.held[0])["msg"]["body"]["round"]
        lost = list((folder / "secrets").glob(f"{held_round}-*.json"))
        assert lost
        for path in lost:
            path.unlink()
        status_before = holder.status
        restarted = spawn(*join_args, log=tmp_path / "victim-2.out")
        seat = json.loads((folder / "seat.json").read_text())["seat"]
        await reconnected_then_released(holder, gate, seat, status_before)
        await asyncio.to_thread(restarted.wait, 120)
        output = (tmp_path / "victim-2.out").read_text()
        assert restarted.returncode == 0, output
        assert await asyncio.wait_for(playing, 30) == Outcome.OVER
        host.wait(15)
    finally:
        tear_down(host, holder, playing, victim, restarted)
    assert f"note: this device lost its secrets for round {held_round}" in output, output
    assert "Nobody at the table is at fault" in output and "ALARM" not in output, output
    assert "verified transcript:" in output, output
    entries = log_entries(host_log(tmp_path / "h"))
    in_round = [e for e in entries if body(e).get("round") == held_round]
    if any(kind(e) == "forfeit" and body(e)["reason"] == "no_opening" for e in in_round):
        assert "lost its secrets for that round" in output, output
    else:  # the opened hands decided the round without the victim's dice
        assert any(kind(e) == "result" for e in in_round), [kind(e) for e in in_round]
    return True
