"""An evening on three machines of one LAN (namespaces on a bridge), real processes only.

A headless host opens a table for six with two CPU seats of its own at different levels
(easy, hard) that starts once four seats are taken; two friends find it by name over mDNS
(`join evening --bot`) and sit down, which starts it with the four, the two empty seats left
out. Mid-game one friend's process is killed with SIGKILL and started again on the same
home: it takes its seat back before the grace period ends. Then the host is paused (SIGTERM,
a headless host's pause) and resumed from its log (`host --resume`); the friends, who give up
on a silent host after a few seconds, wait through a pause longer than that because they were
told the table was paused. The game finishes; the host log and both friends' transcripts are
the same lines, each verifies and all three verify together with `p2pdice verify`, and the
start entry is accepted by the generator's own reading of SPEC.md 3.3 (protocol/gen_vectors.py),
over a chain that reading checks too."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.store import AppendLog
from tests.support import netns
from tests.support.procs import (
    host_log,
    kill_all,
    p2pdice,
    spawn,
    start_host,
    transcript_files,
    wait_until,
)
from tests.support.start_reading import independent_reading, joins_before

pytestmark = pytest.mark.usefixtures("private_network")

TABLE = "evening"
#: Seconds without the host after which a friend's client gives up on a table that was not
#: paused: shorter than the pause below, so a friend still there afterwards was told "paused".
GIVE_UP = 4
PAUSE = 8.0


def friend(name: str, seed: int, home: Path, ns: str, out: Path) -> subprocess.Popen[str]:
    """A friend on their own machine, found the table by its name and played by a bot."""
    return spawn(
        "join", TABLE, "--bot", "easy", "--name", name, "--seed", str(seed),
        "--timeout", "15", "--give-up", str(GIVE_UP), "--home", str(home),
        netns=ns, log=out,
    )  # fmt: skip


def events(lines: list[bytes]) -> list[dict]:
    return [json.loads(line).get("event") or {} for line in lines]


def test_an_evening_of_a_table_for_six_with_a_crash_and_a_pause_ends_in_one_verified_game(
    tmp_path: Path,
) -> None:
    began = time.monotonic()
    homes = {who: tmp_path / who for who in ("host", "ann", "bea")}
    table = (
        "--headless", "--name", TABLE, "--seats", "6", "--cpu", "1:easy,1:hard",
        "--start-when", "4", "--starting-dice", "2", "--grace-period", "60",
        "--home", str(homes["host"]),
    )  # fmt: skip
    procs: list[subprocess.Popen[str] | None] = []
    with netns.lan() as (at_host, at_ann, at_bea):
        try:
            host, ready = start_host(*table, netns=at_host, timeout=30)
            procs.append(host)
            assert ready["advertised"] is True
            ann = friend("Ann", 1, homes["ann"], at_ann, tmp_path / "ann.out")
            bea = friend("Bea", 2, homes["bea"], at_bea, tmp_path / "bea.out")
            procs += [ann, bea]

            def host_lines() -> list[bytes]:
                logs = sorted(homes["host"].glob("hosted/*/log.jsonl"))
                return AppendLog.read(logs[0]) if logs else []

            def rounds_played() -> int:
                return sum(1 for e in events(host_lines()) if e.get("type") == "round")

            wait_until(lambda: rounds_played() >= 1, 40, "first round")
            start = next(e for e in events(host_lines()) if e.get("type") == "start")
            roster = start["roster"]
            assert len(roster) == 4, roster
            cpus = [s["name"] for s in roster if s["host_run"]]
            assert sorted(cpus) == ["CPU easy 1", "CPU hard 2"], roster
            assert sorted(s["name"] for s in roster if not s["host_run"]) == ["Ann", "Bea"]
            ann_seat = next(s["seat"] for s in roster if s["name"] == "Ann")

            # Ann's laptop dies mid-game; she starts the same command again on the same home.
            ann.send_signal(signal.SIGKILL)
            ann.wait(10)
            assert len(transcript_files(homes["ann"])) == 1
            time.sleep(0.5)  # a move already on its way from the dead process lands first
            before = len(host_lines())
            ann = friend("Ann", 1, homes["ann"], at_ann, tmp_path / "ann-again.out")
            procs.append(ann)

            def ann_moved_again() -> bool:
                later = [json.loads(x) for x in host_lines()[before:]]
                return any(
                    (e.get("msg") or {}).get("body", {}).get("seat") == ann_seat for e in later
                )

            wait_until(ann_moved_again, 40, "move by Ann back in her seat")

            # The host pauses the table, and resumes it after longer than a friend would wait
            # for a host that merely fell silent.
            assert host_lines() and events(host_lines()[-1:])[0].get("type") != "game_over"
            host.send_signal(signal.SIGTERM)
            out, _ = host.communicate(timeout=20)
            assert "table paused" in out, out
            time.sleep(PAUSE)
            assert ann.poll() is None and bea.poll() is None, "a friend gave up on the pause"
            again, _ = start_host("--resume", ready["table_id"], *table, netns=at_host, timeout=30)
            procs.append(again)

            wait_until(
                lambda: events(host_lines()[-1:])[0].get("type") == "game_over", 60, "game over"
            )
            for who, proc in (("ann", ann), ("bea", bea)):
                proc.wait(30)
                said = (tmp_path / f"{'ann-again' if who == 'ann' else who}.out").read_text()
                assert proc.returncode == 0, said
                assert "ALARM" not in said and "verified transcript" in said, said
                # Told in words, and told when it was back.
                assert "the host paused the table; it can be resumed" in said, said
                assert "the host is back" in said, said
        finally:
            kill_all(*procs)

    lines = AppendLog.read(host_log(homes["host"]))
    theirs = {}
    for who in ("ann", "bea"):
        (path,) = transcript_files(homes[who])
        theirs[who] = path
        assert AppendLog.read(path) == lines, f"{who}'s transcript is not the host's"
    game_events = events(lines)
    assert game_events[-1]["type"] == "game_over" and game_events[-1].get("reason") != "abandoned"
    # Ann came back within the grace period: her seat was never handed to a stand-in.
    assert not any(e.get("type") in ("stand_in", "absent") for e in game_events)

    files = [str(host_log(homes["host"])), str(theirs["ann"]), str(theirs["bea"])]
    for args in ([*files], *([f] for f in files)):
        done = subprocess.run(p2pdice("verify", *args), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stdout + done.stderr

    # The generator's reading of SPEC.md: the chain, then the start against the lobby it ends.
    reading = independent_reading()
    text = [line.decode("utf-8") for line in lines]
    assert len(reading.check_chain(text)) == len(text)
    genesis = game_events[0]
    at_start = next(i for i, e in enumerate(game_events) if e.get("type") == "start")
    joins = joins_before(lines, at_start)
    assert len(joins) == 4
    assert reading.start_refusal(genesis, joins, game_events[at_start]["roster"]) is None
    # ... and the same reading refuses a start that leaves a seated friend out.
    assert reading.start_refusal(genesis, joins, game_events[at_start]["roster"][:3]) is not None
    assert time.monotonic() - began < 90
