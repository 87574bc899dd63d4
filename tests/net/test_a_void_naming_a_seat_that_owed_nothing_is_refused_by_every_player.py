"""A host that re-deals a round whose every needed contribution arrived is refused by every
player, and its log fails `verify`, with `BAD_EVENT` (SPEC.md 7, "Who a host act in a seat's
place may name"; 8).

The host is the real `p2pdice host` process that, once every contribution of an attempt is in,
posts a void (`forfeit`, `no_contribution`: fresh hands for everyone) instead of the beacon,
naming a seat already out of the game, or its own host-run CPU seat after declaring it absent
(tests/support/voiding_host.py). The players are two real `p2pdice join --bot` processes.
Before the rule (commit 64f41d7) the host's own table took both voids, the round was re-dealt
and the game played on: the players finished it, and `verify` passed with a warning.

A player keeps only the entries it verified (SPEC.md 7.1), so its own file stops just before
the void; what it was shown is that file and the void the host sent every connection, which
is the host's signed log. `verify` of that fails at the void with the player's code.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from p2pdice.cli.verify_exits import EXIT_FAILED, EXIT_VERIFIED
from p2pdice.core.transcript import parse_entry
from tests.support import voiding_host
from tests.support.procs import bot_join, host_log, kill_all, p2pdice, spawn, transcript_files

pytestmark = pytest.mark.usefixtures("private_network")

#: What each refusal says (core/table_events.py), besides its code.
WHY = {"out": "is not a seat of this attempt", "cpu": "is host-run"}


def _verify(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        p2pdice("verify", *map(str, args)), capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    "mode",
    [
        pytest.param("out", id="a seat already out"),
        pytest.param("cpu", id="its own host-run cpu declared absent"),
    ],
)
def test_a_void_naming_a_seat_that_owed_no_contribution_is_refused_by_every_player(
    tmp_path: Path, mode: str
) -> None:
    home = tmp_path / "host"
    # One die each: after round 1 a seat is out, and round 2 is the `out` host's chance.
    host, ready = voiding_host.start(
        mode, "--seats", "3", "--cpu", "1", "--starting-dice", "1",
        "--no-advertise", "--bind", "127.0.0.1", "--home", str(home),
    )  # fmt: skip
    homes = {name: tmp_path / name for name in ("Ada", "Bo")}
    logs = {name: tmp_path / f"{name}.out" for name in homes}
    address = f"127.0.0.1:{ready['port']}"
    bots = [
        spawn(*bot_join(address, name=name, seed=n, home=homes[name], give_up=20), log=logs[name])
        for n, name in enumerate(homes)
    ]
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(b.poll() is None for b in bots):
            time.sleep(0.1)
        said = {name: log.read_text() for name, log in logs.items()}
        assert all(b.poll() is not None for b in bots), said
    finally:
        kill_all(*bots, host)
    out = host.stdout.read() if host.stdout else ""
    posted = [json.loads(line) for line in out.splitlines() if line.startswith('{"void"')]
    assert len(posted) == 1, out
    seq, seat = posted[0]["void"], posted[0]["seat"]
    lines = host_log(home).read_bytes().splitlines(keepends=True)
    void = parse_entry(lines[seq].rstrip(b"\n"))
    assert void.event is not None and void.event["type"] == "forfeit", void.event
    assert void.event["seats"] == [seat] and void.event["reason"] == "no_contribution"

    for name, text in said.items():
        # The alarm names the code, the entry and why, and the player stops following.
        alarm = re.search(rf"ALARM: BAD_EVENT: (.*) \(entry {seq}\)", text)
        assert alarm and WHY[mode] in alarm.group(1), (name, text)
        assert f"seat {seat}" in alarm.group(1), (name, text)
        assert "we stopped following it" in text, (name, text)
    assert [b.returncode for b in bots] == [1, 1], said
    assert not posted[0]["accepted"]  # its own table refused it too: signed and sent regardless

    for name in homes:
        (mine,) = transcript_files(homes[name])
        # What it verified and kept: the host's log up to the void, byte for byte.
        assert mine.read_bytes() == b"".join(lines[:seq]), name
        assert _verify("--partial", mine).returncode == EXIT_VERIFIED
        shown = tmp_path / f"{name}-shown.jsonl"
        shown.write_bytes(mine.read_bytes() + lines[seq])
        done = _verify(shown)
        assert done.returncode == EXIT_FAILED, done.stdout + done.stderr
        assert f"FAILED at entry {seq}" in done.stdout and "BAD_EVENT" in done.stdout, done.stdout
        assert WHY[mode] in done.stdout, done.stdout


def test_a_void_on_the_hosts_word_alone_is_taken_but_its_victim_and_verify_say_so(
    tmp_path: Path,
) -> None:
    """What the rule leaves a host (SPEC.md 1.3): to re-deal, it declares a connected player
    absent and voids the round naming it, though its contribution arrived. The log cannot
    show that, so every peer and `verify` take the void; the named player's client, which
    holds the contribution it sent, says it was dropped, and `verify` warns of the void."""
    home = tmp_path / "host"
    host, ready = voiding_host.start(
        "player", "--seats", "3", "--cpu", "1", "--starting-dice", "1",
        "--no-advertise", "--bind", "127.0.0.1", "--home", str(home),
    )  # fmt: skip
    homes = {name: tmp_path / name for name in ("Ada", "Bo")}
    logs = {name: tmp_path / f"{name}.out" for name in homes}
    address = f"127.0.0.1:{ready['port']}"
    bots = [
        spawn(*bot_join(address, name=name, seed=n, home=homes[name], give_up=20), log=logs[name])
        for n, name in enumerate(homes)
    ]
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and any(b.poll() is None for b in bots):
            time.sleep(0.1)
        said = {name: log.read_text() for name, log in logs.items()}
        assert all(b.poll() is not None for b in bots), said
    finally:
        kill_all(*bots, host)
    out = host.stdout.read() if host.stdout else ""
    posted = [json.loads(line) for line in out.splitlines() if line.startswith('{"void"')]
    assert len(posted) == 1 and posted[0]["accepted"], out
    seat = posted[0]["seat"]
    log = host_log(home)
    lines = log.read_bytes().splitlines(keepends=True)
    start = next(json.loads(line)["event"] for line in lines if b'"type":"start"' in line)
    victim = start["roster"][seat]["name"]
    assert victim in homes
    assert bots[list(homes).index(victim)].returncode == 1, said[victim]  # it ends alarmed
    for name, text in said.items():
        assert "BAD_EVENT" not in text, (name, text)
        dropped = "ALARM: MESSAGE_DROPPED: your contribute" in text
        assert dropped == (name == victim), (name, text)
        (mine,) = transcript_files(homes[name])
        assert mine.read_bytes() == log.read_bytes(), name  # one game, played to its end
    done = _verify(log)
    assert done.returncode == EXIT_VERIFIED, done.stdout + done.stderr
    assert f"WARNING (entry {posted[0]['void']})" in done.stdout, done.stdout
